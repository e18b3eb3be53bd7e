import type { AuditedDraft, SendOutcome } from "../audit/audit-index.js";
import type { Effect } from "../drafts/effects.js";
import type { DraftEvent } from "../drafts/events.js";
import { expiryDue, unknownOutcomeNotice } from "../drafts/machine.js";
import { isFanOut } from "../drafts/fan-out.js";
import { awaitsUndoShown, UNDO_OVER_EDIT_MS } from "../drafts/undo-window.js";
import type { DraftRecord } from "../drafts/record.js";
import { AWAITING_DECISION, isFinal, type DraftStatus } from "../drafts/status.js";
import { audienceFingerprint, sendIdentity } from "../drafts/audience.js";
import type { SurfaceState } from "../audit/audit-schema.js";
import { isInertDraft, mayChangeDraft, runsForInertDraft } from "./test-drafts.js";

/** Why a `sending` draft found at start is marked unknown. */
export const CRASH_DURING_SEND = "the daemon stopped while the send was under way; Telegram may or may not have the message";

/** Why a draft whose store line was lost, but whose audit line says the send began, is marked unknown. */
export const STORE_LOST_SEND =
  "the store lost its last change (a damaged last line was cut off at start), and the audit log shows the send had begun; " +
  "Telegram may or may not have the message";

/** Statuses past which a draft may have reached its destination. */
const SEND_STARTED: ReadonlySet<DraftStatus> = new Set<DraftStatus>(["sending", "sent", "failed", "outcome_unknown"]);

/** What recovery reads from the audit index. */
export interface RecoveryFacts {
  /** The draft's last audited change. */
  audited(draftId: string): AuditedDraft | undefined;
  /** True when the reviewers were told about the draft in this status (`delivery`: about that delivery of several). */
  wasNotified(draftId: string, status: DraftStatus, delivery?: number): boolean;
  /** True when an edit of the draft's review post was due and never confirmed (a crash came between). */
  statusEditOwed(draftId: string): boolean;
  /** True when this replaced review post of the draft is known to have lost its buttons. */
  supersededDone(draftId: string, reviewMessageId: number): boolean;
  /** The decision surfaces: what each message showed and binds (see surfaces.ts). */
  readonly surfaces: { at(chatId: string, messageId: number): SurfaceState | undefined };
}

/** One event recovery applies to one draft. */
export interface RecoveryEvent {
  readonly draftId: string;
  readonly event: DraftEvent;
}

/** A change the audit log has and the store lost: made in the store alone, as of when it was audited. */
export interface RestoreEvent {
  readonly draftId: string;
  readonly event: DraftEvent;
  /** When the change was audited (ms since the epoch); null: unknown, use now. */
  readonly at: number | null;
}

/**
 * Send outcomes the audit log has and the store lost: a `sending` draft whose
 * next change, out of `sending` to a final status, is in the audit log but
 * not in the store. Daemons since the store-then-audit commit (review-desk.ts)
 * no longer leave that state; logs written before it, when the two writes ran
 * at once, still may (the audit line durable, the store line torn). The
 * outcome is known, so it is restored rather than marked unknown: a draft
 * the audit log shows `sent` stays sent, never leaves a final status, and is
 * never resent. Pure.
 */
export function storeBehind(drafts: Iterable<DraftRecord>, facts: RecoveryFacts): RestoreEvent[] {
  const out: RestoreEvent[] = [];
  for (const draft of drafts) {
    if (draft.status !== "sending") continue;
    const audited = facts.audited(draft.draft_id);
    if (audited?.sendOutcome === undefined || audited.version !== draft.version + 1) continue;
    const event = outcomeEvent(audited.to, audited.sendOutcome);
    if (event) out.push({ draftId: draft.draft_id, event, at: audited.sendOutcome.at });
  }
  return out;
}

/** The machine event that led from `sending` to the audited outcome (null: the line lacks what it needs). */
function outcomeEvent(to: DraftStatus, o: SendOutcome): DraftEvent | null {
  if (to === "sent") return o.sentMessageId === null ? null : { type: "send_ok", messageId: o.sentMessageId };
  if (to === "failed") return { type: "send_failed", reason: o.reason ?? "refused by Telegram" };
  if (to === "outcome_unknown") return { type: "send_unknown", reason: o.reason ?? CRASH_DURING_SEND };
  return null;
}

/** What a start must do, as data: audit lines to add, events to apply in order, effects to run after them. */
export interface RecoveryPlan {
  /** Changes that reached the store but not the audit log (a crash between the two writes): audited as `recovered`. */
  readonly unaudited: readonly DraftRecord[];
  /**
   * Final drafts the audit log has no line of at all: no crash leaves those (a draft's first line is
   * audited before its next change is made), so the store came from elsewhere (a copy, a fixture, an
   * audit log cut back). Left as they are, counted once: a start costs what the live drafts cost.
   */
  readonly unheardFinal: number;
  readonly events: readonly RecoveryEvent[];
  readonly effects: readonly Effect[];
}

/**
 * Decides, from the stored drafts and the audit index alone, what a start
 * does. Pure, like the state machine:
 * - a change the audit log lacks is audited now, marked `recovered`;
 * - `approved` while the audit log shows its send had begun (the store lost
 *   its last line): marked unknown, never resent;
 * - `sending`: the outcome is unknown; marked so, and the reviewers are told. Never resent
 *   (one the audit log knows the outcome of is restored first: see storeBehind);
 * - `outcome_unknown` whose notice never went out (a crash right after marking it): told now;
 * - anything past its `expires_at` that is not final: expired, never sent
 *   (an approval given in time first waits out its undo window: see expiryDue);
 * - `approved`: handed to the send path (which checks the kill switch again); one whose ↩️ Undo
 *   was never shown (a crash between the 👍 and its edit) gets that edit again, and its window
 *   counts from it; one whose Undo shows loses it when the window ends;
 * - `queued`: posted for review at the next free slot;
 * - the rest: expiry timers armed again.
 * Then the review chat is brought level (see reviewChatOwed): status edits a
 * crash left undone are redone, so no final draft keeps live buttons;
 * replaced posts lose theirs; an earlier draft named by `revises` learns it
 * was replaced.
 * A live daemon (`testMode` false) plans for test-mode drafts only what
 * changes no message: they expire (or, caught mid-send, are marked unknown)
 * in the store, quietly, and are never posted, sent or told about. Test mode
 * (`testMode` true) plans nothing at all for live drafts (see test-drafts.ts).
 */
export function planRecovery(
  drafts: Iterable<DraftRecord>,
  facts: RecoveryFacts,
  now: number,
  testMode = false,
  downSince: number | null = null,
): RecoveryPlan {
  const all = [...drafts].filter((d) => mayChangeDraft(d, testMode));
  const plan = planEach(all, facts, now, downSince);
  const owed = reviewChatOwed(all, facts);
  const inert = new Set(all.filter((d) => isInertDraft(d, testMode)).map((d) => d.draft_id));
  const effects = [...plan.effects, ...owed.effects].filter((e) => !inert.has(e.draftId) || runsForInertDraft(e, testMode));
  return { unaudited: plan.unaudited, unheardFinal: plan.unheardFinal, events: [...owed.events, ...plan.events], effects };
}

/** The per-draft part of planRecovery. */
function planEach(all: readonly DraftRecord[], facts: RecoveryFacts, now: number, downSince: number | null): RecoveryPlan {
  // Past its deadline during an outage longer than Telegram keeps a tap: said so on its post (see the expire event).
  const whileDown = downSince === null ? undefined : { since: new Date(downSince).toISOString(), until: new Date(now).toISOString() };
  const unaudited: DraftRecord[] = [];
  let unheardFinal = 0;
  const events: RecoveryEvent[] = [];
  const effects: Effect[] = [];
  for (const draft of all) {
    const id = draft.draft_id;
    const audited = facts.audited(id);
    if (audited === undefined && isFinal(draft.status)) unheardFinal++;
    else if ((audited?.version ?? 0) < draft.version) unaudited.push(draft);
    if (draft.status === "approved" && audited && audited.version > draft.version && SEND_STARTED.has(audited.to)) {
      events.push(
        { draftId: id, event: { type: "send_intent" } },
        { draftId: id, event: { type: "send_unknown", reason: STORE_LOST_SEND } },
      );
      continue;
    }
    effects.push(...untoldDeliveries(draft, facts));
    if (isFinal(draft.status)) {
      if (draft.status === "outcome_unknown" && !isFanOut(draft) && !facts.wasNotified(id, draft.status)) {
        effects.push({ type: "notify", draftId: id, text: unknownOutcomeNotice(draft.reason ?? CRASH_DURING_SEND) });
      }
      continue;
    }
    if (draft.status === "sending") {
      // Linear and Slack can be asked whether the message is there (email cannot): the send path looks
      // (channel-delivery.ts findLost) and never sends again what it cannot find out about.
      if (draft.destination !== null) effects.push({ type: "send", draftId: id });
      else events.push({ draftId: id, event: { type: "send_unknown", reason: CRASH_DURING_SEND } });
      continue;
    }
    // An approval given in time waits out its undo window even past expires_at (see expiryDue).
    const expiresAt = expiryDue(draft);
    if (expiresAt <= now) {
      const down = whileDown !== undefined && expiresAt > downSince! ? { whileDown } : {};
      events.push({ draftId: id, event: { type: "expire", ...down } });
      continue;
    }
    effects.push({ type: "arm_expiry", draftId: id, at: expiresAt });
    if (draft.status === "approved") effects.push(...approvedAtStart(draft, facts, now));
    if (draft.status === "queued") effects.push({ type: "post_review", draftId: id });
  }
  return { unaudited, unheardFinal, events, effects };
}

/** An approved draft at start: the send path takes it; its ↩️ Undo is shown first if it never was, or goes when its window ends. */
function approvedAtStart(draft: DraftRecord, facts: RecoveryFacts, now: number): Effect[] {
  const draftId = draft.draft_id;
  const send: Effect = { type: "send", draftId };
  // An owed edit is redone anyway (reviewChatOwed); without one, the approval's Undo still awaits its edit.
  if (awaitsUndoShown(draft)) return facts.statusEditOwed(draftId) ? [send] : [send, { type: "show_status", draftId }];
  // A window already over is sent now, and its own turn's edit takes the Undo off.
  const over = draft.send_after === null ? null : Date.parse(draft.send_after) + UNDO_OVER_EDIT_MS;
  return over === null || over <= now ? [send] : [send, { type: "show_status_at", draftId, at: over }];
}

/**
 * What a crash left undone in the review chat: status edits of the current
 * version, replaced posts' buttons, and the `revised_by` mark on an earlier
 * draft that a new one names in `revises`.
 */
function reviewChatOwed(drafts: readonly DraftRecord[], facts: RecoveryFacts): { events: RecoveryEvent[]; effects: Effect[] } {
  const byId = new Map(drafts.map((d) => [d.draft_id, d]));
  const events: RecoveryEvent[] = [];
  const effects: Effect[] = [];
  for (const draft of drafts) {
    const id = draft.draft_id;
    if (draft.review_message_id !== null && (facts.statusEditOwed(id) || bindingOutdated(draft, facts)))
      effects.push({ type: "show_status", draftId: id });
    for (const reviewMessageId of draft.superseded_posts) {
      if (!facts.supersededDone(id, reviewMessageId)) effects.push({ type: "supersede_post", draftId: id, reviewMessageId });
    }
    const earlier = draft.revises === null ? undefined : byId.get(draft.revises);
    // A draft replaces only one of its own mode (intake refuses the rest): test mode never marks a live draft.
    if (earlier && earlier.revised_by === null && earlier.test_mode === draft.test_mode)
      events.push({ draftId: earlier.draft_id, event: { type: "revised", byDraftId: id } });
  }
  return { events, effects };
}

/**
 * True when the post of a draft awaiting a decision binds another sender
 * identity than the draft's (`sendIdentity`), while it shows the draft as it
 * is: its text version and audience, no edit owed. A previous version recorded
 * it with an identity that said less (before `owner:<user>:…` and `>id` for a
 * reply), so nothing on it could count (`outdated_identity`), and the answer's
 * "live post" is that same post. An edit re-renders it and binds it again to
 * what it now shows.
 */
function bindingOutdated(draft: DraftRecord, facts: RecoveryFacts): boolean {
  if (!AWAITING_DECISION.has(draft.status) || draft.review_chat_id === null || draft.review_message_id === null) return false;
  const surface = facts.surfaces.at(draft.review_chat_id, draft.review_message_id);
  if (surface === undefined || surface.asks !== "decide" || surface.used || surface.draft_id !== draft.draft_id) return false;
  const unchanged = surface.text_version === draft.text_version && surface.audience === audienceFingerprint(draft);
  return unchanged && surface.identity !== sendIdentity(draft);
}

/** What running a plan needs from the desk. */
export interface RecoveryDesk {
  readonly recoveryFacts: RecoveryFacts;
  readonly clock: { now(): number };
  readonly log: { warn(obj: object, msg: string): void; error(obj: object, msg: string): void };
  /** True in test mode; a live desk plans only quiet expiry for test-mode drafts. */
  readonly testMode: boolean;
  /** Every draft the desk may change (see mayChangeDraft): a live desk's store, test-mode ones too; in test mode its own only. */
  everyDraft(): DraftRecord[];
  /** Drafts a halt stopped offer 👍 again if sends are on now (a halt that ended while the daemon was down). */
  liftHalts?(): Promise<void>;
  /** Approved drafts a halt stops (one now, or one since their approval) are halted at once, before their effects run. */
  haltApprovals?(): Promise<void>;
  /** Messages showing an ↩️ Undo in place of their post: handed to the review chat, or closed if it offers none now (see closing.ts). */
  resumeUndoMessages?(): void;
  /** Audits changes the log lacks as `recovered`. */
  auditRecovered(drafts: readonly DraftRecord[]): Promise<void>;
  /** Makes a change the audit log already has in the store alone, as of `at` (see storeBehind). */
  restore(draftId: string, event: DraftEvent, at: number): Promise<{ readonly ok: boolean }>;
  apply(draftId: string, event: DraftEvent): Promise<{ readonly ok: boolean }>;
  runEffects(effects: readonly Effect[]): void;
}

/**
 * Brings the audit log level with the store (see planRecovery). Returns how
 * many changes were missing. Run before anything else writes.
 */
export async function reconcileAudit(desk: RecoveryDesk): Promise<number> {
  const plan = planRecovery(desk.everyDraft(), desk.recoveryFacts, desk.clock.now(), desk.testMode);
  await desk.auditRecovered(plan.unaudited);
  if (plan.unaudited.length > 0)
    desk.log.warn({ recovered: plan.unaudited.length }, "audited changes that a crash had left out of swarm.jsonl");
  if (plan.unheardFinal > 0)
    desk.log.warn(
      { final_drafts: plan.unheardFinal },
      "the store holds final drafts swarm.jsonl has no line of (a store copied or restored from elsewhere?); they are left as they are, not audited now",
    );
  return plan.unaudited.length;
}

/**
 * Brings the store level with send outcomes the audit log has and the store
 * lost (see storeBehind). Returns the drafts restored. Run before planning.
 */
export async function restoreLost(desk: RecoveryDesk): Promise<string[]> {
  const restored: string[] = [];
  for (const { draftId, event, at } of storeBehind(desk.everyDraft(), desk.recoveryFacts)) {
    if ((await desk.restore(draftId, event, at ?? desk.clock.now())).ok) restored.push(draftId);
  }
  if (restored.length > 0)
    desk.log.warn({ drafts: restored }, "restored send outcomes that the audit log has and a crash had left out of the store");
  return restored;
}

/**
 * Resumes every draft after a start: audits what a crash left out of the
 * audit log, restores send outcomes it left out of the store, plans (see
 * planRecovery), applies the plan's events in order, then runs its effects.
 * Returns the drafts whose send was marked unknown because the store had
 * lost a change the audit log shows.
 */
export async function resumeDrafts(desk: RecoveryDesk, options: { readonly downSince?: number | null } = {}): Promise<string[]> {
  await reconcileAudit(desk);
  await restoreLost(desk);
  const plan = planRecovery(desk.everyDraft(), desk.recoveryFacts, desk.clock.now(), desk.testMode, options.downSince ?? null);
  const lostSends: string[] = [];
  for (const { draftId, event } of plan.events) {
    const result = await desk.apply(draftId, event);
    if (result.ok && event.type === "send_unknown" && event.reason === STORE_LOST_SEND) lostSends.push(draftId);
  }
  // Halted at start, or halted since the approval: said at once, never a send time or ↩️ Undo shown again first.
  await desk.haltApprovals?.();
  desk.resumeUndoMessages?.();
  desk.runEffects(plan.effects);
  await desk.liftHalts?.();
  if (lostSends.length > 0) {
    desk.log.error(
      { drafts: lostSends },
      "the store had lost changes the audit log shows; sends that may have happened are marked outcome_unknown",
    );
  }
  return lostSends;
}

/**
 * The notices a crash kept from the review chat about deliveries of several whose outcome is
 * unknown (the delivery was marked, its notice not yet out): told now, each once, whatever the
 * draft's status (the next delivery may be under way, or the draft final).
 */
function untoldDeliveries(draft: DraftRecord, facts: Pick<RecoveryFacts, "wasNotified">): Effect[] {
  if (!isFanOut(draft)) return [];
  return draft.deliveries
    .filter((x) => x.status === "outcome_unknown" && !facts.wasNotified(draft.draft_id, "outcome_unknown", x.index))
    .map((x) => ({
      type: "notify" as const,
      draftId: draft.draft_id,
      text: unknownOutcomeNotice(`destination ${x.index}: ${x.reason ?? CRASH_DURING_SEND}`),
      delivery: x.index,
    }));
}
