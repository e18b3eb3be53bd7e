/**
 * The scripted day's review chat as the owner scrolls it (issue 35, "read a
 * whole scripted day back"): each bot message in order with every version
 * it showed (its text and buttons, seconds from the day's start), and its
 * edits counted by cause, so the noise can be seen and cut.
 */
import { writeFile } from "node:fs/promises";
import type { ShownVersion } from "../test/telegram-double/index.js";

/** A version replaced by the next one within this many ms was barely seen (an intermediate status). */
const BARELY_SEEN_MS = 1_000;

/** The day's edits: how many, and how many of each cause. */
export interface EditCount {
  readonly total: number;
  readonly causes: ReadonlyMap<string, number>;
}

/** Counts the edits of the review chat's messages by cause (see causeOf), most frequent first. */
export function countEdits(history: readonly ShownVersion[]): EditCount {
  const causes = new Map<string, number>();
  let total = 0;
  for (const versions of byMessage(history).values()) {
    for (let i = 1; i < versions.length; i++) {
      total++;
      const cause = causeOf(versions[i - 1]!, versions[i]!, versions[i + 1]);
      causes.set(cause, (causes.get(cause) ?? 0) + 1);
    }
  }
  return { total, causes: new Map([...causes].sort((a, b) => b[1] - a[1])) };
}

/**
 * Why a message changed from `before` to `after`: nothing; its buttons only
 * (which were taken off, which put on); or its text, named by the first line
 * it shows that it did not before (digits and names of drafts blurred, so like
 * edits count together). "(replaced within 1 s)" when `next` followed at once.
 */
export function causeOf(before: ShownVersion, after: ShownVersion, next?: ShownVersion): string {
  const brief = next !== undefined && next.at - after.at < BARELY_SEEN_MS ? " (replaced within 1 s)" : "";
  const sameText = (after.text ?? before.text) === before.text;
  const [was, is] = [buttons(before), buttons(after)];
  if (sameText && was === is) return `no change${brief}`;
  if (sameText) return `buttons only: [${was}] -> [${is}]${brief}`;
  const old = new Set((before.text ?? "").split("\n"));
  const added = (after.text ?? "").split("\n").find((line) => line.trim() !== "" && !old.has(line));
  return `text: "${blur(added ?? "(lines removed)")}"${was === is ? "" : " + buttons"}${brief}`;
}

/** The chat as one text: each message in order of its first showing, with its versions. */
export function transcript(history: readonly ShownVersion[], start: number): string {
  const out: string[] = [];
  for (const [id, versions] of byMessage(history)) {
    out.push(`════ message ${id} (${versions.length - 1} edits)`);
    versions.forEach((v, i) => {
      const when = `+${((v.at - start) / 1000).toFixed(1)}s`;
      const cause = i === 0 ? "sent" : causeOf(versions[i - 1]!, v, versions[i + 1]);
      out.push(`── v${i} ${when} ${v.method}: ${cause}`);
      if (i === 0 || v.text !== versions[i - 1]!.text) out.push(indent(v.text ?? "(no text)"));
      const keys = buttons(v);
      if (keys !== "") out.push(`   [${keys}]`);
    });
    out.push("");
  }
  return out.join("\n");
}

/** Writes the transcript to `path`; returns the path. */
export async function writeTranscript(path: string, history: readonly ShownVersion[], start: number): Promise<string> {
  await writeFile(path, transcript(history, start));
  return path;
}

function byMessage(history: readonly ShownVersion[]): Map<number, ShownVersion[]> {
  const messages = new Map<number, ShownVersion[]>();
  for (const v of history) {
    const list = messages.get(v.messageId) ?? [];
    list.push(v);
    messages.set(v.messageId, list);
  }
  return messages;
}

function buttons(v: ShownVersion): string {
  return (v.replyMarkup?.inline_keyboard ?? [])
    .flat()
    .map((b) => b.text)
    .join(" | ");
}

function blur(line: string): string {
  const cut = line.replace(/\d+/g, "N").trim();
  return cut.length > 48 ? `${cut.slice(0, 47)}…` : cut;
}

function indent(text: string): string {
  return text
    .split("\n")
    .map((l) => `   ${l}`)
    .join("\n");
}
