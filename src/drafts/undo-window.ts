import type { DraftRecord } from "./record.js";

/**
 * The undo window of an approval counts from the moment Telegram accepted the
 * message or edit that shows it with its ↩️ Undo (contract v4), not from the
 * tap. Until then the record's `send_after` is provisional (the tap plus
 * UNDO_WINDOW) and `undo_shown_at` is null. Pure.
 */

/** How long after the end of its undo window a post still showing ↩️ Undo is edited to drop it, if the send has not started. */
export const UNDO_OVER_EDIT_MS = 2_000;

/**
 * True while an approval waits for its ↩️ Undo to be shown: approved with an
 * undo window that has not begun (`undo_shown`). No send may start meanwhile,
 * and an undo always counts.
 */
export function awaitsUndoShown(d: DraftRecord): boolean {
  return d.status === "approved" && d.send_after !== null && d.approval !== null && d.undo_shown_at === null;
}

/** The undo window of an approval whose ↩️ Undo is not shown yet (ms): its provisional `send_after` less the tap. 0 otherwise. */
export function pendingUndoWindowMs(d: DraftRecord): number {
  return awaitsUndoShown(d) ? Math.max(0, Date.parse(d.send_after!) - Date.parse(d.approval!.at)) : 0;
}

/**
 * When the send of `d` may start once its ↩️ Undo was accepted at `at` in a
 * message showing `sendAt` as the send time (null: none): the whole window
 * after `at`, not before the time shown, never earlier than provisional.
 */
export function sendAfterShown(d: DraftRecord, at: number, sendAt: number | null): number {
  const provisional = Date.parse(d.send_after!);
  return Math.max(provisional, at + pendingUndoWindowMs(d), sendAt ?? provisional);
}

/** A send time shown to the second, never earlier than the window allows. */
export function wholeSecondAfter(ms: number): number {
  return Math.ceil(ms / 1000) * 1000;
}
