import type { Effect } from "./effects.js";
import type { DraftEvent, DraftEventType } from "./events.js";
import type { DraftRecord } from "./record.js";
import { deliveriesOf } from "./choices.js";
import type { DraftStatus } from "./status.js";

// What every handler of the draft state machine is made of: the result type,
// the refusal reasons, the record's next version and the expiry it arms.
// Pure, like the machine (src/drafts/machine.ts).

/**
 * Why an event was refused. Refusals are values, not exceptions: a decision
 * that arrives late or twice is normal on Telegram, not a bug.
 */
export type RefusalReason =
  | "final_state"
  | "not_posted"
  | "already_approved"
  | "not_due"
  | "no_approval"
  | "text_changed"
  | "expired"
  | "outdated_version"
  /** The reviewer decided on a message that showed another audience (see audienceFingerprint). */
  | "outdated_audience"
  | "text_unchanged"
  | "undo_closed"
  | "not_applicable"
  /** A 👍 for more than AUDIENCE_CONFIRM_OVER members, not yet confirmed by the extra tap. */
  | "needs_confirmation"
  /** A 👍 made on a message that showed another sender identity than the draft's now. */
  | "outdated_identity"
  /** The approval's ↩️ Undo has not been shown yet: its window has not begun, so no send may start. */
  | "undo_not_shown"
  /** A note for a revise whose ↩️ Undo window is over (or had none): it is not passed on. */
  | "note_too_late"
  /** A note for a revise that has its note already: the first stands, this one is not passed on. */
  | "note_already_given"
  /** A note for a draft sent back because a later version replaced it (or one a later version already answers): not passed on. */
  | "note_superseded"
  /** A destination number the draft does not have (a reply "4" to a post that lists 3, or to a draft with one destination). */
  | "not_a_choice"
  /**
   * A send intent made for one delivery of several while another is under way (its checks were for the first):
   * the one under way has its own send, checked for it.
   */
  | "other_delivery"
  /** `choose: "any"`: a 👍 while no destination is on (the post says to turn one on). */
  | "no_destination_on"
  /** `choose: "any"`: a toggle (or an ✏️ edit) on a draft some of whose deliveries went already: the set is fixed. */
  | "destinations_fixed"
  /** A 👍 on a draft that a halt holds already, while that halt lasts: its post says so, and it waits for the halt's end. */
  | "halted";

/** The result of applying one event to one draft. */
export type TransitionResult =
  | { readonly ok: true; readonly draft: DraftRecord; readonly effects: readonly Effect[] }
  | { readonly ok: false; readonly reason: RefusalReason; readonly status: DraftStatus };

/** The event of one type. */
export type EventOf<T extends DraftEventType> = Extract<DraftEvent, { type: T }>;
/** A row of the transition table: one event in one status, pure. */
export type Handler<T extends DraftEventType> = (draft: DraftRecord, event: EventOf<T>, now: number) => TransitionResult;
/** The transition table: for each event, the statuses it applies in. */
export type Table = { readonly [T in DraftEventType]: Partial<Record<DraftStatus, Handler<T>>> };

/** An instant as the record keeps it. */
export const iso = (ms: number) => new Date(ms).toISOString();

/** The next version of `draft`: status and fields changed, version bumped, updated_at set. */
export function next(draft: DraftRecord, now: number, changes: Partial<DraftRecord>): DraftRecord {
  const changed = { ...draft, ...changes, version: draft.version + 1, updated_at: iso(now) };
  // A draft the owner picks a destination for keeps its deliveries level with its status (contract v5).
  // `choose: "any"` keeps its deliveries itself (src/drafts/fan-out.ts): one each, made one after another.
  return changed.choices === null || changed.choose === "any" ? changed : { ...changed, deliveries: deliveriesOf(changed) };
}

/** A transition that applies, with the effects to run. */
export function ok(draft: DraftRecord, ...effects: Effect[]): TransitionResult {
  return { ok: true, draft, effects };
}

/** A transition that does not apply, with why. */
export function refuse(draft: DraftRecord, reason: RefusalReason): TransitionResult {
  return { ok: false, reason, status: draft.status };
}

/** How long an approval whose undo window ends near or past `expires_at` still has to start its send once the window is over. */
export const SEND_START_GRACE_MS = 60_000;

/**
 * When a draft that is not final expires. `expires_at` is the deadline for a
 * decision, and an approval given before it is one: a draft approved in time
 * waits out its undo window even past `expires_at`, and then has
 * SEND_START_GRACE_MS to start its send (a free slot, a retry), instead of
 * expiring inside the window with its approval dropped.
 */
export function expiryDue(d: DraftRecord): number {
  const expiresAt = Date.parse(d.expires_at);
  const waiting = (d.status === "approved" || d.status === "sending") && d.send_after !== null;
  return waiting ? Math.max(expiresAt, Date.parse(d.send_after!) + SEND_START_GRACE_MS) : expiresAt;
}

/** The expiry timer again, at `after`'s due, when a change moved it (an approval past `expires_at`, or its end). */
export function rearm(before: DraftRecord, after: DraftRecord): Effect[] {
  const at = expiryDue(after);
  return at === expiryDue(before) ? [] : [{ type: "arm_expiry", draftId: after.draft_id, at }];
}
