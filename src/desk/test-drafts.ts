import type { Effect } from "../drafts/effects.js";
import type { DraftRecord } from "../drafts/record.js";

/**
 * Live drafts and test mode's drafts share HARNESS_DIR (contract v3 "Test
 * mode is inert for a live daemon", v4 "Test mode never touches live
 * drafts"); each mode leaves the other's drafts alone. A test-mode draft's
 * review message id was made up and may be the id of any real message in the
 * review chat, and its destination was never meant to receive it: a live
 * desk never posts, sends, lists, counts or matches a decision to it; it only
 * expires, quietly, and is archived like any final draft. A live draft is
 * the owner's: a test-mode desk never changes, posts, sends, lists, expires
 * or archives it, so a live daemon started afterwards finds it as it was.
 */

/** True when a desk must leave `draft` alone: it was made in the other mode. */
export function isInertDraft(draft: Pick<DraftRecord, "test_mode">, deskInTestMode: boolean): boolean {
  return draft.test_mode !== deskInTestMode;
}

/** True when a desk may change the draft's record at all: a live desk every draft (a test-mode one only expires), test mode only its own. */
export function mayChangeDraft(draft: Pick<DraftRecord, "test_mode">, deskInTestMode: boolean): boolean {
  return draft.test_mode || !deskInTestMode;
}

/** The effects an inert draft keeps: on a live desk, its expiry timer (the expiry itself changes no message); in test mode, none. */
export function runsForInertDraft(effect: Effect, deskInTestMode: boolean): boolean {
  return !deskInTestMode && effect.type === "arm_expiry";
}

/** How many live drafts (made without test mode) `drafts` holds: test mode says it leaves them alone. */
export function countLiveDrafts(drafts: Iterable<Pick<DraftRecord, "test_mode">>): number {
  let n = 0;
  for (const d of drafts) if (!d.test_mode) n++;
  return n;
}
