import type { Actor, DraftRecord } from "../drafts/record.js";
import { decidedBy } from "../drafts/undo.js";
import { decisionForEmoji } from "./decision-keys.js";

/**
 * Why a reaction taken away undoes nothing, or null when it undoes the draft's decision. It undoes only
 * its own user's decision: another reviewer's 👍, refused as already approved, never counted, so taking it
 * away must not undo the owner's approval (D1 of issue 32). And only a decision of its kind: a 👍 taken away
 * undoes an approval, a 👎 a revise. Once a change of mind replaced the decision the reaction made (a note
 * after a 👍, a 👍 replied after a 👎), the reaction still sits on the post, and taking it off afterwards must
 * not withdraw the decision that replaced it (found by the explorer, seeds 9110 and 9104).
 * ↩️ Undo and a reply `undo` still undo either.
 */
export function reactionUndoRefused(draft: DraftRecord, actor: Actor): "not_your_decision" | "not_that_decision" | null {
  const by = decidedBy(draft);
  if (by !== null && by !== actor.user_id) return "not_your_decision";
  const removed = actor.emoji === null ? null : decisionForEmoji(actor.emoji);
  // The decision standing is of another kind than the reaction's: a change of mind replaced the one it made.
  if ((draft.status === "revise" && removed !== "revise") || (draft.status === "approved" && removed !== "send"))
    return "not_that_decision";
  return null;
}
