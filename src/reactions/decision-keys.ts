import type { Decision } from "../drafts/record.js";

/**
 * The emoji that carry a decision (contract: "Decisions"). Telegram's reaction
 * set has no ❌ or ⏳, so 👎 and 😴 stand in for them as reactions; replies and
 * test mode accept both.
 */
const EMOJI_DECISIONS: ReadonlyMap<string, Decision> = new Map([
  ["👍", "send"],
  ["👎", "revise"],
  ["❌", "revise"],
  ["😴", "defer"],
  ["⏳", "defer"],
]);

/** Strips variation selectors and skin tones, so "👍🏻" and "👍️" read as "👍". */
function normalise(emoji: string): string {
  return emoji.replace(/[\u{FE0E}\u{FE0F}\u{1F3FB}-\u{1F3FF}]/gu, "").trim();
}

/** The decision an emoji stands for, or null if it is not a decision key. */
export function decisionForEmoji(emoji: string): Decision | null {
  return EMOJI_DECISIONS.get(normalise(emoji)) ?? null;
}

/** The emoji a reviewer uses for each decision as a reaction (Telegram's reaction set). */
export const REACTION_FOR: Readonly<Record<Decision, string>> = { send: "👍", revise: "👎", defer: "😴" };
