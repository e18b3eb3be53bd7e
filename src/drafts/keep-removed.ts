import type { DraftRecord, RedactionSummary } from "./record.js";
import { isFinal } from "./status.js";

/**
 * "🔓 Keep the removed items" (contract v4): when redaction removed items
 * from a draft at intake, a reviewer may make the draft's next text version
 * with the original items. These pure rules say when that is offered and
 * what the new version's redaction summary says; the originals themselves
 * are kept aside at intake (src/store/removed-items.ts), never in the record.
 */

/** How many items redaction removed from the draft's current text (0 when none, or the text is not redaction's). */
export function removedItemCount(draft: Pick<DraftRecord, "redaction">): number {
  const r = draft.redaction;
  if (r === null || r.mode !== "redact") return 0;
  return Object.values(r.removed).reduce((a, b) => a + b, 0);
}

/**
 * True while the draft's current text is the one redaction produced and it
 * removed something: version 1 (as submitted, or as a `revises` made it).
 * After any new version (an ✏️ edit, or the items kept) there is nothing left to keep.
 */
export function hasRemovedItems(draft: Pick<DraftRecord, "redaction" | "text_version">): boolean {
  return draft.text_version === 1 && removedItemCount(draft) > 0;
}

/**
 * True while the originals kept aside for this draft may still be used: it
 * has removed items and is not final, or it is a `revise` whose undo window
 * is still open at `now` (an undo makes it await a decision again). Once
 * false, the originals are dropped.
 */
export function needsRemovedItems(draft: DraftRecord, now: number): boolean {
  if (!hasRemovedItems(draft)) return false;
  if (!isFinal(draft.status)) return true;
  return draft.status === "revise" && draft.revise_undo !== null && draft.revised_by === null && now < Date.parse(draft.revise_undo.until);
}

/**
 * The redaction summary of the version that keeps the removed items: the
 * text is the reviewer's (mode `reviewer`, not redacted, contract v3), and
 * `restored` says it came from 🔓, with the hints of what came back.
 */
export function keptRedaction(before: RedactionSummary | null): RedactionSummary {
  const hints = before?.hints ?? [];
  return { mode: "reviewer", removed: {}, restored: true, ...(hints.length > 0 ? { hints } : {}) };
}

/**
 * For a sweep of the kept originals: true when the one of this draft
 * (undefined: not in the store, so none is needed) must stay. Test mode
 * leaves a live draft's alone.
 */
export function keepsOriginal(draft: DraftRecord | undefined, now: number, testMode: boolean): boolean {
  return draft !== undefined && ((testMode && !draft.test_mode) || needsRemovedItems(draft, now));
}

/** True when the change from `before` to `after` ends the draft's use of its kept original (final, or a new text version). */
export function originalDone(before: DraftRecord, after: DraftRecord, now: number): boolean {
  return hasRemovedItems(before) && !needsRemovedItems(after, now);
}
