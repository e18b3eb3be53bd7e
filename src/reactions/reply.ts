import type { Decision } from "../drafts/record.js";
import { decisionForEmoji } from "./decision-keys.js";

/** What a reply to a review message means. */
export interface ReplyDecision {
  readonly decision: Decision;
  /** The emoji the reply consisted of, or null for free text. */
  readonly emoji: string | null;
  /** The revision note (free text), or null. */
  readonly note: string | null;
}

/**
 * Reads a reviewer's reply to a review message (contract: "Decisions"): a
 * reply that is exactly one decision emoji decides; any other text asks for a
 * revision and becomes the note, kept as data and never interpreted.
 */
export function readReply(text: string): ReplyDecision {
  const trimmed = text.trim();
  const decision = decisionForEmoji(trimmed);
  if (decision !== null) return { decision, emoji: trimmed, note: null };
  return { decision: "revise", emoji: null, note: text };
}
