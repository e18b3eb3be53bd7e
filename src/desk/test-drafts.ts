import type { Effect } from "../drafts/effects.js";
import type { DraftRecord } from "../drafts/record.js";

/**
 * True when a desk must leave `draft` alone: the desk is live and the draft
 * was made in test mode (a test session run once in the live HARNESS_DIR).
 * Its review message id was made up by test mode and may be the id of any
 * real message in the review chat, and its destination was never meant to
 * receive it: a live desk never posts, sends, lists, counts or matches a
 * decision to it. It only expires, quietly, and is archived like any final draft.
 */
export function isInertDraft(draft: Pick<DraftRecord, "test_mode">, deskInTestMode: boolean): boolean {
  return draft.test_mode && !deskInTestMode;
}

/** The one effect an inert draft keeps: its expiry timer (the expiry itself changes no message). */
export function runsForInertDraft(effect: Effect): boolean {
  return effect.type === "arm_expiry";
}
