import type { DraftRecord } from "./record.js";
import { decideInTime } from "./decide.js";
import { awaitsUndoShown } from "./undo-window.js";
import { expiryDue, iso, next, ok, rearm, refuse, type Handler } from "./transition-kit.js";
import { deliveriesUndone } from "./fan-out.js";

// The machine's handlers inside an undo window: the undo of an approval or a
// revise, a change of mind on an approved draft, a note after a 👎.

/**
 * Undo within UNDO_WINDOW: back to the status the approval was given in; the
 * post awaits a decision again. The undo counts when the reviewer acted inside
 * the window (`actedAt`, Telegram's date), also if it reaches the daemon later
 * (queued while it was down): the draft is still unsent. An undo whose time is
 * unknown (`actedAt` null) may have been inside the window: it counts too;
 * so does any undo before the window began (its ↩️ Undo not shown yet).
 */
export const undo: Handler<"undo"> = (d, e, now) => {
  if (d.send_after === null) return refuse(d, "undo_closed");
  const actedAt = e.actedAt === undefined ? now : e.actedAt;
  // Before its ↩️ Undo is shown the window has not begun: an undo always counts.
  if (actedAt !== null && actedAt >= Date.parse(d.send_after) && !awaitsUndoShown(d)) return refuse(d, "undo_closed");
  const status = d.approval?.before ?? "pending";
  const draft = next(d, now, {
    status,
    approval: null,
    send_after: null,
    decided_by: e.actor,
    undone_at: iso(now),
    ...deliveriesUndone(d),
  });
  return ok(draft, { type: "show_status", draftId: d.draft_id }, ...rearm(d, draft));
};

/**
 * A 👎 or 😴 on an approved draft (its 👍 reaction changed, a note replied to
 * its post): the owner changed his mind. While an undo would still count (by
 * when he acted; a time not known counts, as for an undo), the approval is
 * undone and the new decision applies, in one step, bound like any decision
 * to what its message showed; a change of mind never lets the approval go
 * out. The approval was in time, so the change is too, even once the window
 * runs past `expires_at` (a 😴 then defers from that deadline). Afterwards it
 * is refused as on any approved draft.
 */
export const changeOfMind: Handler<"decide"> = (d, e, now) => {
  if (e.decision === "send") return refuse(d, "already_approved");
  const undone = undo(d, { type: "undo", actor: e.actor, actedAt: e.actedAt === undefined ? now : e.actedAt }, now);
  if (!undone.ok) return refuse(d, "already_approved");
  const decided = decideInTime(undone.draft, e, now);
  if (!decided.ok) return refuse(d, decided.reason);
  // One transition: one version more than the approved draft. Its effects are the decision's (a 😴 arms its new expiry;
  // a revise is final and needs none).
  return ok({ ...decided.draft, version: d.version + 1 }, ...decided.effects);
};

/**
 * Undo of a `revise` within UNDO_WINDOW (contract v3: the one way out of a
 * final status): back to the status the revise was given in, its note
 * withdrawn, its expiry armed again. Judged by when the reviewer acted, as
 * for an approval. A draft a later one already replaces (`revised_by`) stays.
 */
export const undoRevise: Handler<"undo"> = (d, e, now) => {
  if (d.revise_undo === null || d.revised_by !== null) return refuse(d, "undo_closed");
  const actedAt = e.actedAt === undefined ? now : e.actedAt;
  if (actedAt !== null && actedAt >= Date.parse(d.revise_undo.until)) return refuse(d, "undo_closed");
  const draft = next(d, now, {
    status: d.revise_undo.before,
    revise_undo: null,
    revision_note: null,
    decided_by: e.actor,
    undone_at: iso(now),
  });
  return ok(draft, { type: "show_status", draftId: d.draft_id }, { type: "arm_expiry", draftId: d.draft_id, at: expiryDue(draft) });
};

/**
 * A reviewer's note after a 👎 (a reply to the post of a draft a reviewer
 * sent back without one; any reviewer's note counts, as any reviewer's 👎
 * does): it becomes the revise's note, and the post shows it, as if given
 * with the 👎. Only while the revise's ↩️ Undo window runs (judged by when he
 * acted, as an undo is), only once, and only for a revise a reviewer made
 * (not one a later version superseded) that no later version answers yet;
 * anything else is refused with why, so the answer can say the note was not
 * passed on. Any other decision on a revise is refused as on any final draft.
 */
export const noteOnRevise: Handler<"decide"> = (d, e, now) => {
  if (e.decision !== "revise") return reviseChangeOfMind(d, e, now);
  if (!e.note) return refuse(d, "final_state");
  if (e.textVersion !== undefined && e.textVersion !== d.text_version) return refuse(d, "outdated_version");
  if (d.reason === "superseded" || d.revised_by !== null) return refuse(d, "note_superseded");
  if (d.revision_note) return refuse(d, "note_already_given");
  const actedAt = e.actedAt ?? now;
  if (d.revise_undo === null || actedAt >= Date.parse(d.revise_undo.until)) return refuse(d, "note_too_late");
  const draft = next(d, now, { revision_note: e.note });
  return ok(draft, { type: "show_status", draftId: d.draft_id });
};

/**
 * A 👍 or 😴 on a draft sent back for revision (its 👎 reaction changed)
 * while the revise's ↩️ Undo would still count: the mirror of changeOfMind.
 * The revise is undone and the new decision applies, in one step, bound like
 * any decision; afterwards it is refused as on any final draft.
 */
const reviseChangeOfMind: Handler<"decide"> = (d, e, now) => {
  const undone = undoRevise(d, { type: "undo", actor: e.actor, actedAt: e.actedAt === undefined ? now : e.actedAt }, now);
  if (!undone.ok) return refuse(d, "final_state");
  const decided = decideInTime(undone.draft, e, now);
  if (!decided.ok) return refuse(d, decided.reason);
  return ok({ ...decided.draft, version: d.version + 1 }, ...decided.effects);
};

/** Who made the decision an undo would take back: the approval's reviewer, or the one who sent the draft back; null: unknown. */
export function decidedBy(draft: DraftRecord): number | null {
  if (draft.status === "approved") return draft.approval?.actor.user_id ?? null;
  return draft.decided_by?.user_id ?? null;
}
