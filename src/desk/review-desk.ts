import type { AuditLog } from "../audit/audit-log.js";
import type { Clock, TimerHandle } from "../clock/clock.js";
import type { Effect } from "../drafts/effects.js";
import type { DraftEvent } from "../drafts/events.js";
import type { Transition } from "../drafts/feed-event.js";
import { transition, type TransitionResult } from "../drafts/machine.js";
import type { Actor, Decision, DraftRecord } from "../drafts/record.js";
import { AWAITING_DECISION, isFinal, type DraftStatus } from "../drafts/status.js";
import type { JsonlStore } from "../store/jsonl-store.js";
import type { DraftLedger } from "../send/send-path.js";
import { refusedEntry, transitionEntry, type RefusedDecision } from "./audit-entries.js";
import type { DraftArchive } from "../store/archive.js";
import { archiveDue } from "./archiving.js";
import { KeyedQueue } from "./keyed-queue.js";
import { backoffMs, REVIEW_POST_BACKOFF } from "../retry/backoff.js";
import type { RecoveryDesk, RecoveryFacts } from "./recovery.js";
import type { ReviewChat, Sender } from "./ports.js";

/** The logger shape the desk writes to (pino's). */
export interface DeskLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export type { Transition } from "../drafts/feed-event.js";

/** What the desk is built from. */
export interface ReviewDeskOptions {
  readonly store: JsonlStore<DraftRecord>;
  readonly audit: AuditLog;
  readonly clock: Clock;
  readonly reviewChat: ReviewChat;
  readonly reviewerIds: ReadonlySet<number>;
  readonly deferForMs: number;
  /** AUDIENCE_CONFIRM_OVER: a 👍 for more members than this needs the extra tap; null or absent: never. */
  readonly confirmOver?: number | null;
  readonly log: DeskLog;
  /** Where final drafts older than `retentionMs` go (absent: they stay in the store). */
  readonly archive?: DraftArchive<DraftRecord>;
  /** DRAFT_RETENTION in milliseconds. */
  readonly retentionMs?: number;
  /** Builds the send path; it gets the desk as its ledger. */
  readonly makeSender: (ledger: DraftLedger) => Sender;
}

/** The result of a reviewer's decision: the draft's status after it, or why it did not count. */
export type DecisionOutcome =
  | { readonly ok: true; readonly draft: DraftRecord }
  | { readonly ok: false; readonly reason: string; readonly draft: DraftRecord | undefined };

/** How a decision reached the desk: which review message, and who. */
export interface DecisionRequest {
  /** The chat the decision was made in; must be the chat the draft was posted to. */
  readonly reviewChatId: string;
  readonly reviewMessageId: number;
  /** When the decision names a draft itself (button data), it must be the draft of that message. */
  readonly claimedDraftId?: string;
  readonly decision: Decision;
  readonly actor: Actor;
  readonly note?: string | null;
  /** The reviewer's "Yes, send" tap for a large audience. */
  readonly confirmed?: boolean;
}

/**
 * The review desk owns the drafts: it applies events through the pure state
 * machine, makes each change durable (store, then audit log) before anything
 * is announced, then runs the effects at the edges. Live mode and test mode
 * share it; only the edges differ.
 */
export class ReviewDesk implements DraftLedger, RecoveryDesk {
  private readonly queue = new KeyedQueue();
  private readonly byReviewMessage = new Map<number, string>();
  private readonly byIdempotencyKey = new Map<string, string>();
  private readonly expiryTimers = new Map<string, TimerHandle>();
  private readonly inFlight = new Set<Promise<unknown>>();
  private readonly listeners = new Set<(t: Transition) => void>();
  private readonly sender: Sender;
  private closed = false;

  constructor(private readonly options: ReviewDeskOptions) {
    for (const draft of options.store.latest.values()) this.index(draft);
    this.sender = options.makeSender(this);
  }

  /** The current record of a draft. */
  get(draftId: string): DraftRecord | undefined {
    return this.options.store.latest.get(draftId);
  }

  /** The draft whose review post has this message id. */
  byReviewMessageId(messageId: number): DraftRecord | undefined {
    const id = this.byReviewMessage.get(messageId);
    return id === undefined ? undefined : this.get(id);
  }

  /** The draft submitted with this idempotency key (live ones only; see findByIdempotency). */
  byIdempotency(key: string): DraftRecord | undefined {
    const id = this.byIdempotencyKey.get(key);
    return id === undefined ? undefined : this.get(id);
  }

  /** The current record of a draft, live or archived. */
  async find(draftId: string): Promise<DraftRecord | undefined> {
    return this.get(draftId) ?? (await this.options.archive?.get(draftId));
  }

  /** The draft submitted with this idempotency key, live or archived. */
  async findByIdempotency(key: string): Promise<DraftRecord | undefined> {
    return this.byIdempotency(key) ?? (await this.options.archive?.byIdempotencyKey(key));
  }

  /**
   * Moves final drafts older than DRAFT_RETENTION to the archive (see
   * archiving.ts) and forgets them here. Returns how many moved.
   */
  async archiveOld(): Promise<number> {
    const { archive, retentionMs } = this.options;
    if (!archive || retentionMs === undefined) return 0;
    const moved = await archiveDue({ store: this.options.store, archive, index: this.options.audit.index, retentionMs, log: this.options.log }, this.options.clock.now());
    const gone = new Set(moved);
    for (const [messageId, id] of this.byReviewMessage) if (gone.has(id)) this.byReviewMessage.delete(messageId);
    for (const [key, id] of this.byIdempotencyKey) if (gone.has(id)) this.byIdempotencyKey.delete(key);
    return moved.length;
  }

  /** Every draft, optionally only those in one status. */
  list(status?: DraftStatus): DraftRecord[] {
    const all = [...this.options.store.latest.values()];
    return status === undefined ? all : all.filter((d) => d.status === status);
  }

  /** True when a decision from this Telegram update was already recorded or refused. */
  hasSeenUpdate(updateId: number): boolean {
    return this.options.audit.index.hasSeenUpdate(updateId);
  }

  /** True when the reviewers were told about this draft while it was in `status` (a notice is audited once it is out). */
  wasNotified(draftId: string, status: DraftStatus): boolean {
    return this.options.audit.index.wasNotified(draftId, status);
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
    if (drafts.length > 0) await this.options.audit.append(drafts.map((d) => transitionEntry(null, d, { type: "recovered" })));
  }

  /** Calls `listener` after every durable status change. Returns a function that unsubscribes. */
  onTransition(listener: (t: Transition) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
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
      await this.commit(null, draft, { type: "created" });
      this.runEffects(effects);
    });
  }

  /**
   * A reviewer's decision on a review message. The desk checks again that the
   * actor is a reviewer; a decision that does not count is audited with why.
   * The same Telegram update delivered twice acts once.
   */
  async decide(request: DecisionRequest): Promise<DecisionOutcome> {
    const draft = this.byReviewMessageId(request.reviewMessageId);
    const refuse = async (reason: string): Promise<DecisionOutcome> => {
      await this.auditRefusal(
        { decision: request.decision, actor: request.actor, reason, chat_id: request.reviewChatId, review_message_id: request.reviewMessageId },
        draft,
      );
      return { ok: false, reason, draft: draft && this.get(draft.draft_id) };
    };
    const updateId = request.actor.update_id;
    const seen = this.options.audit.index;
    if (updateId !== null && seen.hasSeenUpdate(updateId)) {
      return { ok: false, reason: "duplicate_update", draft };
    }
    if (updateId !== null) seen.claimUpdate(updateId, this.options.clock.now());
    try {
      if (!this.options.reviewerIds.has(request.actor.user_id)) return await refuse("not_a_reviewer");
      if (!draft || draft.review_chat_id !== request.reviewChatId) return await refuse("unknown_review_message");
      if (request.claimedDraftId !== undefined && request.claimedDraftId !== draft.draft_id) {
        return await refuse("button_names_another_draft");
      }
      const result = await this.apply(draft.draft_id, {
        type: "decide",
        decision: request.decision,
        actor: request.actor,
        note: request.note ?? null,
        deferMs: this.options.deferForMs,
        confirmOver: this.options.confirmOver ?? null,
        confirmed: request.confirmed === true,
      });
      if (!result.ok && result.reason === "needs_confirmation") this.askConfirmation(draft.draft_id);
      if (!result.ok) return await refuse(result.reason);
      return { ok: true, draft: result.draft };
    } catch (err) {
      // Not recorded: a redelivery of the same update must be able to try again.
      if (updateId !== null) seen.releaseUpdate(updateId);
      throw err;
    }
  }

  /** Posts the large-audience question for a draft (ahead of queued posts); a failure is logged. */
  private askConfirmation(draftId: string): void {
    const draft = this.get(draftId);
    if (draft) void this.track(this.options.reviewChat.askConfirmation(draft));
  }

  /**
   * Audits a decision that does not count (a stranger, another chat, an
   * anonymous admin, too late), once per Telegram update: a redelivery of an
   * update already decided or refused, before or after a restart, is not
   * audited again.
   */
  async refuseDecision(refusal: RefusedDecision, draft?: DraftRecord): Promise<void> {
    const updateId = refusal.actor.update_id;
    const seen = this.options.audit.index;
    if (updateId !== null && seen.hasSeenUpdate(updateId)) {
      this.options.log.info({ update_id: updateId, reason: refusal.reason }, "a refused update was delivered again; it is audited already");
      return;
    }
    if (updateId !== null) seen.claimUpdate(updateId, this.options.clock.now());
    try {
      await this.auditRefusal(refusal, draft);
    } catch (err) {
      if (updateId !== null) seen.releaseUpdate(updateId);
      throw err;
    }
  }

  private async auditRefusal(refusal: RefusedDecision, draft: DraftRecord | undefined): Promise<void> {
    this.options.log.warn({ ...refusal, draft_id: draft?.draft_id }, "decision refused");
    await this.options.audit.append([refusedEntry(refusal, draft && this.get(draft.draft_id))]);
  }

  /** Runs the effect of a post, expiry or send again after a start (see recovery.ts). */
  runEffects(effects: readonly Effect[]): void {
    for (const effect of effects) {
      if (this.closed) return;
      void this.track(this.runEffect(effect));
    }
  }

  /** Resolves once every queued change and every effect started so far has finished. */
  async settle(): Promise<void> {
    for (;;) {
      await this.queue.idle();
      if (this.inFlight.size === 0) return;
      await Promise.all([...this.inFlight]);
    }
  }

  /** Stops timers and retries, waits for running work, and refuses new effects. */
  async close(): Promise<void> {
    this.closed = true;
    for (const handle of this.expiryTimers.values()) this.options.clock.clearTimeout(handle);
    this.expiryTimers.clear();
    (this.sender as { stop?: () => void }).stop?.();
    await this.settle();
  }

  private async applyNow(draftId: string, event: DraftEvent): Promise<TransitionResult> {
    const draft = this.get(draftId);
    if (!draft) throw new Error(`draft ${draftId} does not exist`);
    const result = transition(draft, event, this.options.clock.now());
    if (!result.ok) return result;
    await this.commit(draft.status, result.draft, event, draft.draft_text);
    this.runEffects(result.effects);
    return result;
  }

  /** The store (the truth) and the audit log, both fsync'd. Only then is anything announced. */
  private async commit(
    from: DraftStatus | null,
    draft: DraftRecord,
    event: DraftEvent | { type: "created" },
    previousText?: string,
  ): Promise<void> {
    // Both writes are in flight at once (each group-committed with its neighbours): one fsync
    // wait instead of two. Nothing is announced until both are durable. A crash between them
    // can leave the audit log one change ahead of the store: recovery treats that conservatively
    // (an approval whose audited send had begun is marked unknown, never resent).
    const [stored, audited] = await Promise.allSettled([
      this.options.store.append([draft]),
      this.options.audit.append([transitionEntry(from, draft, event, previousText)]),
    ]);
    if (stored.status === "rejected") throw stored.reason;
    this.index(draft);
    if (isFinal(draft.status)) this.disarm(draft.draft_id);
    if (audited.status === "rejected") throw audited.reason;
    const t: Transition = { draft_id: draft.draft_id, from, to: draft.status, version: draft.version, at: draft.updated_at };
    for (const listener of this.listeners) listener(t);
  }

  private index(draft: DraftRecord): void {
    if (draft.review_message_id !== null) this.byReviewMessage.set(draft.review_message_id, draft.draft_id);
    if (draft.idempotency_key !== null) this.byIdempotencyKey.set(draft.idempotency_key, draft.draft_id);
  }

  private async runEffect(effect: Effect): Promise<void> {
    const draft = this.get(effect.draftId);
    if (!draft) return;
    const { reviewChat } = this.options;
    switch (effect.type) {
      case "post_review":
        return this.postReview(effect.draftId, 0);
      case "send":
        return this.sender.send(effect.draftId);
      case "arm_expiry":
        return this.armExpiry(effect.draftId, effect.at);
      case "show_status":
        if (draft.review_message_id !== null) await reviewChat.showStatus(draft);
        return;
      case "notify":
        await reviewChat.notify(draft, effect.text);
        // Audited only once out: a crash before this line sends the notice again at the next start.
        this.options.audit.index.markNotified(draft.draft_id, draft.status, this.options.clock.now());
        await this.options.audit.append([{ kind: "notice", draft_id: draft.draft_id, status: draft.status, text: effect.text }]);
        return;
    }
  }

  /** Posts a queued draft now and waits for the post (or its failure, after which it is retried later). */
  post(draftId: string): Promise<void> {
    return this.track(this.postReview(draftId, 0));
  }

  /** Posts a queued draft; on failure tries again later, with backoff, until it expires. */
  private async postReview(draftId: string, failures: number): Promise<void> {
    const draft = this.get(draftId);
    if (!draft || draft.status !== "queued" || this.closed) return;
    try {
      const post = await this.options.reviewChat.post(draft);
      const result = await this.apply(draftId, { type: "posted", reviewChatId: post.reviewChatId, reviewMessageId: post.reviewMessageId });
      if (!result.ok) this.options.log.warn({ draft_id: draftId, reason: result.reason }, "review post made, but the draft had moved on");
    } catch (err) {
      const waitMs = backoffMs(REVIEW_POST_BACKOFF, failures + 1);
      this.options.log.error({ err, draft_id: draftId, retry_in_ms: waitMs }, "could not post the draft for review; it stays queued and is tried again");
      if (this.closed) return;
      this.options.clock.setTimeout(() => this.runEffectsOf(() => this.postReview(draftId, failures + 1)), waitMs);
    }
  }

  private runEffectsOf(work: () => Promise<void>): void {
    void this.track(work());
  }

  /** Keeps `work` in the set `settle()` waits for; logs instead of rejecting. */
  private track(work: Promise<void>): Promise<void> {
    const p = work.catch((err: unknown) => this.options.log.error({ err }, "effect failed"));
    this.inFlight.add(p);
    void p.finally(() => this.inFlight.delete(p));
    return p;
  }

  private armExpiry(draftId: string, at: number): void {
    this.disarm(draftId);
    if (this.closed) return;
    const { clock } = this.options;
    const handle = clock.setTimeout(() => {
      this.expiryTimers.delete(draftId);
      this.runEffectsOf(async () => {
        let result: TransitionResult;
        try {
          result = await this.apply(draftId, { type: "expire" });
        } catch (err) {
          // Not recorded (a full disk): try again shortly. Meanwhile the machine refuses
          // decisions and sends past expires_at, so nothing goes out late.
          this.options.log.error({ err, draft_id: draftId }, "could not record the expiry; trying again in 5 s");
          this.armExpiry(draftId, clock.now() + 5_000);
          return;
        }
        const current = this.get(draftId);
        if (!result.ok && result.reason === "not_due" && current) this.armExpiry(draftId, Date.parse(current.expires_at));
      });
    }, Math.max(0, at - clock.now()));
    this.expiryTimers.set(draftId, handle);
  }

  private disarm(draftId: string): void {
    const handle = this.expiryTimers.get(draftId);
    if (handle) this.options.clock.clearTimeout(handle);
    this.expiryTimers.delete(draftId);
  }
}

/** True when a draft in this status still waits for a reviewer. */
export function awaitsDecision(status: DraftStatus): boolean {
  return AWAITING_DECISION.has(status);
}
