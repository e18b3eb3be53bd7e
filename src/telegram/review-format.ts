import type { InlineKeyboardMarkup } from "grammy/types";
import { formatDuration } from "../config/duration.js";
import type { Decision, DraftRecord } from "../drafts/record.js";
import { AWAITING_DECISION } from "../drafts/status.js";
import { TELEGRAM_TEXT_LIMIT } from "../drafts/payload.js";

/** What the review post says besides the draft itself. */
export interface ReviewFormatOptions {
  readonly deferForMs: number;
}

/** The review post: one message, or a header message followed by the draft alone (for long drafts). */
export type ReviewPostText =
  | { readonly kind: "single"; readonly text: string }
  | { readonly kind: "split"; readonly header: string; readonly text: string };

const RULE = "────────";

function utc(iso: string): string {
  return iso.replace("T", " ").replace(/:\d\d(\.\d+)?Z$/, " UTC");
}

function redactionLine(draft: DraftRecord): string {
  const r = draft.redaction;
  if (r === null) return "";
  if (r.mode === "off") return "\n⚠️ PII redaction is off: the text has not been checked for personal data.";
  const parts = Object.entries(r.removed).filter(([, n]) => n > 0).map(([kind, n]) => `${n} ${kind}`);
  if (parts.length === 0) return "";
  const total = Object.values(r.removed).reduce((a, b) => a + b, 0);
  return `\n🔒 ${total} item${total === 1 ? "" : "s"} removed: ${parts.join(", ")}`;
}

/** The header: who drafted it, where it goes, when it expires, what redaction removed. */
export function reviewHeader(draft: DraftRecord): string {
  const topic = draft.destination_thread_id === null ? "" : ` (topic ${draft.destination_thread_id})`;
  return (
    `✏️ DRAFT (${draft.drafted_by_role}) — for chat ${draft.destination_chat_id}${topic}\n` +
    `Expires ${utc(draft.expires_at)} unless decided.` +
    redactionLine(draft)
  );
}

/** The footer: the decision keys. */
export function reviewFooter(options: ReviewFormatOptions): string {
  return `👍 send · 👎 revise (or reply with a note) · 😴 defer ${formatDuration(options.deferForMs)}`;
}

/**
 * The review post for a draft. The draft text is included exactly, as data;
 * nothing is sent with a parse_mode. When header, text and footer together
 * pass Telegram's limit, the header goes first on its own and the review
 * message holds the draft text alone.
 */
export function reviewPost(draft: DraftRecord, options: ReviewFormatOptions): ReviewPostText {
  const header = reviewHeader(draft);
  const footer = reviewFooter(options);
  const single = `${header}\n${RULE}\n${draft.draft_text}\n${RULE}\n${footer}`;
  if (single.length <= TELEGRAM_TEXT_LIMIT) return { kind: "single", text: single };
  return { kind: "split", header: `${header}\n${footer}\nThe draft follows in the next message; decide on that one.`, text: draft.draft_text };
}

/** A one-line account of the draft's status, for the top of the edited review message. */
export function statusLine(draft: DraftRecord): string {
  switch (draft.status) {
    case "queued":
    case "pending":
      return "⏳ Awaiting your decision.";
    case "deferred":
      return `😴 Deferred until ${utc(draft.expires_at)}.`;
    case "approved":
      return "👍 Approved — sending.";
    case "sending":
      return "📤 Sending…";
    case "halted":
      return `⛔ Approved, but not sent: ${draft.reason ?? "the kill switch is on"}. Approve again (👍) to send once it is off.`;
    case "sent":
      return `✅ Sent at ${utc(draft.sent_at ?? draft.updated_at)}.`;
    case "revise":
      return draft.revision_note ? `✍️ Revise: ${draft.revision_note}` : "✍️ Sent back for revision.";
    case "expired":
      return "⌛ Expired without a decision. Not sent.";
    case "failed":
      return `❌ Failed: Telegram said ${draft.reason ?? "no"}. Not sent.`;
    case "outcome_unknown":
      return `⚠️ Outcome unknown: ${draft.reason ?? ""}. Not retried; check the destination.`;
  }
}

/** Callback data of a button: a version, the decision, and the draft it was made for. */
export function callbackData(decision: Decision, draftId: string): string {
  return `v1:${decision}:${draftId}`;
}

/** Reads callback data back; it is untrusted, so anything unexpected is null. */
export function readCallbackData(data: string | undefined): { decision: Decision; draftId: string } | null {
  const m = /^v1:(send|revise|defer):([A-Za-z0-9_-]{1,56})$/.exec(data ?? "");
  return m ? { decision: m[1] as Decision, draftId: m[2]! } : null;
}

/** The buttons under a review message while it awaits a decision; none after. */
export function reviewKeyboard(draft: DraftRecord, options: ReviewFormatOptions): InlineKeyboardMarkup {
  if (!AWAITING_DECISION.has(draft.status) && draft.status !== "queued") return { inline_keyboard: [] };
  return {
    inline_keyboard: [
      [
        { text: "👍 Send", callback_data: callbackData("send", draft.draft_id) },
        { text: "❌ Revise", callback_data: callbackData("revise", draft.draft_id) },
        { text: `⏳ +${formatDuration(options.deferForMs)}`, callback_data: callbackData("defer", draft.draft_id) },
      ],
    ],
  };
}

/**
 * The review message's text after a status change: the status on top, then
 * the original post. Null when that would pass Telegram's limit (the status
 * then goes in a reply instead).
 */
export function editedReviewText(draft: DraftRecord, options: ReviewFormatOptions): string | null {
  const post = reviewPost(draft, options);
  if (post.kind === "split") return null;
  const text = `${statusLine(draft)}\n\n${post.text}`;
  return text.length <= TELEGRAM_TEXT_LIMIT ? text : null;
}
