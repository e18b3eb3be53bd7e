import { deliveryOfEvent } from "../drafts/fan-out.js";
import type { DecisionRefusedEntry, TransitionEntry, TransitionEvent } from "../audit/audit-schema.js";
import type { DraftEvent } from "../drafts/events.js";
import type { Actor, Decision, DraftRecord } from "../drafts/record.js";
import { senderKindOf } from "../drafts/sender.js";
import type { DraftStatus } from "../drafts/status.js";

export type { TransitionEntry } from "../audit/audit-schema.js";

/** The decision a status is the direct result of. */
const DECISION_OF: Partial<Record<DraftStatus, Decision>> = { approved: "send", revise: "revise", deferred: "defer" };

/** What caused a transition line: a machine event, or a draft's creation, or a change a crash left unaudited. */
export type TransitionCause = DraftEvent | { readonly type: "created" } | { readonly type: "recovered" };

/**
 * The audit line for a change from `from` to `draft` caused by `event`.
 * `previousText` is the text before the change, written when it changed (an edit).
 */
export function transitionEntry(
  from: DraftStatus | null,
  draft: DraftRecord,
  event: TransitionCause,
  previousText?: string,
): TransitionEntry {
  // A change a crash left out of the audit log keeps who decided it, when it was a decision's result.
  const recoveredDecision = event.type === "recovered" ? DECISION_OF[draft.status] : undefined;
  const byReviewer = event.type === "decide" || event.type === "edit" || event.type === "undo" || event.type === "toggle";
  const actor = byReviewer ? event.actor : recoveredDecision ? draft.decided_by : null;
  const decision = event.type === "decide" ? event.decision : actor ? (recoveredDecision ?? null) : null;
  const note = event.type === "decide" ? event.note : recoveredDecision === "revise" ? draft.revision_note : null;
  const type: TransitionEvent = event.type;
  return {
    kind: "transition",
    draft_id: draft.draft_id,
    version: draft.version,
    from,
    to: draft.status,
    event: type,
    draft_text: draft.draft_text,
    ...(previousText !== undefined && previousText !== draft.draft_text ? { previous_text: previousText } : {}),
    text_version: draft.text_version,
    drafted_by_role: draft.drafted_by_role,
    originating_intent_id: draft.originating_intent_id,
    destination_chat_id: draft.destination_chat_id,
    destination_thread_id: draft.destination_thread_id,
    review_message_id: draft.review_message_id,
    decision,
    emoji: actor?.emoji ?? null,
    user_id: actor?.user_id ?? null,
    channel: actor?.channel ?? null,
    update_id: actor?.update_id ?? null,
    reason: draft.reason,
    ...(note ? { note } : {}),
    ...(event.type === "revised" ? { revised_by: event.byDraftId } : {}),
    ...(event.type === "edit" && event.restored === true ? { restored: true } : {}),
    ...(event.type === "undo" && event.actedAt !== undefined
      ? { acted_at: event.actedAt === null ? null : new Date(event.actedAt).toISOString() }
      : {}),
    ...(draft.send_after !== null && draft.status === "approved" ? { send_after: draft.send_after } : {}),
    ...(draft.undo_shown_at !== null && draft.status === "approved" ? { undo_shown_at: draft.undo_shown_at } : {}),
    ...(draft.sent_message_id !== null ? { sent_message_id: draft.sent_message_id } : {}),
    ...(draft.sent_ref !== null && draft.status === "sent" ? { sent_ref: draft.sent_ref } : {}),
    ...deliveryFields(draft, event),
    send_as: draft.send_as,
    sender: senderKindOf(draft),
    ...(draft.sent_as !== null ? { sent_as: draft.sent_as } : {}),
    record: recordOf(draft),
  };
}

/** The delivery a fan-out's send event concerns (its sent_ref once it went), or the destination a toggle flipped. */
function deliveryFields(draft: DraftRecord, event: TransitionCause): Record<string, unknown> {
  if (event.type === "toggle") return { delivery: event.destination };
  const delivery = deliveryOfEvent(draft, event.type);
  if (delivery === null) return {};
  return { delivery: delivery.index, ...(delivery.sent_ref !== null && event.type === "send_ok" ? { sent_ref: delivery.sent_ref } : {}) };
}

/** The whole record after the change, for a start that finds the store lost it; its text is the line's own `draft_text`. */
function recordOf(draft: DraftRecord): Record<string, unknown> {
  const { draft_text: _text, ...rest } = draft;
  return rest;
}

/** A decision that did not count, with why: written so nothing is dropped silently. */
export interface RefusedDecision {
  readonly decision: Decision | null;
  readonly actor:
    | Actor
    | { readonly user_id: number | null; readonly channel: string; readonly emoji: string | null; readonly update_id: number | null };
  readonly reason: string;
  readonly chat_id?: string | null;
  readonly review_message_id?: number | null;
  readonly actor_chat_id?: number | null;
  readonly username?: string | null;
}

/** The audit line for a refused decision, with the draft's text when the draft is known. */
export function refusedEntry(refusal: RefusedDecision, draft: DraftRecord | undefined): DecisionRefusedEntry {
  return {
    kind: "decision_refused",
    draft_id: draft?.draft_id ?? null,
    status: draft?.status ?? null,
    draft_text: draft?.draft_text ?? null,
    decision: refusal.decision,
    emoji: refusal.actor.emoji,
    user_id: refusal.actor.user_id,
    channel: refusal.actor.channel,
    update_id: refusal.actor.update_id,
    reason: refusal.reason,
    chat_id: refusal.chat_id ?? null,
    review_message_id: refusal.review_message_id ?? draft?.review_message_id ?? null,
    ...(refusal.actor_chat_id != null ? { actor_chat_id: refusal.actor_chat_id } : {}),
    ...(refusal.username != null ? { username: refusal.username } : {}),
  };
}
