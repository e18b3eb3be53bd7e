import type { Decision } from "../drafts/record.js";
import { decisionForEmoji } from "./decision-keys.js";

/** What a reply to a review message means. */
export interface ReplyDecision {
  readonly decision: Decision;
  /** The emoji the reply consisted of, or null for free text. */
  readonly emoji: string | null;
  /** The revision note (free text), or null. */
  readonly note: string | null;
  /** A reply that is only a number (1-5): send to that destination of the post's list (contract v5). */
  readonly destination?: number;
}

/** A whole reply that is one destination's number. */
const DESTINATION_NUMBER = /^[1-5]$/;

/**
 * Reads a reviewer's reply to a review message (contract: "Decisions"): a
 * reply that is exactly one decision emoji decides; any other text asks for a
 * revision and becomes the note, kept as data and never interpreted.
 */
export function readReply(text: string): ReplyDecision {
  const trimmed = text.trim();
  const decision = decisionForEmoji(trimmed);
  if (decision !== null) return { decision, emoji: trimmed, note: null };
  if (DESTINATION_NUMBER.test(trimmed)) return { decision: "send", emoji: null, note: null, destination: Number(trimmed) };
  return { decision: "revise", emoji: null, note: text };
}

/** What a reply in the review chat asks for: a decision, a new text, an undo, or a question (an approval word). */
export type ReplyAction =
  | ({ readonly kind: "decide" } & ReplyDecision)
  /** A reply that is only an approval word: neither a note nor a decision; the bot asks which was meant. */
  | { readonly kind: "ask"; readonly note: string; readonly emoji: null }
  | { readonly kind: "edit"; readonly text: string; readonly emoji: string | null }
  | { readonly kind: "undo"; readonly emoji: string | null };

/** A reply starting with ✏️ (U+270F, with or without U+FE0F): the rest is the new text. */
const EDIT_PREFIX = /^[ \t\r\n]*\u270F\uFE0F?/u;
/**
 * A whole reply that is an approval word (contract v3, "Replies that are not
 * notes"): ok, okay, yes, y, send, send it, go or ✅, any case, with a trailing
 * `.` or `!`. Such a reply is not taken as a revision note.
 */
const APPROVAL_WORD = /^(ok|okay|yes|y|send|send it|go|\u2705)[.!]*$/iu;

/** True when `text`, trimmed, is only an approval word. */
export function isApprovalWord(text: string): boolean {
  return APPROVAL_WORD.test(text.trim().replace(/\s+/gu, " "));
}

/** `undo` (any case) or ↩️ (U+21A9, with or without U+FE0F), alone. */
const UNDO_REPLY = /^(undo|\u21A9\uFE0F?)$/iu;

/**
 * Reads a reviewer's reply (contract v2): a reply to the bot's edit prompt is
 * the new text, unless it is a lone decision emoji (👍 alone is no draft's
 * text: it is read as the decision, which the edit prompt does not take, so
 * the reviewer is pointed to the live post); a reply starting with ✏️ edits with the rest; `undo` or ↩️
 * takes back an approval; an approval word alone ("ok") asks which was meant; anything else is a decision as `readReply` reads it.
 */
export function readReplyAction(text: string, toEditPrompt: boolean): ReplyAction {
  if (toEditPrompt) {
    const lone = readReply(text);
    return lone.emoji === null ? { kind: "edit", text, emoji: null } : { kind: "decide", ...lone };
  }
  const edit = EDIT_PREFIX.exec(text);
  if (edit) return { kind: "edit", text: text.slice(edit[0].length), emoji: "✏️" };
  const trimmed = text.trim();
  if (UNDO_REPLY.test(trimmed)) return { kind: "undo", emoji: trimmed.toLowerCase() === "undo" ? null : "↩️" };
  if (isApprovalWord(trimmed)) return { kind: "ask", note: trimmed, emoji: null };
  return { kind: "decide", ...readReply(text) };
}
