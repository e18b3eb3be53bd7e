import type { Clock } from "../clock/clock.js";
import { traceStep } from "../log/latency-trace.js";
import type { Effect } from "../drafts/effects.js";
import type { DraftEvent } from "../drafts/events.js";
import type { Transition } from "../drafts/feed-event.js";
import { transition, type TransitionResult } from "../drafts/machine.js";
import type { DraftRecord } from "../drafts/record.js";
import { AWAITING_DECISION, isFinal, type DraftStatus } from "../drafts/status.js";
import type { DraftLedger } from "../send/send-path.js";
import { transitionEntry, type RefusedDecision } from "./audit-entries.js";
import { archiveDue } from "./archiving.js";
import { KeyedQueue } from "../serial/keyed-queue.js";
import type { RecoveryDesk, RecoveryFacts } from "./recovery.js";
import type { PostEntry } from "../audit/audit-schema.js";
import { DeskEffects } from "./desk-effects.js";
import type { AskRequest, DecisionDesk, DecisionOutcome, DecisionRequest, EditRequest, ReviewerAction } from "./ports.js";
import { keepsOriginal, originalDone } from "../drafts/keep-removed.js";
import { ReviewerActions } from "./reviewer-actions.js";
import { isInertDraft, mayChangeDraft } from "./test-drafts.js";
import { DecisionSurfaces } from "./surfaces.js";
import { DurableChanges } from "./durable-changes.js";
import { HaltSweeps } from "./halt-sweeps.js";
import type { ReviewDeskOptions, DeskLog } from "./desk-options.js";

export type { DecisionOutcome, DecisionRequest } from "./ports.js";

export type { Transition } from "../drafts/feed-event.js";
export type { DeskLog, ReviewDeskOptions } from "./desk-options.js";

/**
 * The review desk owns the drafts: it applies events through the pure state
 * machine, makes each change durable (store, then audit log) before anything
 * is announced, then runs the effects at the edges. Live mode and test mode
 * share it; only the edges differ.
 */
export class ReviewDesk implements DraftLedger, RecoveryDesk, DecisionDesk {
  private readonly queue = new KeyedQueue();
  /** Each change made durable, store then audit log, before it is announced (see durable-changes.ts). */
  private readonly changes: DurableChanges;
  private readonly byIdempotencyKey = new Map<string, string>();
  /** The kill switch's sweeps over approvals (see halt-sweeps.ts). */
  private readonly halts: HaltSweeps;
  /** Which messages belong to which draft (see surfaces.ts). */
  private readonly surfaces: DecisionSurfaces;
  /** The effects of changes, run at the edges (see desk-effects.ts). */
  private readonly effects: DeskEffects;
  /** Decide, edit, undo: the reviewer's actions (see reviewer-actions.ts). */
  private readonly actions: ReviewerActions;

  constructor(private readonly options: ReviewDeskOptions) {
    this.surfaces = new DecisionSurfaces(options.audit);
    this.changes = new DurableChanges(options.store, options.audit, (draft) => {
      this.index(draft);
      if (isFinal(draft.status)) this.effects.disarm(draft.draft_id);
    });
    for (const draft of options.store.latest.values()) {
      this.surfaces.index(draft, true);
      this.index(draft);
    }
    const records = { get: (id: string) => this.get(id), apply: (id: string, e: DraftEvent) => this.apply(id, e) };
    this.effects = new DeskEffects({ ...options, ...records, surfaces: this.surfaces });
    this.actions = new ReviewerActions({ ...options, ...records, surfaces: this.surfaces, effects: this.effects });
    this.effects.sender = options.makeSender(this);
    this.halts = new HaltSweeps({
      ...options,
      effects: this.effects,
      testMode: this.testMode,
      get: (id) => this.get(id),
      list: (status) => this.list(status),
      apply: (id, e) => this.apply(id, e),
      applyNow: (id, e) => this.applyNow(id, e),
      inQueue: (id, work) => this.queue.run(id, work),
    });
  }

  /** The messages that carry decision controls, and the gate every action on them passes (see surfaces.ts). */
  get decisionSurfaces(): DecisionSurfaces {
    return this.surfaces;
  }

  /** The current record of a draft. */
  get(draftId: string): DraftRecord | undefined {
    return this.options.store.latest.get(draftId);
  }

  /** The draft whose live review post has this message id. */
  byReviewMessageId(messageId: number): DraftRecord | undefined {
    const draft = this.draftOfMessage(messageId);
    return draft?.review_message_id === messageId ? draft : undefined;
  }

  /** The draft a message belongs to: its live review post, a replaced one, or an edit prompt. */
  draftOfMessage(messageId: number): DraftRecord | undefined {
    return this.actions.draftOfMessage(messageId);
  }

  /** True when `messageId` is a review post (live or replaced) or an edit prompt, or may be an archived draft's post. */
  knowsMessage(messageId: number): boolean {
    return this.surfaces.has(messageId) || (this.options.archive?.mayHoldMessage(messageId) ?? false);
  }

  /** True when `messageId` is an edit prompt the bot sent. */
  isEditPrompt(messageId: number): boolean {
    return this.surfaces.isEditPrompt(messageId);
  }

  /** The draft submitted with this idempotency key (live ones only; see findByIdempotency). */
  byIdempotency(key: string): DraftRecord | undefined {
    const id = this.byIdempotencyKey.get(key);
    return id === undefined ? undefined : this.get(id);
  }

  /** The current record of a draft, live or archived. */
  async find(draftId: string): Promise<DraftRecord | undefined> {
    await this.changes.settled(draftId);
    return this.changes.published(draftId) ?? (await this.options.archive?.get(draftId));
  }

  /** The draft submitted with this idempotency key, live or archived. */
  async findByIdempotency(key: string): Promise<DraftRecord | undefined> {
    const archived = await this.options.archive?.byIdempotencyKey(key);
    return this.byIdempotency(key) ?? (archived && isInertDraft(archived, this.testMode) ? undefined : archived);
  }

  /**
   * Moves final drafts older than DRAFT_RETENTION to the archive (see
   * archiving.ts) and forgets them here. Returns how many moved.
   */
  async archiveOld(): Promise<number> {
    const { archive, retentionMs } = this.options;
    if (!archive || retentionMs === undefined) return 0;
    const moved = await archiveDue(
      { store: this.options.store, archive, index: this.options.audit.index, retentionMs, log: this.options.log },
      this.options.clock.now(),
    );
    const gone = new Set(moved);
    this.surfaces.forget(gone);
    for (const [key, id] of this.byIdempotencyKey) if (gone.has(id)) this.byIdempotencyKey.delete(key);
    return moved.length;
  }

  /** Every draft this desk acts on, optionally only those in one status (a live desk: none made in test mode). */
  list(status?: DraftStatus): DraftRecord[] {
    return this.everyDraft().filter((d) => !isInertDraft(d, this.testMode) && (status === undefined || d.status === status));
  }

  /**
   * Every draft this desk may change (see mayChangeDraft): a live desk's whole store, test-mode drafts
   * too (recovery expires those quietly); test mode's own drafts only (a live draft is never changed there).
   */
  everyDraft(): DraftRecord[] {
    const out: DraftRecord[] = [];
    for (const id of this.options.store.latest.keys()) {
      const draft = this.changes.published(id);
      if (draft && mayChangeDraft(draft, this.testMode)) out.push(draft);
    }
    return out;
  }

  /** True in test mode (recovery plans for the drafts this desk may act on). */
  get testMode(): boolean {
    return this.options.testMode === true;
  }

  /**
   * Resolves once every change being made durable now is in the store and the audit log both: the
   * store file may show it already, so the API's list waits for this before it reads (see find).
   */
  async committed(): Promise<void> {
    await this.changes.committed();
  }

  /** True when a decision from this Telegram update was already recorded or refused. */
  hasSeenUpdate(updateId: number): boolean {
    return this.options.audit.index.hasSeenUpdate(updateId);
  }

  /** True when the reviewers were told about this draft while it was in `status` (a notice is audited once it is out). */
  wasNotified(draftId: string, status: DraftStatus, delivery?: number): boolean {
    return this.options.audit.index.wasNotified(draftId, status, delivery);
  }

  /** What recovery reads: the audit index. */
  get recoveryFacts(): RecoveryFacts {
    return this.options.audit.index;
  }

  /** The desk's log. */
  get log(): DeskLog {
    return this.options.log;
  }

  /** Audits changes that reached the store but not the audit log (a crash between the two), as `recovered`. */
  async auditRecovered(drafts: readonly DraftRecord[]): Promise<void> {
    // The edit of the review post that change called for may be lost with it: it is owed (and redone at start).
    const owed = (d: DraftRecord): PostEntry[] =>
      d.review_message_id === null ? [] : [{ kind: "status_due", draft_id: d.draft_id, version: d.version }];
    if (drafts.length > 0)
      await this.options.audit.append(drafts.flatMap((d) => [transitionEntry(null, d, { type: "recovered" }), ...owed(d)]));
  }

  /**
   * Makes a change the audit log already has in the store alone, as of `at`
   * (recovery: a crash left the store a change behind, see storeBehind). Its
   * effects are left to the recovery plan that follows (status edit owed, notice).
   */
  restore(draftId: string, event: DraftEvent, at: number): Promise<TransitionResult> {
    return this.queue.run(draftId, async () => {
      const draft = this.changeable(draftId);
      const result = transition(draft, event, at);
      if (result.ok) await this.options.store.append([result.draft]);
      return result;
    });
  }

  /** Calls `listener` after every durable status change. Returns a function that unsubscribes. */
  onTransition(listener: (t: Transition) => void): () => void {
    return this.changes.onTransition(listener);
  }

  /** The injected clock (test mode moves it). */
  get clock(): Clock {
    return this.options.clock;
  }

  /**
   * Applies one event to one draft, in order with the draft's other events.
   * The change is on disk and in the audit log before this resolves and
   * before any effect runs. A refusal is a value; a failed write rejects.
   */
  apply(draftId: string, event: DraftEvent): Promise<TransitionResult> {
    return this.queue.run(draftId, () => this.applyNow(draftId, event));
  }

  /** Records a brand-new draft (status `queued`) and runs its first effects. */
  async create(draft: DraftRecord, effects: readonly Effect[]): Promise<void> {
    await this.queue.run(draft.draft_id, async () => {
      await this.changes.commit({ from: null, draft, event: { type: "created" } });
      this.runEffects(effects);
    });
  }

  /**
   * A reviewer's decision on a review message (see reviewer-actions.ts).
   */
  decide(request: DecisionRequest): Promise<DecisionOutcome> {
    traceStep("4 decide");
    return this.actions.decide(request);
  }

  /** A reviewer's new text (see reviewer-actions.ts). */
  edit(request: EditRequest): Promise<DecisionOutcome> {
    return this.actions.edit(request);
  }

  /** A reply that is only an approval word: asked back with buttons (see reviewer-actions.ts). */
  askApproval(request: AskRequest): Promise<DecisionOutcome> {
    return this.actions.askApproval(request);
  }

  /** The ✏️ Edit button (see reviewer-actions.ts). */
  requestEdit(request: ReviewerAction): Promise<DecisionOutcome> {
    return this.actions.requestEdit(request);
  }

  /** Takes back an approval within UNDO_WINDOW (see reviewer-actions.ts). */
  undo(request: ReviewerAction): Promise<DecisionOutcome> {
    return this.actions.undo(request);
  }

  /** 🔓 Keep the removed items: the next text version with what redaction removed (see reviewer-actions.ts). */
  keepRemoved(request: ReviewerAction): Promise<DecisionOutcome> {
    return this.actions.keepRemoved(request);
  }

  /** A destination's toggle when he picks any of several (see reviewer-actions.ts). */
  toggle(request: ReviewerAction & { readonly destination: number }): Promise<DecisionOutcome> {
    return this.actions.toggle(request);
  }

  /** Drops kept originals no draft can use any more (a drop a crash lost, an archived draft): at start and after each archiving pass. */
  async sweepRemovedItems(): Promise<number> {
    const now = this.options.clock.now();
    return (await this.options.removedItems?.sweep((id) => keepsOriginal(this.get(id), now, this.testMode))) ?? 0;
  }

  /** Records that `laterId` replaces `draftId` (payload `revises`); a draft still awaiting a decision becomes `revise`. */
  async markRevised(draftId: string, laterId: string): Promise<void> {
    const result = await this.apply(draftId, { type: "revised", byDraftId: laterId });
    if (!result.ok)
      this.options.log.warn({ draft_id: draftId, revised_by: laterId, reason: result.reason }, "could not mark the draft as revised");
  }

  /** Audits a decision that does not count, once per Telegram update (see reviewer-actions.ts). */
  refuseDecision(refusal: RefusedDecision, draft?: DraftRecord): Promise<void> {
    return this.actions.refuseDecision(refusal, draft);
  }

  /** Runs `work` (a send whose window is over) in the review chat's next top-priority turn (see DeskEffects.inReviewTurn). */
  inReviewTurn<T>(draftId: string, work: () => Promise<T>): Promise<T> {
    return this.effects.inReviewTurn(draftId, work);
  }

  /** A halt ended: every draft it stopped offers 👍 Send again, once sends are on (see HaltSweeps.liftHalts). */
  liftHalts(): Promise<void> {
    return this.halts.liftHalts();
  }

  /** A halt began: approved drafts it stops are halted now (see HaltSweeps.haltApprovals); `draftIds`: only these. */
  haltApprovals(draftIds?: readonly string[]): Promise<void> {
    return this.halts.haltApprovals(draftIds);
  }

  /** At start: messages showing an ↩️ Undo in place of their post end with it (see closing.ts). */
  resumeUndoMessages(): void {
    if (!this.effects.closed) this.effects.resumeUndoMessages();
  }

  /** Runs the effect of a post, expiry or send again after a start (see recovery.ts). */
  runEffects(effects: readonly Effect[]): void {
    this.effects.runEffects(effects);
  }

  /** Resolves once every queued change and every effect started so far has finished. */
  async settle(): Promise<void> {
    for (;;) {
      await this.queue.idle();
      if (!(await this.effects.drain())) return;
    }
  }

  /** Stops timers and retries, waits for running work, and refuses new effects. */
  async close(): Promise<void> {
    this.effects.stop();
    await this.settle();
    this.effects.tellLeftAtStop();
  }

  private async applyNow(draftId: string, event: DraftEvent): Promise<TransitionResult> {
    const draft = this.changeable(draftId);
    const result = transition(draft, event, this.options.clock.now());
    if (!result.ok) return result;
    if (event.type === "decide") traceStep("5a decision transition");
    await this.changes.commit({ from: draft.status, draft: result.draft, event, previousText: draft.draft_text, effects: result.effects });
    if (event.type === "decide") traceStep("5b decision durable");
    this.runEffects(result.effects);
    // A halt that ended while this one was being recorded: its end was heard before there was a draft to lift.
    if (result.draft.halt_lasts && !draft.halt_lasts) void this.liftHalts();
    // A halt that began while this approval was being applied: its start was heard before there was an approval to halt.
    if (result.draft.status === "approved" && draft.status !== "approved") void this.haltApprovals([draftId]);
    this.dropRemovedItems(draft, result.draft);
    return result;
  }

  /** The current record of a draft this desk may change; anything else is a bug (test mode never writes a live draft's line). */
  private changeable(draftId: string): DraftRecord {
    const draft = this.get(draftId);
    if (!draft) throw new Error(`draft ${draftId} does not exist`);
    if (!mayChangeDraft(draft, this.testMode)) throw new Error(`draft ${draftId} is a live draft; test mode never changes it`);
    return draft;
  }

  /** Once a draft can no longer use its kept original, it goes; a failure is logged, and the next sweep retries. */
  private dropRemovedItems(before: DraftRecord, after: DraftRecord): void {
    const removed = this.options.removedItems;
    if (removed && originalDone(before, after, this.options.clock.now())) void this.effects.track(removed.drop(after.draft_id));
  }

  private index(draft: DraftRecord): void {
    // A test-mode draft's message ids were made up: a live desk never matches a decision to it, nor a key (nor test mode to a live one).
    if (isInertDraft(draft, this.testMode)) return;
    this.surfaces.index(draft);
    if (draft.idempotency_key !== null) this.byIdempotencyKey.set(draft.idempotency_key, draft.draft_id);
  }

  /** Posts a queued draft now and waits for the post (or its failure, after which it is retried later). */
  post(draftId: string): Promise<void> {
    return this.effects.post(draftId);
  }
}

/** True when a draft in this status still waits for a reviewer. */
export function awaitsDecision(status: DraftStatus): boolean {
  return AWAITING_DECISION.has(status);
}
