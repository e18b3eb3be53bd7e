import type { AuditLog } from "../audit/audit-log.js";
import type { Clock, TimerHandle } from "../clock/clock.js";
import type { Effect } from "../drafts/effects.js";
import type { DraftEvent } from "../drafts/events.js";
import type { Transition } from "../drafts/feed-event.js";
import { transition, type TransitionResult } from "../drafts/machine.js";
import type { DraftRecord } from "../drafts/record.js";
import { AWAITING_DECISION, isFinal, type DraftStatus } from "../drafts/status.js";
import type { JsonlStore } from "../store/jsonl-store.js";
import type { DraftLedger } from "../send/send-path.js";
import { refusedEntry, transitionEntry, type RefusedDecision } from "./audit-entries.js";
import type { DraftArchive } from "../store/archive.js";
import { archiveDue } from "./archiving.js";
import { KeyedQueue } from "./keyed-queue.js";
import { backoffMs, REVIEW_POST_BACKOFF, type Backoff } from "../retry/backoff.js";
import type { RecoveryDesk, RecoveryFacts } from "./recovery.js";
import type { PostEntry } from "../audit/audit-schema.js";
import { prepareDraftText, type Redactor } from "./draft-text.js";
import { liveAnswer, refusalAnswer, type ActionKind } from "./live-post.js";
import type { DecisionDesk, DecisionOutcome, DecisionRequest, EditRequest, ReviewChat, ReviewerAction, Sender } from "./ports.js";

export type { DecisionOutcome, DecisionRequest } from "./ports.js";

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
  /** UNDO_WINDOW in ms: how long an approval waits before its send; 0 (default) = at once. */
  readonly undoWindowMs?: number;
  /** Redaction for a reviewer's edited text, as at intake; null or absent: none. */
  readonly redact?: Redactor | null;
  readonly log: DeskLog;
  /** Where final drafts older than `retentionMs` go (absent: they stay in the store). */
  readonly archive?: DraftArchive<DraftRecord>;
  /** DRAFT_RETENTION in milliseconds. */
  readonly retentionMs?: number;
  /** The wait before posting again a draft whose review post failed (default REVIEW_POST_BACKOFF). */
  readonly postBackoff?: Backoff;
  /** The bot's @username: a draft moved to the bot ("🤖 Send as the bot instead") names it. */
  readonly botUsername?: string | null;
  /** Builds the send path; it gets the desk as its ledger. */
  readonly makeSender: (ledger: DraftLedger) => Sender;
}

/** The `status_due` line of a change whose effects edit the review post (none otherwise). */
function statusDue(draft: DraftRecord, effects: readonly Effect[]): PostEntry[] {
  return effects.some((e) => e.type === "show_status") ? [{ kind: "status_due", draft_id: draft.draft_id, version: draft.version }] : [];
}

/** At most one answer per this many ms about actions on messages that are no draft's post. */
const UNKNOWN_ANSWER_GAP_MS = 10_000;

/** What a reviewer action did: a transition, or a refusal of the desk's own (an edit text that cannot be a draft). */
type ActResult = TransitionResult | { readonly ok: false; readonly reason: string };

/**
 * The review desk owns the drafts: it applies events through the pure state
 * machine, makes each change durable (store, then audit log) before anything
 * is announced, then runs the effects at the edges. Live mode and test mode
 * share it; only the edges differ.
 */
export class ReviewDesk implements DraftLedger, RecoveryDesk, DecisionDesk {
  private readonly queue = new KeyedQueue();
  private readonly byReviewMessage = new Map<number, string>();
  private readonly byIdempotencyKey = new Map<string, string>();
  private readonly expiryTimers = new Map<string, TimerHandle>();
  private readonly inFlight = new Set<Promise<unknown>>();
  private readonly listeners = new Set<(t: Transition) => void>();
  /**
   * While a change is being made durable, what the API may still show of that draft (undefined: not
   * yet created). The store holds the new record once its own write is done, but the change is
   * published only when its audit line (the feed's event) is durable too.
   */
  private readonly committing = new Map<string, DraftRecord | undefined>();
  private readonly sender: Sender;
  private closed = false;
  /** When a reviewer was last told that a message is no review post (see answerRefusal). */
  private lastUnknownAnswer = -Infinity;

  constructor(private readonly options: ReviewDeskOptions) {
    for (const draft of options.store.latest.values()) this.index(draft);
    for (const [messageId, prompt] of options.audit.index.editPrompts) this.byReviewMessage.set(messageId, prompt.draftId);
    this.sender = options.makeSender(this);
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
    const id = this.byReviewMessage.get(messageId);
    return id === undefined ? undefined : this.get(id);
  }

  /** True when `messageId` is a review post (live or replaced) or an edit prompt, or may be an archived draft's post. */
  knowsMessage(messageId: number): boolean {
    return this.byReviewMessage.has(messageId) || (this.options.archive?.mayHoldMessage(messageId) ?? false);
  }

  /** True when `messageId` is an edit prompt the bot sent. */
  isEditPrompt(messageId: number): boolean {
    return this.options.audit.index.editPrompts.has(messageId);
  }

  /** The draft submitted with this idempotency key (live ones only; see findByIdempotency). */
  byIdempotency(key: string): DraftRecord | undefined {
    const id = this.byIdempotencyKey.get(key);
    return id === undefined ? undefined : this.get(id);
  }

  /** The current record of a draft, live or archived. */
  async find(draftId: string): Promise<DraftRecord | undefined> {
    return this.published(draftId) ?? (await this.options.archive?.get(draftId));
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
    const moved = await archiveDue(
      { store: this.options.store, archive, index: this.options.audit.index, retentionMs, log: this.options.log },
      this.options.clock.now(),
    );
    const gone = new Set(moved);
    for (const [messageId, id] of this.byReviewMessage) if (gone.has(id)) this.byReviewMessage.delete(messageId);
    for (const [key, id] of this.byIdempotencyKey) if (gone.has(id)) this.byIdempotencyKey.delete(key);
    return moved.length;
  }

  /** Every draft, optionally only those in one status. */
  list(status?: DraftStatus): DraftRecord[] {
    const out: DraftRecord[] = [];
    for (const id of this.options.store.latest.keys()) {
      const draft = this.published(id);
      if (draft && (status === undefined || draft.status === status)) out.push(draft);
    }
    return out;
  }

  /** What the API shows of a live draft: its record, except while a change of it is not yet in the audit log. */
  private published(draftId: string): DraftRecord | undefined {
    return this.committing.has(draftId) ? this.committing.get(draftId) : this.get(draftId);
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
    // The edit of the review post that change called for may be lost with it: it is owed (and redone at start).
    const owed = (d: DraftRecord): PostEntry[] =>
      d.review_message_id === null ? [] : [{ kind: "status_due", draft_id: d.draft_id, version: d.version }];
    if (drafts.length > 0)
      await this.options.audit.append(drafts.flatMap((d) => [transitionEntry(null, d, { type: "recovered" }), ...owed(d)]));
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
   * The same Telegram update delivered twice acts once. An approval binds to
   * the text version of the post it was made on, and waits UNDO_WINDOW.
   */
  decide(request: DecisionRequest): Promise<DecisionOutcome> {
    return this.act(request, "decide", request.decision, async (draft) => {
      const result = await this.apply(draft.draft_id, {
        type: "decide",
        decision: request.decision,
        actor: request.actor,
        note: request.note ?? null,
        deferMs: this.options.deferForMs,
        confirmOver: this.options.confirmOver ?? null,
        confirmed: request.confirmed === true,
        undoMs: this.options.undoWindowMs ?? 0,
        textVersion: draft.text_version,
        ...(request.sender === undefined ? {} : { sender: request.sender }),
        ...(request.asBot ? { asBot: { username: this.options.botUsername ?? null } } : {}),
      });
      if (!result.ok && result.reason === "needs_confirmation") this.askConfirmation(draft.draft_id);
      return result;
    });
  }

  /**
   * A reviewer's new text: checked, trimmed and redacted as at intake, then the
   * draft's next text version, posted for review again. A text that cannot be
   * a draft is refused, and the reviewer is told why.
   */
  edit(request: EditRequest): Promise<DecisionOutcome> {
    return this.act(request, "edit", null, async (draft) => {
      const prompt = this.options.audit.index.editPrompts.get(request.reviewMessageId);
      const prepared = prepareDraftText(request.text, this.options.redact ?? null);
      if (!prepared.ok) return { ok: false, reason: `edit_${prepared.reason}` };
      return this.apply(draft.draft_id, {
        type: "edit",
        text: prepared.text,
        textSha256: prepared.textSha256,
        redaction: prepared.redaction,
        actor: request.actor,
        textVersion: prompt?.textVersion ?? draft.text_version,
      });
    });
  }

  /** The ✏️ Edit button: the bot sends the current text to copy, with a ForceReply; a reply to it is the edit. */
  requestEdit(request: ReviewerAction): Promise<DecisionOutcome> {
    return this.act(request, "prompt", null, async (draft) => {
      if (!AWAITING_DECISION.has(draft.status)) return { ok: false, reason: "not_awaiting_decision" };
      const messageId = await this.options.reviewChat.promptEdit(draft);
      this.byReviewMessage.set(messageId, draft.draft_id);
      await this.notePost({ kind: "edit_prompt", draft_id: draft.draft_id, message_id: messageId, text_version: draft.text_version });
      return { ok: true, draft, effects: [] };
    });
  }

  /** Takes back an approval within UNDO_WINDOW: the draft returns to where it was before the 👍. */
  undo(request: ReviewerAction): Promise<DecisionOutcome> {
    return this.act(request, "undo", null, (draft) => this.apply(draft.draft_id, { type: "undo", actor: request.actor }));
  }

  /** Records that `laterId` replaces `draftId` (payload `revises`); a draft still awaiting a decision becomes `revise`. */
  async markRevised(draftId: string, laterId: string): Promise<void> {
    const result = await this.apply(draftId, { type: "revised", byDraftId: laterId });
    if (!result.ok)
      this.options.log.warn({ draft_id: draftId, revised_by: laterId, reason: result.reason }, "could not mark the draft as revised");
  }

  /**
   * What every reviewer action goes through: the update is taken once, the
   * actor must be a reviewer, and the message must be the draft's live post
   * (or, for an edit, the bot's edit prompt). An action on a replaced or
   * orphaned post is refused with an answer that points to the live post; a
   * refusal the reviewer should know about is answered too.
   */
  private async act(
    request: ReviewerAction,
    kind: ActionKind,
    decision: DecisionRequest["decision"] | null,
    run: (draft: DraftRecord) => Promise<ActResult>,
  ): Promise<DecisionOutcome> {
    const updateId = request.actor.update_id;
    const seen = this.options.audit.index;
    if (updateId !== null && seen.hasSeenUpdate(updateId)) {
      return { ok: false, reason: "duplicate_update", draft: this.draftOfMessage(request.reviewMessageId) };
    }
    if (updateId !== null) seen.claimUpdate(updateId, this.options.clock.now());
    try {
      return await this.actOnce(request, kind, decision, run);
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

  private async actOnce(
    request: ReviewerAction,
    kind: ActionKind,
    decision: DecisionRequest["decision"] | null,
    run: (draft: DraftRecord) => Promise<ActResult>,
  ): Promise<DecisionOutcome> {
    const byMessage = this.draftOfMessage(request.reviewMessageId);
    // A button names its draft: on a post the desk does not know (an orphan a crash left), that finds the draft.
    const live = byMessage ?? (request.claimedDraftId === undefined ? undefined : this.get(request.claimedDraftId));
    // The post of a draft archived since (DRAFT_RETENTION): read from archive/, refused and answered below.
    const archived = live === undefined ? await this.options.archive?.byMessage(request.reviewMessageId) : undefined;
    const draft = live ?? archived;
    const refuse = async (reason: string, answer = true): Promise<DecisionOutcome> => {
      const refusal = { decision, actor: request.actor, reason, chat_id: request.reviewChatId, review_message_id: request.reviewMessageId };
      await this.auditRefusal(refusal, draft);
      if (answer && this.options.reviewerIds.has(request.actor.user_id)) this.answerRefusal(kind, reason, draft, request.reviewMessageId);
      return { ok: false, reason, draft: draft && this.get(draft.draft_id) };
    };
    if (!this.options.reviewerIds.has(request.actor.user_id)) return refuse("not_a_reviewer");
    if (!draft || (draft.review_chat_id !== null && draft.review_chat_id !== request.reviewChatId)) return refuse("unknown_review_message");
    if (archived) return refuse("archived");
    if (byMessage && request.claimedDraftId !== undefined && request.claimedDraftId !== draft.draft_id) {
      return refuse("button_names_another_draft", false);
    }
    const onLivePost = draft.review_message_id === request.reviewMessageId || this.isEditPrompt(request.reviewMessageId);
    if (!onLivePost) return refuse("not_live_post");
    const result = await run(draft);
    if (!result.ok) return refuse(result.reason);
    return { ok: true, draft: result.draft };
  }

  /**
   * Tells the reviewer why an action did not count, when that helps (a
   * replaced post, too late to undo, a bad edit). Not awaited: the update's
   * handling does not wait for a slot in the review chat. Answers about
   * messages that are no draft's post (a 👍 on any other message) are at most
   * one per UNKNOWN_ANSWER_GAP_MS, so they cannot flood it.
   */
  private answerRefusal(kind: ActionKind, reason: string, draft: DraftRecord | undefined, actedOn: number): void {
    // An archived draft is not in the store: its record is the one read from archive/.
    const current = draft && (this.get(draft.draft_id) ?? (reason === "archived" ? draft : undefined));
    const text =
      reason === "not_live_post" || reason === "outdated_version" || reason === "unknown_review_message"
        ? liveAnswer(current)
        : refusalAnswer(kind, reason, current);
    if (text === null || this.closed) return;
    if (!current) {
      const now = this.options.clock.now();
      if (now - this.lastUnknownAnswer < UNKNOWN_ANSWER_GAP_MS) return;
      this.lastUnknownAnswer = now;
    }
    const replyTo = current?.review_message_id ?? actedOn;
    void this.track(
      this.options.reviewChat
        .answer(text, replyTo)
        .catch((err: unknown) => this.options.log.warn({ err }, "could not answer the reviewer")),
    );
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
    // A draft the store no longer holds (archived) is audited with the record it was given.
    await this.options.audit.append([refusedEntry(refusal, draft && (this.get(draft.draft_id) ?? draft))]);
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
    await this.commit(draft.status, result.draft, event, draft.draft_text, result.effects);
    this.runEffects(result.effects);
    return result;
  }

  /** The store (the truth) and the audit log, both fsync'd. Only then is anything announced. */
  private async commit(
    from: DraftStatus | null,
    draft: DraftRecord,
    event: DraftEvent | { type: "created" },
    previousText?: string,
    effects: readonly Effect[] = [],
  ): Promise<void> {
    // Both writes are in flight at once (each group-committed with its neighbours): one fsync
    // wait instead of two. Nothing is announced until both are durable. A crash between them
    // can leave the audit log one change ahead of the store: recovery treats that conservatively
    // (an approval whose audited send had begun is marked unknown, never resent).
    // The contract: an event is in the feed by the time its change shows through GET /drafts/<id>.
    this.committing.set(draft.draft_id, this.get(draft.draft_id));
    const [stored, audited] = await Promise.allSettled([
      this.options.store.append([draft]),
      // A change that edits the review post says so in the same write, so a crash before the edit is redone at start.
      this.options.audit.append([transitionEntry(from, draft, event, previousText), ...statusDue(draft, effects)]),
    ]).finally(() => this.committing.delete(draft.draft_id));
    if (stored.status === "rejected") throw stored.reason;
    this.index(draft);
    if (isFinal(draft.status)) this.disarm(draft.draft_id);
    if (audited.status === "rejected") throw audited.reason;
    const t: Transition = { draft_id: draft.draft_id, from, to: draft.status, version: draft.version, at: draft.updated_at };
    for (const listener of this.listeners) listener(t);
  }

  private index(draft: DraftRecord): void {
    if (draft.review_message_id !== null) this.byReviewMessage.set(draft.review_message_id, draft.draft_id);
    for (const old of draft.superseded_posts) this.byReviewMessage.set(old, draft.draft_id);
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
      case "show_status": {
        if (draft.review_message_id === null) return;
        await reviewChat.showStatus(draft);
        return this.notePost({ kind: "status_shown", draft_id: draft.draft_id, version: draft.version });
      }
      case "supersede_post":
        await reviewChat.markSuperseded(draft, effect.reviewMessageId);
        return this.notePost({ kind: "post_superseded", draft_id: draft.draft_id, review_message_id: effect.reviewMessageId });
      case "notify":
        await reviewChat.notify(draft, effect.text);
        // Audited only once out: a crash before this line sends the notice again at the next start.
        this.options.audit.index.markNotified(draft.draft_id, draft.status, this.options.clock.now());
        await this.options.audit.append([{ kind: "notice", draft_id: draft.draft_id, status: draft.status, text: effect.text }]);
        return;
    }
  }

  /** Audits what the review chat now shows (after the fact: a crash before this line redoes the edit at start). */
  private async notePost(entry: PostEntry): Promise<void> {
    this.options.audit.index.notePost(entry);
    await this.options.audit.append([entry]);
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
      const waitMs = backoffMs(this.options.postBackoff ?? REVIEW_POST_BACKOFF, failures + 1);
      this.options.log.error(
        { err, draft_id: draftId, retry_in_ms: waitMs },
        "could not post the draft for review; it stays queued and is tried again",
      );
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
    const handle = clock.setTimeout(
      () => {
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
      },
      Math.max(0, at - clock.now()),
    );
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
