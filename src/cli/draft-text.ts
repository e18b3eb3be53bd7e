import type { DraftRecord } from "../drafts/record.js";
import { localWhenRelative, shortAge } from "../clock/local-time.js";

/** The fields of a record the human views show. */
type Shown = Partial<DraftRecord> & Pick<DraftRecord, "draft_id" | "status">;

function preview(text: string | undefined, max: number): string {
  const flat = (text ?? "").replace(/\s+/g, " ").trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}

/** The destination as the review post names it: a title (and @username), else the raw id. */
function destinationName(d: Shown): string {
  const a = d.audience;
  const id = d.destination_chat_id ?? "?";
  if (!a || a.title === null) return a?.username ? `@${a.username}` : id;
  return a.username ? `${a.title} (@${a.username})` : `${a.title} (${id})`;
}

/**
 * One line per draft for `draft-review list`: id, status, role, destination
 * (named as the review post names it), age and the start of the text.
 * `--json` prints the records instead.
 */
export function draftLines(drafts: readonly Shown[], nowMs: number): string {
  if (drafts.length === 0) return "no drafts";
  const idWidth = Math.max(...drafts.map((d) => d.draft_id.length));
  return drafts
    .map((d) => {
      const age = d.drafted_at ? `${shortAge(nowMs - Date.parse(d.drafted_at))} ago` : "";
      return [
        d.draft_id.padEnd(idWidth),
        d.status.padEnd(15),
        (d.drafted_by_role ?? "").padEnd(6),
        `→ ${destinationName(d)}`,
        age,
        `“${preview(d.draft_text, 50)}”`,
      ].join("  ");
    })
    .join("\n");
}

/** A stored UTC time, and beside it the same instant in REVIEW_TIMEZONE for a person. */
function withLocal(key: string, value: unknown, nowMs: number | undefined): string {
  const text = String(value);
  if (nowMs === undefined || !key.endsWith("_at") || typeof value !== "string" || Number.isNaN(Date.parse(value))) return text;
  return `${text} (${localWhenRelative(Date.parse(value), nowMs)})`;
}

/**
 * The record for a person, `field: value` per line, the draft text last and
 * whole (`draft-review get`). With `nowMs`, each time also reads in
 * REVIEW_TIMEZONE: `expires_at: 2030-01-03T10:00:00.000Z (tomorrow 11:00, in 22 h)`.
 */
export function draftDetails(draft: Shown, nowMs?: number): string {
  const { draft_text: text, ...rest } = draft;
  const lines = Object.entries(rest)
    .filter(([, v]) => v !== null && v !== undefined)
    .map(([k, v]) => {
      if (k === "channel_audience") return audienceLines(v as NonNullable<DraftRecord["channel_audience"]>, nowMs);
      if (k === "deliveries" && Array.isArray(v) && v.length > 0) return deliveryLines(v as DraftRecord["deliveries"]);
      return `${k}: ${typeof v === "object" ? JSON.stringify(v) : withLocal(k, v, nowMs)}`;
    });
  return [...lines, "draft_text:", text ?? ""].join("\n");
}

/**
 * A draft to another channel (contract v5): who will read it, as the review
 * post showed it, one line each, indented under `channel_audience:`; then
 * why a 👍 asks one more tap, and what stops the send, when there is any.
 * The fingerprint is the binding's business, not a person's.
 */
function audienceLines(a: NonNullable<DraftRecord["channel_audience"]>, nowMs: number | undefined): string {
  const count = a.reader_count === null ? "readers unknown" : `${a.reader_count} reader${a.reader_count === 1 ? "" : "s"}`;
  return [
    `channel_audience: ${a.channel}, ${count}, read ${withLocal("checked_at", a.checked_at, nowMs)}`,
    ...a.lines.map((line) => `  ${line}`),
    ...a.confirm_reasons.map((reason) => `  one more tap: ${reason}`),
    ...(a.problem === null ? [] : [`  problem: ${a.problem}`]),
  ].join("\n");
}

/** Each chosen destination's delivery (contract v5), one line each, indented under `deliveries:`: index, status, where it went or why not. */
function deliveryLines(deliveries: DraftRecord["deliveries"]): string {
  const line = (x: DraftRecord["deliveries"][number]) =>
    `  ${x.index}: ${x.status}${x.sent_ref === null ? "" : ` ${JSON.stringify(x.sent_ref)}`}${x.reason === null ? "" : ` (${x.reason})`}`;
  return ["deliveries:", ...deliveries.map(line)].join("\n");
}
