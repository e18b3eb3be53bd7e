import { audienceFingerprint, audienceUnknown, needsConfirmation, sendIdentity } from "./audience.js";
import type { Effect } from "./effects.js";
import type { DraftRecord } from "./record.js";
import { senderKindOf } from "./sender.js";
import { thumbsUpChoice, withChoice } from "./choices.js";
import { approveFanOut, deliveriesHalted, endedUnmade, fanOutTargets, isFanOut } from "./fan-out.js";
import type { DraftStatus } from "./status.js";
import { iso, next, ok, rearm, refuse, type EventOf, type Handler, type RefusalReason, type TransitionResult } from "./transition-kit.js";

// The machine's `decide` on a draft awaiting a decision: an approval (with its
// undo window, halted at once while sends are halted, or as the bot instead),
// a revise, a deferral.

/**
 * True when a 👍 needs the extra tap: Telegram's audience over AUDIENCE_CONFIRM_OVER or unknown
 * (needsConfirmation), or another channel that gave reasons (over a threshold, an external address
 * never written to, an audience that could not be read).
 */
export function draftNeedsConfirmation(d: DraftRecord, confirmOver: number | null): boolean {
  // Several destinations at once: asked when any of them needs it (the question names it).
  if (isFanOut(d)) return fanOutTargets(d).some((t) => oneNeedsConfirmation(t, confirmOver));
  return oneNeedsConfirmation(d, confirmOver);
}

/** The destination a confirmation question names: among several sent to at once, the first that needs it; else the first. */
export function confirmationTarget(d: DraftRecord, confirmOver: number | null): number {
  if (!isFanOut(d)) return 1;
  return fanOutTargets(d).find((t) => oneNeedsConfirmation(t, confirmOver))?.chosen ?? 1;
}

/** draftNeedsConfirmation for the one destination the draft's fields name. */
function oneNeedsConfirmation(d: DraftRecord, confirmOver: number | null): boolean {
  if (d.channel_audience !== null) return d.channel_audience.confirm_reasons.length > 0;
  return needsConfirmation(d.audience, confirmOver);
}

/** A destination a confirmation question names: its number on the post and why it asks the extra tap. */
export interface ConfirmNeed {
  readonly index: number;
  readonly reasons: readonly string[];
}

/**
 * Every destination a 👍 on a fan-out would send to that asks the extra tap,
 * numbered as the post numbers them, each with why (the question names them
 * all, not only the first). Empty for a draft with one destination or choose one.
 */
export function confirmationNeeds(d: DraftRecord, confirmOver: number | null): ConfirmNeed[] {
  if (!isFanOut(d)) return [];
  return fanOutTargets(d)
    .filter((t) => oneNeedsConfirmation(t, confirmOver))
    .map((t) => ({ index: t.chosen ?? 1, reasons: confirmReasonsOf(t, confirmOver) }));
}

/** Why one destination asks the extra tap, in words: another channel's own reasons, or Telegram's audience. */
function confirmReasonsOf(d: DraftRecord, confirmOver: number | null): string[] {
  if (d.channel_audience !== null) return [...d.channel_audience.confirm_reasons];
  const members = d.audience?.member_count ?? null;
  if (d.audience === null || audienceUnknown(d.audience) || members === null) return ["Telegram did not say who reads it"];
  return [`${members.toLocaleString("en-US")} members, over AUDIENCE_CONFIRM_OVER (${(confirmOver ?? 0).toLocaleString("en-US")})`];
}

/**
 * True when `identity` is what the decision's message showed: the draft's, or
 * for a draft with several destinations, that of one of them (a confirmation
 * question names the one it asks about).
 */
function showsIdentity(d: DraftRecord, identity: string): boolean {
  if (identity === sendIdentity(d)) return true;
  return d.choices?.some((c) => identity === sendIdentity(withChoice(d, c.index)!)) === true;
}

/**
 * Which destination a `send` picks: the one the button or the reply's number
 * named; for the confirmation tap, the one its question named (its identity);
 * otherwise (a 👍 reaction or reply) the first, the role's recommendation, or the one a halted approval picked.
 */
function pickedIndex(d: DraftRecord, e: EventOf<"decide">): number {
  if (e.destination != null) return e.destination;
  if (e.confirmed && e.identity !== undefined) {
    const named = d.choices?.find((c) => sendIdentity(withChoice(d, c.index)!) === e.identity);
    if (named) return named.index;
  }
  return thumbsUpChoice(d);
}

/** The status an approval returns to on undo: the one it was given in. */
function approvedFrom(status: DraftStatus): "pending" | "deferred" | "halted" {
  return status === "deferred" || status === "halted" ? status : "pending";
}

/**
 * A reviewer's 👍, 👎 or 😴 on a draft awaiting a decision, bound to the text
 * version, audience and sender identity its message showed.
 */
export const decide: Handler<"decide"> = (d, e, now) => {
  // Past expires_at a draft is expired even if the expiry could not be recorded yet (a full disk).
  if (now >= Date.parse(d.expires_at)) return refuse(d, "expired");
  return decideInTime(d, e, now);
};

/**
 * `decide` for a decision known to be in time: one on a draft awaiting it
 * before its deadline, or a change of mind inside an undo window (the
 * approval was in time, and the window may run past `expires_at`).
 */
export const decideInTime: Handler<"decide"> = (shown, e, now) => {
  const d = boundToShown(shown, e);
  if (typeof d === "string") return refuse(shown, d);
  const common = { decided_by: e.actor, undone_at: null, halt_lasts: false };
  switch (e.decision) {
    case "send":
      return approveInTime(d, e, common, now);
    case "revise": {
      // Halted in the middle of a fan-out: what went stays gone; the rest is not sent, and the draft is final as its deliveries say.
      const partly = endedUnmade(d, now, "not sent: sent back for revision");
      if (partly !== null) return ok({ ...partly, ...common, revision_note: e.note ?? null }, { type: "show_status", draftId: d.draft_id });
      const undoMs = e.undoMs ?? 0;
      // A revise may be undone within UNDO_WINDOW (contract v3): the post shows "↩️ Undo until <time>". No edit
      // takes that offer off when the window ends: the line dates it, a late tap is answered, and the post's next
      // edit (the new version's link) drops it. That edit changed nothing the owner needed (issue 35).
      const revise_undo = undoMs > 0 ? { until: iso(now + undoMs), before: approvedFrom(d.status) } : null;
      const draft = next(d, now, { ...common, status: "revise", revision_note: e.note ?? null, revise_undo, approval: null });
      return ok(draft, { type: "show_status", draftId: d.draft_id });
    }
    case "defer": {
      const at = Date.parse(d.expires_at) + e.deferMs;
      const draft = next(d, now, { ...common, status: "deferred", expires_at: iso(at), approval: null });
      return ok(draft, { type: "arm_expiry", draftId: d.draft_id, at }, { type: "show_status", draftId: d.draft_id });
    }
  }
};

/**
 * The draft as the decision binds it: refused (the reason) when the text version, audience or identity
 * the tapped message showed is no longer the draft's; otherwise with the destination(s) it picked. A
 * revise or a defer never sends: only the text version binds it (see Act.withdraws).
 */
function boundToShown(shown: DraftRecord, e: EventOf<"decide">): DraftRecord | RefusalReason {
  let d = shown;
  if (e.textVersion !== undefined && e.textVersion !== d.text_version) return "outdated_version";
  const sends = e.decision === "send";
  if (sends && e.audience !== undefined && e.audience !== audienceFingerprint(d)) return "outdated_audience";
  if (sends && e.identity !== undefined && !showsIdentity(d, e.identity)) return "outdated_identity";
  // Any of several (toggles): those on as the post showed them, each a delivery.
  if (isFanOut(d) && e.decision === "send" && !e.asBot) {
    const approved = approveFanOut(d, e);
    if (typeof approved === "string") return approved;
    d = approved;
  } else if (d.choices !== null && e.decision === "send" && !e.asBot) {
    // Among several destinations (contract v5): the one picked, bound like the rest to what the post showed.
    const picked = withChoice(d, pickedIndex(d, e));
    if (picked === null) return "not_a_choice";
    d = picked;
  } else if (e.destination !== undefined && e.destination !== null && d.choices === null) return "not_a_choice";
  return d;
}

/** What every decision in time sets on the record: who decided, and no undo or lasting halt from before. */
type DecisionCommon = Pick<DraftRecord, "decided_by" | "undone_at" | "halt_lasts">;

/** A 👍 in time: halted, as the bot instead, asking for the confirmation tap, or approved (after an undo window, or at once). */
function approveInTime(d: DraftRecord, e: EventOf<"decide">, common: DecisionCommon, now: number): TransitionResult {
  // Sends are halted now: answered as halted at once, never with a send time or ↩️ Undo (contract v4).
  if (e.halted) return haltedApproval(d, e, e.halted, now);
  if (e.asBot) return sendAsBotInstead(d, e, now);
  if (!e.confirmed && draftNeedsConfirmation(d, e.confirmOver ?? null)) return refuse(d, "needs_confirmation");
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
 * decision was applied), or after a halt that came and went since the tap:
 * `halted` at once with why, no approval, no send time, no ↩️ Undo.
 * `halt_lasts` keeps 👍 off the post until the halt ends (see `halt_lifted`);
 * a halt already over offers it again at once. "🤖 Send as the bot instead"
 * still moves the draft to the bot.
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
    halt_lasts: e.haltLasts !== false,
    ...deliveriesHalted(d),
  });
  return ok(draft, { type: "show_status", draftId: d.draft_id }, ...rearm(d, draft));
}
