import type { Effect } from "./effects.js";
import type { DraftEvent } from "./events.js";
import type { DraftRecord } from "./record.js";
import { decide } from "./decide.js";
import { senderKindOf } from "./sender.js";
import { sendAfterShown, UNDO_OVER_EDIT_MS, awaitsUndoShown } from "./undo-window.js";
import { AWAITING_DECISION, isFinal, STATUSES, type DraftStatus } from "./status.js";
import {
  expiryDue,
  next,
  ok,
  rearm,
  refuse,
  iso,
  type EventOf,
  type Handler,
  type RefusalReason,
  type Table,
  type TransitionResult,
} from "./transition-kit.js";
import { changeOfMind, noteOnRevise, undo, undoRevise } from "./undo.js";
import {
  allOn,
  deliveriesExpired,
  deliveriesHalted,
  deliveryWaiting,
  deliveryEnded,
  deliverySending,
  endedUnmade,
  isFanOut,
  madeDeliveries,
  toggle,
} from "./fan-out.js";

export { expiryDue, SEND_START_GRACE_MS, type RefusalReason, type TransitionResult } from "./transition-kit.js";

// The draft state machine: its table and `transition`. The handlers of a
// decision are in decide.ts, those inside an undo window in undo.ts, what they
// share in transition-kit.ts; the rest (posting, edits, expiry, halts, the
// send) are here.

const posted: Handler<"posted"> = (d, e, now) => {
  const draft = next(d, now, {
    status: "pending",
    review_chat_id: e.reviewChatId,
    review_message_id: e.reviewMessageId,
    review_thread_id: e.reviewThreadId ?? null,
  });
  return ok(draft, { type: "arm_expiry", draftId: d.draft_id, at: Date.parse(d.expires_at) });
};

/**
 * A reviewer's edit: the new text becomes the next text version and the draft
 * is posted for review again (`queued` until the new post is out); the old
 * post is marked replaced. Any approval is void: it was for another text.
 */
const edit: Handler<"edit"> = (d, e, now) => {
  if (now >= Date.parse(d.expires_at)) return refuse(d, "expired");
  if (e.textVersion !== undefined && e.textVersion !== d.text_version) return refuse(d, "outdated_version");
  if (e.textSha256 === d.text_sha256) return refuse(d, "text_unchanged");
  // Among several destinations it keeps them and asks for the choice again (all on); not once some went.
  if (madeDeliveries(d).length > 0) return refuse(d, "destinations_fixed");
  const asksAgain = isFanOut(d) ? { chosen_set: allOn(d), set_changed_at: null, deliveries: [] } : {};
  const oldPost = d.review_message_id;
  const draft = next(d, now, {
    status: "queued",
    draft_text: e.text,
    text_sha256: e.textSha256,
    redaction: e.redaction,
    text_version: d.text_version + 1,
    original_text: d.original_text ?? d.draft_text,
    previous_text: d.draft_text,
    review_message_id: null,
    superseded_posts: oldPost === null ? d.superseded_posts : [...d.superseded_posts, oldPost],
    approval: null,
    send_after: null,
    decided_by: e.actor,
    reason: null,
    undone_at: null,
    ...editedAudiences(d, e),
    ...asksAgain,
  });
  const effects: Effect[] = [{ type: "post_review", draftId: d.draft_id }];
  if (oldPost !== null) effects.unshift({ type: "supersede_post", draftId: d.draft_id, reviewMessageId: oldPost });
  return ok(draft, ...effects);
};

/** Who an edited text reaches on Linear, email or Slack, as read again for it: the draft's own, and each choice's. */
function editedAudiences(d: DraftRecord, e: EventOf<"edit">): Partial<DraftRecord> {
  const own = e.channelAudience === undefined ? {} : { channel_audience: e.channelAudience };
  if (e.choiceAudiences === undefined || d.choices === null) return own;
  const choices = d.choices.map((c) => {
    const read = e.choiceAudiences!.find((a) => a.index === c.index);
    return read === undefined ? c : { ...c, channel_audience: read.channel_audience };
  });
  // The draft's own destination fields are those of its current choice (the first until one is picked).
  const current = choices.find((c) => c.index === (d.chosen ?? 1));
  return { ...own, choices, ...(current?.destination ? { channel_audience: current.channel_audience } : {}) };
}

/**
 * A later draft names this one in `revises`. One still awaiting a decision
 * becomes `revise` (reason `superseded`); any other keeps its status and only
 * records `revised_by` (a final draft stays final).
 */
const revised: Handler<"revised"> = (d, e, now) => {
  // A fan-out halted after some deliveries went: final as they say, the rest not sent.
  const partly = endedUnmade(d, now, "not sent: a later version replaced it");
  if (partly !== null && d.status === "halted")
    return ok({ ...partly, revised_by: e.byDraftId }, { type: "show_status", draftId: d.draft_id });
  if (AWAITING_DECISION.has(d.status) || d.status === "queued") {
    const draft = next(d, now, { status: "revise", reason: "superseded", revised_by: e.byDraftId, approval: null });
    return ok(draft, { type: "show_status", draftId: d.draft_id });
  }
  return ok(next(d, now, { revised_by: e.byDraftId }));
};

const expire: Handler<"expire"> = (d, e, now) => {
  if (now < expiryDue(d)) return refuse(d, "not_due");
  // A fan-out some of whose deliveries went before a halt: final as they say, the rest not sent.
  const partly = endedUnmade(d, now, "not sent: it expired before it was approved again");
  if (partly !== null) return ok(partly, { type: "show_status", draftId: d.draft_id });
  const down = e.whileDown;
  const draft = next(d, now, {
    ...deliveriesExpired(d),
    status: "expired",
    ...(down === undefined
      ? {}
      : {
          expired_while_down: down,
          reason: `it expired while the daemon was down (from ${down.since} to ${down.until}): a decision made then may have been lost`,
        }),
  });
  return ok(draft, { type: "show_status", draftId: d.draft_id });
};

const halt: Handler<"halt"> = (d, e, now) => {
  const moved = {
    ...(e.audience === undefined ? {} : { audience: e.audience }),
    ...(e.channelAudience === undefined ? {} : { channel_audience: e.channelAudience }),
    ...choiceMoved(d, e),
    ...(e.destinationChatId === undefined ? {} : { destination_chat_id: e.destinationChatId }),
  };
  const draft = next(d, now, {
    status: "halted",
    approval: null,
    send_after: null,
    undo_shown_at: null,
    reason: e.reason,
    halt_lasts: e.lasting === true,
    ...moved,
    ...deliveriesHalted(d),
  });
  return ok(draft, { type: "show_status", draftId: d.draft_id }, ...rearm(d, draft));
};

/** Among several destinations: the chosen one's audience as found at the send call, so the post shows it for the new 👍. */
function choiceMoved(d: DraftRecord, e: EventOf<"halt">): Partial<DraftRecord> {
  if (d.choices === null || d.chosen === null || (e.audience === undefined && e.channelAudience === undefined)) return {};
  const choices = d.choices.map((c) =>
    c.index !== d.chosen
      ? c
      : {
          ...c,
          ...(e.audience === undefined ? {} : { audience: e.audience }),
          ...(e.channelAudience === undefined ? {} : { channel_audience: e.channelAudience }),
          ...(e.destinationChatId === undefined ? {} : { destination_chat_id: e.destinationChatId }),
        },
  );
  return { choices };
}

/** The halt that stopped a draft ended: its post offers 👍 Send again (a new approval, bound like any other). */
const haltLifted: Handler<"halt_lifted"> = (d, _e, now) => {
  if (!d.halt_lasts) return refuse(d, "not_applicable");
  return ok(next(d, now, { halt_lasts: false }), { type: "show_status", draftId: d.draft_id });
};

/**
 * Telegram accepted the edit (or message) showing the approval with its ↩️
 * Undo: the window counts from then. `send_after` becomes at least `at` plus
 * the window and at least the send time the message showed; it never moves
 * earlier. Only the version shown counts, once. Then the send path takes the
 * draft; should the send not have started shortly after the window, the post
 * drops its ↩️ Undo (an undo is refused from then on).
 */
const undoShown: Handler<"undo_shown"> = (d, e, now) => {
  if (e.version !== d.version || !awaitsUndoShown(d)) return refuse(d, "not_applicable");
  const sendAfter = sendAfterShown(d, e.at, e.sendAt);
  const draft = next(d, now, { undo_shown_at: iso(e.at), send_after: iso(sendAfter) });
  return ok(
    draft,
    { type: "send", draftId: d.draft_id },
    { type: "show_status_at", draftId: d.draft_id, at: sendAfter + UNDO_OVER_EDIT_MS },
    ...rearm(d, draft),
  );
};

const sendIntent: Handler<"send_intent"> = (d, e, now) => {
  // Checked for one delivery, while the draft moved on to the next: that one's own send checks it (never this call).
  if (e.delivery !== undefined && e.delivery !== d.chosen) return refuse(d, "other_delivery");
  if (now >= expiryDue(d)) return refuse(d, "expired");
  if (!d.approval) return refuse(d, "no_approval");
  if (d.approval.text_sha256 !== d.text_sha256) return refuse(d, "text_changed");
  // The window counts from when the chat showed its ↩️ Undo: not begun, so not over.
  if (awaitsUndoShown(d)) return refuse(d, "undo_not_shown");
  // UNDO_WINDOW not over yet: the reviewer may still take the approval back.
  if (d.send_after !== null && now < Date.parse(d.send_after)) return refuse(d, "not_due");
  // The reference stays the draft's once chosen: a lookup after a lost answer finds any send of it.
  const reference = d.send_reference ?? e.reference ?? null;
  return ok(next(d, now, { status: "sending", send_reference: reference, ...deliverySending(d) }));
};

// No `send` effect: the send path decides when to try again (retry_after, backoff). The post shows the
// approval again, its window over: "Sending as soon as Telegram allows", no ↩️ Undo.
const sendRetry: Handler<"send_retry"> = (d, e, now) =>
  ok(next(d, now, { status: "approved", reason: e.reason, ...deliveryWaiting(d) }), { type: "show_status", draftId: d.draft_id });

const sendOk: Handler<"send_ok"> = (d, e, now) =>
  isFanOut(d)
    ? deliveryEnded(d, { status: "sent", sentRef: sentRefOf(d, e), reason: null, effects: [], messageId: e.messageId }, now)
    : ok(
        next(d, now, {
          status: "sent",
          sent_message_id: e.messageId,
          sent_ref: sentRefOf(d, e),
          sent_at: iso(now),
          reason: null,
          sent_as: senderKindOf(d),
        }),
        {
          type: "show_status",
          draftId: d.draft_id,
        },
      );

/** `sent_ref` (contract v5): the other channel's, or Telegram's chat and message id. */
function sentRefOf(d: DraftRecord, e: EventOf<"send_ok">): DraftRecord["sent_ref"] {
  if (e.sentRef !== undefined) return e.sentRef;
  return e.messageId === null ? null : { chat_id: d.destination_chat_id, message_id: e.messageId };
}

const sendFailed: Handler<"send_failed"> = (d, e, now) =>
  isFanOut(d)
    ? deliveryEnded(d, { status: "failed", sentRef: null, reason: e.reason, effects: [] }, now)
    : ok(next(d, now, { status: "failed", reason: e.reason }), { type: "show_status", draftId: d.draft_id });

/** What the reviewers are told about a send whose outcome is unknown (also sent again at start if a crash lost it). */
export function unknownOutcomeNotice(reason: string): string {
  return (
    "⚠️ The send of this draft may or may not have reached the destination " +
    `(${reason}). It will not be sent again automatically: check the destination (the chat, the issue, the conversation or the sent mail).`
  );
}

const sendUnknown: Handler<"send_unknown"> = (d, e, now) =>
  isFanOut(d)
    ? deliveryEnded(d, { status: "outcome_unknown", sentRef: null, reason: e.reason, effects: [unknownNotice(d, e.reason)] }, now)
    : ok(
        next(d, now, { status: "outcome_unknown", reason: e.reason }),
        { type: "show_status", draftId: d.draft_id },
        { type: "notify", draftId: d.draft_id, text: unknownOutcomeNotice(e.reason) },
      );

/** The notice of a delivery whose outcome is unknown, naming it among several. */
function unknownNotice(d: DraftRecord, reason: string): Effect {
  return { type: "notify", draftId: d.draft_id, text: unknownOutcomeNotice(`destination ${d.chosen}: ${reason}`), delivery: d.chosen ?? 1 };
}

/**
 * The transition table: for each event, the statuses it applies in. A pair
 * that is not listed is refused; final statuses appear nowhere, except
 * `revise` for its undo and its late note within UNDO_WINDOW.
 */
export const TRANSITIONS: Table = {
  posted: { queued: posted },
  // On `approved`, a 👎 or 😴 inside the undo window (a change of mind); on `revise`, only its note, given after the 👎 within the undo window.
  decide: { pending: decide, deferred: decide, halted: decide, approved: changeOfMind, revise: noteOnRevise },
  edit: { pending: edit, deferred: edit, halted: edit },
  toggle: { pending: toggle, deferred: toggle, halted: toggle },
  // `revise` is final, except for its undo within UNDO_WINDOW (contract v3).
  undo: { approved: undo, revise: undoRevise },
  // The one event that applies in every status: in a final one it only records `revised_by`.
  revised: Object.fromEntries(STATUSES.map((s) => [s, revised])) as Record<DraftStatus, Handler<"revised">>,
  expire: { queued: expire, pending: expire, deferred: expire, halted: expire, approved: expire },
  // From `sending` only before the call: the send path looks at the switch again after writing the intent.
  halt: { approved: halt, sending: halt },
  halt_lifted: { halted: haltLifted },
  undo_shown: { approved: undoShown },
  send_intent: { approved: sendIntent },
  send_retry: { sending: sendRetry },
  send_ok: { sending: sendOk },
  send_failed: { sending: sendFailed },
  send_unknown: { sending: sendUnknown },
};

/** Why an event that the table does not list for a status is refused. */
function refusalFor(draft: DraftRecord, event: DraftEvent): RefusalReason {
  if (isFinal(draft.status)) return "final_state";
  if (event.type === "decide" || event.type === "edit" || event.type === "toggle") {
    if (draft.status === "queued") return "not_posted";
    if (draft.status === "approved" || draft.status === "sending") return "already_approved";
  }
  if (event.type === "undo" && draft.status === "sending") return "undo_closed";
  return "not_applicable";
}

/**
 * The draft state machine: a pure function of the draft, the event and the
 * time. It performs no I/O and reads no clock; it returns the next record and
 * the effects to run, or a refusal with its reason. It never throws for an
 * event that does not apply.
 */
export function transition(draft: DraftRecord, event: DraftEvent, now: number): TransitionResult {
  const handler = TRANSITIONS[event.type][draft.status] as Handler<typeof event.type> | undefined;
  if (!handler) return refuse(draft, refusalFor(draft, event));
  return (handler as (d: DraftRecord, e: DraftEvent, n: number) => TransitionResult)(draft, event, now);
}
