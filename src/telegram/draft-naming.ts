import type { DraftRecord } from "../drafts/record.js";
import { shortDestination } from "./audience-text.js";

/**
 * A draft as the owner knows it, for a message that is not its own post:
 * the role that drafted it, where it goes and how it starts (never its id):
 * `Scribe → Team chat: “Hi all, the Q2 numbers…”`.
 */
export function draftAsKnown(draft: Pick<DraftRecord, "drafted_by_role" | "destination_chat_id" | "audience" | "draft_text">): string {
  const flat = draft.draft_text.replace(/\s+/g, " ").trim();
  const start = flat.length <= 40 ? flat : `${flat.slice(0, 39).trimEnd()}…`;
  return `${draft.drafted_by_role} → ${shortDestination(draft)}: “${start}”`;
}

/** At most this many drafts are named in one such message; the rest are counted. */
export const NAMED_AT_MOST = 8;

/** Bullet lines naming `drafts` (at most NAMED_AT_MOST, then how many more), with `suffix(draft)` after each. */
export function draftBullets<D extends Parameters<typeof draftAsKnown>[0]>(
  drafts: readonly D[],
  suffix: (d: D) => string = () => "",
): string {
  const lines = drafts.slice(0, NAMED_AT_MOST).map((d) => `• ${draftAsKnown(d)}${suffix(d)}`);
  if (drafts.length > NAMED_AT_MOST) lines.push(`…and ${drafts.length - NAMED_AT_MOST} more (/pending lists those awaiting a decision)`);
  return lines.join("\n");
}
