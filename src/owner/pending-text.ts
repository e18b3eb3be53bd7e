import type { DraftRecord } from "../drafts/record.js";
import { AWAITING_DECISION } from "../drafts/status.js";
import { localWhenRelative, shortAge } from "./local-time.js";

/** The fields of a draft that /pending shows (the audience, when resolved, names the destination). */
export type PendingDraft = Pick<
  DraftRecord,
  | "draft_id"
  | "status"
  | "drafted_by_role"
  | "destination_chat_id"
  | "destination_thread_id"
  | "drafted_at"
  | "expires_at"
  | "review_chat_id"
  | "review_message_id"
  | "draft_text"
> & { readonly audience?: DraftRecord["audience"] };

/** The destination by name when Telegram gave one (⚠️ when public), else its id. */
function destinationName(d: PendingDraft): string {
  const a = d.audience;
  if (!a || a.kind === "unknown" || a.title === null) return d.destination_chat_id;
  return `${a.username !== null && a.kind !== "private" ? "⚠️ " : ""}“${a.title}”`;
}

/** At most this many drafts are listed; the rest are counted. */
export const MAX_LISTED = 15;

/** The listed lines stop before they pass this many characters, so the answer is one message (Telegram: 4096). */
export const LISTED_CHARS = 3_400;

/**
 * A link to a review message. Telegram has links only for supergroups and
 * channels (`t.me/c/<id without -100>/<message id>`); in a private chat or a
 * basic group there is none, and the message id is all there is.
 */
export function reviewLink(chatId: string, messageId: number): string | null {
  return /^-100\d+$/.test(chatId) ? `https://t.me/c/${chatId.slice(4)}/${messageId}` : null;
}

function preview(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length <= 40 ? flat : `${flat.slice(0, 39)}…`;
}

function line(d: PendingDraft, nowMs: number, timeZone: string | undefined): string {
  const where = d.destination_thread_id === null ? destinationName(d) : `${destinationName(d)} (topic ${d.destination_thread_id})`;
  const age = shortAge(nowMs - Date.parse(d.drafted_at));
  const expires = localWhenRelative(Date.parse(d.expires_at), nowMs, timeZone);
  const link =
    d.review_message_id === null
      ? "not posted yet"
      : (reviewLink(d.review_chat_id ?? "", d.review_message_id) ?? `message ${d.review_message_id}`);
  return `• ${d.drafted_by_role} → ${where} · ${d.status} · ${age} old, expires ${expires} · ${link}\n  “${preview(d.draft_text)}”`;
}

/**
 * The /pending answer: drafts that wait for the owner (pending, deferred,
 * halted, and queued ones not posted yet), oldest first, each with its role,
 * destination, age and a link to its review post; always one message: past
 * MAX_LISTED drafts or LISTED_CHARS characters the rest are counted. Pure.
 */
export function pendingText(drafts: Iterable<PendingDraft>, nowMs: number, timeZone?: string): string {
  const waiting = [...drafts]
    .filter((d) => AWAITING_DECISION.has(d.status) || d.status === "queued")
    .sort((a, b) => Date.parse(a.drafted_at) - Date.parse(b.drafted_at));
  if (waiting.length === 0) return "Nothing awaits a decision.";
  const shown: string[] = [];
  let chars = 0;
  for (const d of waiting.slice(0, MAX_LISTED)) {
    const l = line(d, nowMs, timeZone);
    if (chars + l.length + 1 > LISTED_CHARS) break;
    shown.push(l);
    chars += l.length + 1;
  }
  const more = waiting.length - shown.length;
  return [
    `${waiting.length} draft${waiting.length === 1 ? "" : "s"} awaiting a decision (oldest first):`,
    ...shown,
    ...(more > 0 ? [`… and ${more} more: \`npx draft-review list --status pending\` shows them all.`] : []),
    "Decide on a review message with 👍 send · 👎 revise · 😴 defer.",
  ].join("\n");
}
