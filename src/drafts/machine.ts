import { audienceFingerprint, needsConfirmation, sendIdentity } from "./audience.js";
import type { Effect } from "./effects.js";
import type { DraftEvent, DraftEventType } from "./events.js";
import type { DraftRecord } from "./record.js";
import { senderKindOf } from "./sender.js";
import { awaitsUndoShown, sendAfterShown, UNDO_OVER_EDIT_MS } from "./undo-window.js";
import { AWAITING_DECISION, isFinal, STATUSES, type DraftStatus } from "./status.js";

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
  /** A 👍 on a draft that a halt holds already, while that halt lasts: its post says so, and it waits for the halt's end. */
  | "halted";

/** The result of applying one event to one draft. */
export type TransitionResult =
  | { readonly ok: true; readonly draft: DraftRecord; readonly effects: readonly Effect[] }
  | { readonly ok: false; readonly reason: RefusalReason; readonly status: DraftStatus };

type EventOf<T extends DraftEventType> = Extract<DraftEvent, { type: T }>;
type Handler<T extends DraftEventType> = (draft: DraftRecord, event: EventOf<T>, now: number) => TransitionResult;
type Table = { readonly [T in DraftEventType]: Partial<Record<DraftStatus, Handler<T>>> };

const iso = (ms: number) => new Date(ms).toISOString();

/** The next version of `draft`: status and fields changed, version bumped, updated_at set. */
function next(draft: DraftRecord, now: number, changes: Partial<DraftRecord>): DraftRecord {
  return { ...draft, ...changes, version: draft.version + 1, updated_at: iso(now) };
}

function ok(draft: DraftRecord, ...effects: Effect[]): TransitionResult {
  return { ok: true, draft, effects };
}

function refuse(draft: DraftRecord, reason: RefusalReason): TransitionResult {
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
function rearm(before: DraftRecord, after: DraftRecord): Effect[] {
  const at = expiryDue(after);
  return at === expiryDue(before) ? [] : [{ type: "arm_expiry", draftId: after.draft_id, at }];
}

const posted: Handler<"posted"> = (d, e, now) => {
  const draft = next(d, now, {
    status: "pending",
    review_chat_id: e.reviewChatId,
    review_message_id: e.reviewMessageId,
    review_thread_id: e.reviewThreadId ?? null,
  });
  return ok(draft, { type: "arm_expiry", draftId: d.draft_id, at: Date.parse(d.expires_at) });
};

/** The status an approval returns to on undo: the one it was given in. */
function approvedFrom(status: DraftStatus): "pending" | "deferred" | "halted" {
  return status === "deferred" || status === "halted" ? status : "pending";
}

const decide: Handler<"decide"> = (d, e, now) => {
  // Past expires_at a draft is expired even if the expiry could not be recorded yet (a full disk).
  if (now >= Date.parse(d.expires_at)) return refuse(d, "expired");
  if (e.textVersion !== undefined && e.textVersion !== d.text_version) return refuse(d, "outdated_version");
  if (e.audience !== undefined && e.audience !== audienceFingerprint(d)) return refuse(d, "outdated_audience");
  if (e.identity !== undefined && e.identity !== sendIdentity(d)) return refuse(d, "outdated_identity");
  const common = { decided_by: e.actor, undone_at: null, halt_lasts: false };
  switch (e.decision) {
    case "send": {
      // Sends are halted now: answered as halted at once, never with a send time or ↩️ Undo (contract v4).
      if (e.halted) return haltedApproval(d, e, e.halted, now);
      if (e.asBot) return sendAsBotInstead(d, e, now);
      if (!e.confirmed && needsConfirmation(d.audience, e.confirmOver ?? null)) return refuse(d, "needs_confirmation");
      const approval = {
        actor: e.actor,
        at: iso(now),
        text_sha256: d.text_sha256,
        text_version: d.text_version,
        before: approvedFrom(d.status),
        sender: senderKindOf(d),
        identity: sendIdentity(d),
      };
      const undoMs = e.undoMs ?? 0;
      if (undoMs > 0) {
        // The post shows "Sending at … · ↩️ Undo"; the window counts from Telegram's acceptance of
        // that edit (`undo_shown`), which hands the draft to the send path. Until then send_after is
        // provisional and no send may start.
        const send_after = iso(now + undoMs);
        const draft = next(d, now, { ...common, status: "approved", approval, reason: null, send_after, undo_shown_at: null });
        return ok(draft, { type: "show_status", draftId: d.draft_id }, ...rearm(d, draft));
      }
      const draft = next(d, now, { ...common, status: "approved", approval, reason: null, send_after: null, undo_shown_at: null });
      // The outcome (sent, failed, halted...) is shown when it comes: one edit, not two.
      return ok(draft, { type: "send", draftId: d.draft_id });
    }
    case "revise": {
      const undoMs = e.undoMs ?? 0;
      // A revise may be undone within UNDO_WINDOW (contract v3): the post shows ↩️ Undo until then.
      const revise_undo = undoMs > 0 ? { until: iso(now + undoMs), before: approvedFrom(d.status) } : null;
      const draft = next(d, now, { ...common, status: "revise", revision_note: e.note ?? null, revise_undo, approval: null });
      const closes: Effect[] = undoMs > 0 ? [{ type: "show_status_at", draftId: d.draft_id, at: now + undoMs }] : [];
      return ok(draft, { type: "show_status", draftId: d.draft_id }, ...closes);
    }
    case "defer": {
      const at = Date.parse(d.expires_at) + e.deferMs;
      const draft = next(d, now, { ...common, status: "deferred", expires_at: iso(at), approval: null });
      return ok(draft, { type: "arm_expiry", draftId: d.draft_id, at }, { type: "show_status", draftId: d.draft_id });
    }
  }
};

/**
 * "🤖 Send as the bot instead": only for a draft halted because the owner's
 * identity could not send it. The draft's identity becomes the bot and the
 * tap is the approval, bound to that identity. Never done without the tap.
 */
function sendAsBotInstead(d: DraftRecord, e: EventOf<"decide">, now: number): TransitionResult {
  if (d.status !== "halted" || senderKindOf(d) !== "owner") return refuse(d, "outdated_identity");
  const sender = botSender(d, e);
  const approval = {
    actor: e.actor,
    at: iso(now),
    text_sha256: d.text_sha256,
    text_version: d.text_version,
    before: "halted" as const,
    sender: "bot" as const,
    identity: sendIdentity({ ...d, sender }),
  };
  const undoMs = e.undoMs ?? 0;
  const send_after = undoMs > 0 ? iso(now + undoMs) : null;
  const changes = { decided_by: e.actor, status: "approved" as const, sender, approval, reason: null, send_after };
  const draft = next(d, now, { ...changes, undo_shown_at: null, halt_lasts: false });
  // With a window, the send waits for its ↩️ Undo to be shown (see decide).
  const send: Effect[] = undoMs > 0 ? [] : [{ type: "send", draftId: d.draft_id }];
  return ok(draft, { type: "show_status", draftId: d.draft_id }, ...send);
}

/** The bot as the draft's identity, for "🤖 Send as the bot instead" (`why_not_owner`: why the owner could not). */
function botSender(d: DraftRecord, e: EventOf<"decide">) {
  return { kind: "bot" as const, username: e.asBot?.username ?? null, why_not_owner: d.reason };
}

/**
 * A `send` decision while sends are halted (the kill switch, read when the
 * decision was applied): `halted` at once with why, no approval, no send time,
 * no ↩️ Undo. `halt_lasts` keeps 👍 off the post until the halt ends (see
 * `halt_lifted`). "🤖 Send as the bot instead" still moves the draft to the bot.
 */
function haltedApproval(d: DraftRecord, e: EventOf<"decide">, reason: string, now: number): TransitionResult {
  if (e.asBot && (d.status !== "halted" || senderKindOf(d) !== "owner")) return refuse(d, "outdated_identity");
  // Its post says so already: a 👍 that would change nothing it shows is refused, so that it is answered.
  if (!e.asBot && d.status === "halted" && d.halt_lasts && d.reason === reason) return refuse(d, "halted");
  const sender = e.asBot ? { sender: botSender(d, e) } : {};
  const draft = next(d, now, {
    ...sender,
    decided_by: e.actor,
    undone_at: null,
    status: "halted",
    approval: null,
    send_after: null,
    undo_shown_at: null,
    reason,
    halt_lasts: true,
  });
  return ok(draft, { type: "show_status", draftId: d.draft_id }, ...rearm(d, draft));
}

/**
 * A reviewer's edit: the new text becomes the next text version and the draft
 * is posted for review again (`queued` until the new post is out); the old
 * post is marked replaced. Any approval is void: it was for another text.
 */
const edit: Handler<"edit"> = (d, e, now) => {
  if (now >= Date.parse(d.expires_at)) return refuse(d, "expired");
  if (e.textVersion !== undefined && e.textVersion !== d.text_version) return refuse(d, "outdated_version");
  if (e.textSha256 === d.text_sha256) return refuse(d, "text_unchanged");
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
  });
  const effects: Effect[] = [{ type: "post_review", draftId: d.draft_id }];
  if (oldPost !== null) effects.unshift({ type: "supersede_post", draftId: d.draft_id, reviewMessageId: oldPost });
  return ok(draft, ...effects);
};

/**
 * Undo within UNDO_WINDOW: back to the status the approval was given in; the
 * post awaits a decision again. The undo counts when the reviewer acted inside
 * the window (`actedAt`, Telegram's date), also if it reaches the daemon later
 * (queued while it was down): the draft is still unsent. An undo whose time is
 * unknown (`actedAt` null) may have been inside the window: it counts too;
 * so does any undo before the window began (its ↩️ Undo not shown yet).
 */
const undo: Handler<"undo"> = (d, e, now) => {
  if (d.send_after === null) return refuse(d, "undo_closed");
  const actedAt = e.actedAt === undefined ? now : e.actedAt;
  // Before its ↩️ Undo is shown the window has not begun: an undo always counts.
  if (actedAt !== null && actedAt >= Date.parse(d.send_after) && !awaitsUndoShown(d)) return refuse(d, "undo_closed");
  const status = d.approval?.before ?? "pending";
  const draft = next(d, now, { status, approval: null, send_after: null, decided_by: e.actor, undone_at: iso(now) });
  return ok(draft, { type: "show_status", draftId: d.draft_id }, ...rearm(d, draft));
};

/**
 * A 👎 or 😴 on an approved draft (its 👍 reaction changed, a note replied to
 * its post): the owner changed his mind. While an undo would still count,
 * the approval is undone and the new decision applies, in one step, bound
 * like any decision to what its message showed; a change of mind never lets
 * the approval go out. Afterwards it is refused as on any approved draft.
 */
const changeOfMind: Handler<"decide"> = (d, e, now) => {
  if (e.decision === "send") return refuse(d, "already_approved");
  const undone = undo(d, { type: "undo", actor: e.actor, actedAt: e.actedAt ?? now }, now);
  if (!undone.ok) return refuse(d, "already_approved");
  const decided = decide(undone.draft, e, now);
  // Past its decision deadline (an approval waits out its window beyond it): the undo alone stands, and the draft expires.
  if (!decided.ok) return decided.reason === "expired" ? undone : refuse(d, decided.reason);
  // One transition: one version more than the approved draft, and the expiry its new status needs.
  const draft = { ...decided.draft, version: d.version + 1 };
  return ok(draft, ...decided.effects, ...rearm(d, draft).filter((x) => !decided.effects.some((y) => y.type === x.type)));
};

/**
 * Undo of a `revise` within UNDO_WINDOW (contract v3: the one way out of a
 * final status): back to the status the revise was given in, its note
 * withdrawn, its expiry armed again. Judged by when the reviewer acted, as
 * for an approval. A draft a later one already replaces (`revised_by`) stays.
 */
const undoRevise: Handler<"undo"> = (d, e, now) => {
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
const noteOnRevise: Handler<"decide"> = (d, e, now) => {
  if (e.decision !== "revise" || !e.note) return refuse(d, "final_state");
  if (e.textVersion !== undefined && e.textVersion !== d.text_version) return refuse(d, "outdated_version");
  if (d.reason === "superseded" || d.revised_by !== null) return refuse(d, "note_superseded");
  if (d.revision_note) return refuse(d, "note_already_given");
  const actedAt = e.actedAt ?? now;
  if (d.revise_undo === null || actedAt >= Date.parse(d.revise_undo.until)) return refuse(d, "note_too_late");
  const draft = next(d, now, { revision_note: e.note });
  // The edit that ends the post's ↩️ Undo was armed for the version before; this one arms it again.
  const closes: Effect = { type: "show_status_at", draftId: d.draft_id, at: Date.parse(d.revise_undo.until) };
  return ok(draft, { type: "show_status", draftId: d.draft_id }, closes);
};

/**
 * A later draft names this one in `revises`. One still awaiting a decision
 * becomes `revise` (reason `superseded`); any other keeps its status and only
 * records `revised_by` (a final draft stays final).
 */
const revised: Handler<"revised"> = (d, e, now) => {
  if (AWAITING_DECISION.has(d.status) || d.status === "queued") {
    const draft = next(d, now, { status: "revise", reason: "superseded", revised_by: e.byDraftId, approval: null });
    return ok(draft, { type: "show_status", draftId: d.draft_id });
  }
  return ok(next(d, now, { revised_by: e.byDraftId }));
};

const expire: Handler<"expire"> = (d, e, now) => {
  if (now < expiryDue(d)) return refuse(d, "not_due");
  const down = e.whileDown;
  const draft = next(d, now, {
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
  });
  return ok(draft, { type: "show_status", draftId: d.draft_id }, ...rearm(d, draft));
};

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

const sendIntent: Handler<"send_intent"> = (d, _e, now) => {
  if (now >= expiryDue(d)) return refuse(d, "expired");
  if (!d.approval) return refuse(d, "no_approval");
  if (d.approval.text_sha256 !== d.text_sha256) return refuse(d, "text_changed");
  // The window counts from when the chat showed its ↩️ Undo: not begun, so not over.
  if (awaitsUndoShown(d)) return refuse(d, "undo_not_shown");
  // UNDO_WINDOW not over yet: the reviewer may still take the approval back.
  if (d.send_after !== null && now < Date.parse(d.send_after)) return refuse(d, "not_due");
  return ok(next(d, now, { status: "sending" }));
};

// No `send` effect: the send path decides when to try again (retry_after, backoff). The post shows the
// approval again, its window over: "Sending as soon as Telegram allows", no ↩️ Undo.
const sendRetry: Handler<"send_retry"> = (d, e, now) =>
  ok(next(d, now, { status: "approved", reason: e.reason }), { type: "show_status", draftId: d.draft_id });

const sendOk: Handler<"send_ok"> = (d, e, now) =>
  ok(next(d, now, { status: "sent", sent_message_id: e.messageId, sent_at: iso(now), reason: null, sent_as: senderKindOf(d) }), {
    type: "show_status",
    draftId: d.draft_id,
  });

const sendFailed: Handler<"send_failed"> = (d, e, now) =>
  ok(next(d, now, { status: "failed", reason: e.reason }), { type: "show_status", draftId: d.draft_id });

/** What the reviewers are told about a send whose outcome is unknown (also sent again at start if a crash lost it). */
export function unknownOutcomeNotice(reason: string): string {
  return (
    "⚠️ The send of this draft may or may not have reached the destination " +
    `(${reason}). It will not be sent again automatically: check the destination chat.`
  );
}

const sendUnknown: Handler<"send_unknown"> = (d, e, now) =>
  ok(
    next(d, now, { status: "outcome_unknown", reason: e.reason }),
    { type: "show_status", draftId: d.draft_id },
    { type: "notify", draftId: d.draft_id, text: unknownOutcomeNotice(e.reason) },
  );

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
  if (event.type === "decide" || event.type === "edit") {
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
