import type { AuditLog } from "../audit/audit-log.js";
import { isInertDraft, runsForInertDraft } from "./test-drafts.js";
import type { AuditEntry, PostEntry } from "../audit/audit-schema.js";
import type { Clock, TimerHandle } from "../clock/clock.js";
import type { Effect } from "../drafts/effects.js";
import type { DraftEvent } from "../drafts/events.js";
import { expiryDue, type TransitionResult } from "../drafts/machine.js";
import { awaitsUndoShown } from "../drafts/undo-window.js";
import type { DraftRecord } from "../drafts/record.js";
import { backoffMs, REVIEW_POST_BACKOFF, type Backoff } from "../retry/backoff.js";
import { ReviewChatStopped, type ReviewChat, type ReviewPost, type Sender, type StatusShown } from "./ports.js";
import { shownOfDraft, type DecisionSurfaces } from "./surfaces.js";
import { AWAITING_DECISION, type DraftStatus } from "../drafts/status.js";
import { Reminders } from "./reminders.js";
import { closeLeftBehind, resumeUndoMessages } from "./closing.js";

/** What the effects run against: the desk's records and changes, and the edges. */
export interface EffectDeps {
  readonly audit: AuditLog;
  readonly clock: Clock;
  readonly reviewChat: ReviewChat;
  readonly log: { error(obj: object, msg: string): void; warn(obj: object, msg: string): void; info(obj: object, msg: string): void };
  readonly postBackoff?: Backoff | undefined;
  readonly surfaces: DecisionSurfaces;
  /** True in test mode; a live desk runs only the expiry of a test-mode draft, test mode nothing for a live one (see isInertDraft). */
  readonly testMode?: boolean | undefined;
  /** REMIND_BEFORE in ms (see reminders.ts); 0 or absent: no reminders. */
  readonly remindBeforeMs?: number | undefined;
  get(draftId: string): DraftRecord | undefined;
  apply(draftId: string, event: DraftEvent): Promise<TransitionResult>;
}

/**
 * The effects of the desk's changes, run at the edges once the change is
 * durable: review posts (retried with backoff), status edits, notices, the
 * send, and the expiry timers. Every piece of work is tracked, so `settle`
 * can wait for it and `close` can stop new work.
 */
export class DeskEffects {
  private readonly expiryTimers = new Map<string, TimerHandle>();
  /** Status edits due later (an undo window that ends), by draft. */
  private readonly laterEdits = new Map<string, TimerHandle>();
  private readonly inFlight = new Set<Promise<unknown>>();
  /** Review posts whose call has started and whose id is not recorded yet (see postsRecorded). */
  private readonly postsInCall = new Set<Promise<void>>();
  /** Drafts whose send holds the review chat's turn: their status edit comes in that turn (see inReviewTurn). */
  private readonly turnShows = new Map<string, Promise<void>>();
  private stopped = false;
  /** Review chat calls the stop dropped before their turn (ReviewChatStopped): told once, at close. */
  private leftAtStop = 0;
  /** Set once, after the desk gave the send path its ledger. */
  sender: Sender | null = null;

  /** What each live reminder shows (see closing.ts). */
  private readonly reminderShows = new Map<number, string>();

  /** REMIND_BEFORE: armed with each expiry, gone with it. */
  private readonly reminders: Reminders;

  constructor(private readonly deps: EffectDeps) {
    this.reminders = new Reminders({ ...deps, track: (work) => this.track(work) });
  }

  /** True once the desk is closing: no new effect starts. */
  get closed(): boolean {
    return this.stopped;
  }

  /** Starts each effect (not awaited; see `settle`). */
  runEffects(effects: readonly Effect[]): void {
    for (const effect of effects) {
      if (this.stopped) return;
      void this.track(this.runEffect(effect));
    }
  }

  /** Posts a queued draft now and waits for the post (or its failure, after which it is retried later). */
  post(draftId: string): Promise<void> {
    return this.track(this.postReview(draftId, 0));
  }

  /**
   * Resolves once every review post whose call had started is recorded (or
   * failed). Telegram gives the owner a post as soon as it accepts it, so a
   * tap on it can come before its id is recorded here: a decision on a
   * message the desk does not know waits for these, instead of being
   * refused as unknown. False when none was in its call.
   */
  async postsRecorded(): Promise<boolean> {
    if (this.postsInCall.size === 0) return false;
    await Promise.all([...this.postsInCall]);
    return true;
  }

  /** Keeps `work` in the set `settle()` waits for; logs instead of rejecting. */
  track(work: Promise<void>): Promise<void> {
    const p = work.catch((err: unknown) => {
      if (err instanceof ReviewChatStopped) this.leftAtStop++;
      else this.deps.log.error({ err }, "effect failed");
    });
    this.inFlight.add(p);
    void p.finally(() => this.inFlight.delete(p));
    return p;
  }

  /** Says once, when the last effect has settled, how many review chat calls the stop left before their turn. */
  tellLeftAtStop(): void {
    if (this.leftAtStop === 0) return;
    this.deps.log.info(
      { calls: this.leftAtStop },
      `stopped before ${this.leftAtStop} review chat post(s) or edit(s) had their turn; each the records say is owed is made at the next start`,
    );
    this.leftAtStop = 0;
  }

  /** Resolves once the tracked work started so far has finished (false when there was none). */
  async drain(): Promise<boolean> {
    if (this.inFlight.size === 0) return false;
    await Promise.all([...this.inFlight]);
    return true;
  }

  /** Stops timers and refuses new effects. */
  stop(): void {
    this.stopped = true;
    for (const handle of this.expiryTimers.values()) this.deps.clock.clearTimeout(handle);
    this.expiryTimers.clear();
    this.reminders.stop();
    for (const handle of this.laterEdits.values()) this.deps.clock.clearTimeout(handle);
    this.laterEdits.clear();
    (this.sender as { stop?: () => void } | null)?.stop?.();
  }

  /** Audits what the review chat now shows (after the fact: a crash before this line redoes the edit at start). */
  async notePost(entry: PostEntry): Promise<void> {
    this.deps.audit.index.notePost(entry);
    await this.deps.audit.append([entry]);
  }

  /** The review post now shows `draft` (an audience found changed at the send, a countdown): its surface's line says so. */
  private reshown(draft: DraftRecord): PostEntry[] {
    if (draft.review_chat_id === null || draft.review_message_id === null) return [];
    if (!AWAITING_DECISION.has(draft.status) && draft.status !== "approved") return [];
    return [this.deps.surfaces.note("decide", { chatId: draft.review_chat_id, messageId: draft.review_message_id }, shownOfDraft(draft))];
  }

  /** Forgets the expiry timer of a draft (it became final). */
  disarm(draftId: string): void {
    const handle = this.expiryTimers.get(draftId);
    if (handle) this.deps.clock.clearTimeout(handle);
    this.expiryTimers.delete(draftId);
    this.reminders.disarm(draftId);
  }

  private async runEffect(effect: Effect): Promise<void> {
    const draft = this.deps.get(effect.draftId);
    if (!draft) return;
    const testMode = this.deps.testMode === true;
    if (isInertDraft(draft, testMode) && !runsForInertDraft(effect, testMode)) return;
    const { reviewChat } = this.deps;
    switch (effect.type) {
      case "post_review":
        return this.postReview(effect.draftId, 0);
      case "send":
        return this.sender?.send(effect.draftId);
      case "arm_expiry":
        return this.armExpiry(effect.draftId, effect.at);
      case "show_status":
        // A send's own turn shows its outcome first; this edit then finds it shown (no second call).
        await this.turnShows.get(effect.draftId);
        return this.showStatus(effect.draftId);
      case "show_status_at":
        return this.showStatusAt(effect.draftId, effect.at);
      case "supersede_post":
        await reviewChat.markSuperseded(draft, effect.reviewMessageId);
        await this.notePost({ kind: "post_superseded", draft_id: draft.draft_id, review_message_id: effect.reviewMessageId });
        return this.closeLeftBehind(draft.draft_id);
      case "notify": {
        const messageId = await reviewChat.notify(draft, effect.text);
        // A notice takes no decision: an action on it is answered with the way to the live post (see surfaces.ts).
        return this.noticeOut(draft, effect.text, this.surfaceAt(draft, messageId, "notice"), effect.delivery);
      }
      case "offer_as_bot": {
        const messageId = await reviewChat.offerAsBot(draft, effect.text);
        // Its button counts once, for the draft as this message showed it (see surfaces.ts).
        return this.noticeOut(draft, effect.text, this.surfaceAt(draft, messageId, "asbot", effect.text));
      }
    }
  }

  /** The surface line of a message about `draft` (taken into account at once), or none outside a review chat. */
  private surfaceAt(draft: DraftRecord, messageId: number, asks: "notice" | "asbot", question?: string): AuditEntry[] {
    const chatId = draft.review_chat_id;
    if (chatId === null) return [];
    return [this.deps.surfaces.note(asks, { chatId, messageId }, shownOfDraft(draft), question === undefined ? {} : { question })];
  }

  /** Questions and reminders the draft's latest change left behind say so (see closing.ts). */
  private closeLeftBehind(draftId: string): Promise<void> {
    const draft = this.deps.get(draftId);
    return draft ? closeLeftBehind({ ...this.deps, reminderShows: this.reminderShows }, draft) : Promise.resolve();
  }

  /** At start: the messages showing an ↩️ Undo in place of their post end with it again, or now (see closing.ts). */
  resumeUndoMessages(): void {
    const testMode = this.deps.testMode === true;
    const live = (draftId: string) => {
      const draft = this.deps.get(draftId);
      return draft && !isInertDraft(draft, testMode) ? draft : undefined;
    };
    // The closing edits are tracked, not awaited: Telegram's pace never holds up the start's sends and timers.
    void this.track(resumeUndoMessages({ ...this.deps, reminderShows: this.reminderShows }, live));
  }

  /**
   * Audits a notice once it is out (a crash before this line sends it again at the next start), with the surface it carries;
   * `delivery`: a notice about that delivery of several (its outcome unknown), audited as that delivery's.
   */
  private async noticeOut(draft: DraftRecord, text: string, surface: readonly AuditEntry[] = [], delivery?: number): Promise<void> {
    // A delivery's notice is the one of its unknown outcome (machine.ts unknownNotice).
    const status: DraftStatus = delivery === undefined ? draft.status : "outcome_unknown";
    this.deps.audit.index.markNotified(draft.draft_id, status, this.deps.clock.now(), delivery);
    await this.deps.audit.append([
      ...surface,
      { kind: "notice", draft_id: draft.draft_id, status, text, ...(delivery === undefined ? {} : { delivery }) },
    ]);
  }

  /**
   * Edits the review post to show the draft as it is when the edit's turn
   * comes, then audits what it showed. An approval whose ↩️ Undo this showed
   * first starts its window at Telegram's acceptance (`undo_shown`); a new
   * message that shows it instead (the post could not be edited) becomes an
   * `undo` surface first. If nothing could show it, the draft is not sent:
   * halted, with why (fail closed).
   */
  private async showStatus(draftId: string): Promise<void> {
    const draft = this.deps.get(draftId);
    if (draft?.review_message_id == null) return;
    const result = await this.deps.reviewChat.showStatus(draft, () => this.deps.get(draftId));
    const shownDraft = result?.draft ?? draft;
    if (result?.failed !== undefined) {
      if (awaitsUndoShown(shownDraft)) await this.undoNotShown(shownDraft, result.failed);
      return;
    }
    if (result?.undoMessageId !== undefined && shownDraft.review_chat_id !== null) {
      const where = { chatId: shownDraft.review_chat_id, messageId: result.undoMessageId };
      await this.deps.surfaces.record("undo", where, shownOfDraft(shownDraft));
    }
    if (awaitsUndoShown(shownDraft)) await this.undoShown(shownDraft, result);
    const shown: PostEntry = { kind: "status_shown", draft_id: draftId, version: shownDraft.version };
    this.deps.audit.index.notePost(shown);
    await this.deps.audit.append([shown, ...this.reshown(shownDraft)]);
    await this.closeLeftBehind(draftId);
  }

  /**
   * The approval's ↩️ Undo is on screen since Telegram accepted it: its window
   * counts from then. Refused if the draft moved on; if it still awaits its
   * Undo being shown (another version of the same approval: a `revised` mark),
   * its status is shown again, and that edit starts the window.
   */
  private async undoShown(draft: DraftRecord, result: StatusShown | undefined): Promise<void> {
    const at = result?.at ?? this.deps.clock.now();
    const shown = await this.deps.apply(draft.draft_id, { type: "undo_shown", at, version: draft.version, sendAt: result?.sendAt ?? null });
    if (shown.ok) return;
    this.deps.log.warn({ draft_id: draft.draft_id, reason: shown.reason }, "an ↩️ Undo was shown for an approval that had moved on");
    const now = this.deps.get(draft.draft_id);
    if (now !== undefined && awaitsUndoShown(now) && !this.stopped) await this.showStatus(draft.draft_id);
  }

  /** Nothing could show the approval's ↩️ Undo: its window never began, so it is not sent. */
  private async undoNotShown(draft: DraftRecord, why: string): Promise<void> {
    const reason = `not sent: its ↩️ Undo could not be shown in the review chat (${why})`;
    this.deps.log.error({ draft_id: draft.draft_id, why }, "the approval's ↩️ Undo could not be shown; the draft is halted, not sent");
    await this.deps.apply(draft.draft_id, { type: "halt", reason });
  }

  /**
   * Runs `work` (a send whose undo window is over) in the review chat's next
   * top-priority turn, the edit that ends its ↩️ Undo in that same turn (see
   * ReviewChat.sendTurn); without a paced review chat, just `work`.
   */
  inReviewTurn<T>(draftId: string, work: () => Promise<T>): Promise<T> {
    const chat = this.deps.reviewChat;
    if (chat.sendTurn === undefined || this.stopped) return work();
    let release!: () => void;
    const shown = new Promise<void>((resolve) => (release = resolve));
    this.turnShows.set(draftId, shown);
    const done = () => {
      release();
      if (this.turnShows.get(draftId) === shown) this.turnShows.delete(draftId);
    };
    return chat.sendTurn(work, () => this.deps.get(draftId), done).finally(done);
  }

  /** Edits the review post again at `at` (a ↩️ Undo goes when its window ends), if the draft did not change since. */
  private showStatusAt(draftId: string, at: number): void {
    const version = this.deps.get(draftId)?.version;
    const old = this.laterEdits.get(draftId);
    if (old) this.deps.clock.clearTimeout(old);
    if (this.stopped) return;
    const handle = this.deps.clock.setTimeout(
      () => {
        this.laterEdits.delete(draftId);
        const draft = this.deps.get(draftId);
        // A later change showed the post itself (and armed its own edit if it needs one).
        if (draft && draft.version === version) this.runEffectsOf(() => this.showStatus(draftId));
      },
      Math.max(0, at - this.deps.clock.now()),
    );
    this.laterEdits.set(draftId, handle);
  }

  /** Posts a queued draft; on failure tries again later, with backoff, until it expires. */
  private async postReview(draftId: string, failures: number): Promise<void> {
    const draft = this.deps.get(draftId);
    if (draft?.status !== "queued" || this.stopped) return;
    let recorded = (): void => {};
    const inCall = new Promise<void>((resolve) => (recorded = resolve));
    let replaced: string | null = null;
    try {
      const post = await this.deps.reviewChat.post(draft, () => this.postsInCall.add(inCall));
      const result = await this.deps.apply(draftId, {
        type: "posted",
        reviewChatId: post.reviewChatId,
        reviewMessageId: post.reviewMessageId,
        reviewThreadId: post.reviewThreadId ?? null,
      });
      if (!result.ok) this.deps.log.warn({ draft_id: draftId, reason: result.reason }, "review post made, but the draft had moved on");
      // The draft it replaces (payload `revises`) now names this version's post on its own (once this post counts as made).
      if (result.ok && result.draft.revises !== null && this.deps.get(result.draft.revises)?.revised_by === draftId)
        replaced = result.draft.revises;
      if (result.ok) await this.notePostParts(post, result.draft);
    } catch (err) {
      const waitMs = backoffMs(this.deps.postBackoff ?? REVIEW_POST_BACKOFF, failures + 1);
      this.deps.log.error(
        { err, draft_id: draftId, retry_in_ms: waitMs },
        "could not post the draft for review; it stays queued and is tried again",
      );
      if (this.stopped) return;
      this.deps.clock.setTimeout(() => this.runEffectsOf(() => this.postReview(draftId, failures + 1)), waitMs);
    } finally {
      this.postsInCall.delete(inCall);
      recorded();
    }
    if (replaced !== null) await this.showStatus(replaced);
  }

  /**
   * A split post's header and its draft's parts before the last take no decision: each is a `notice` that
   * names the post's message with the buttons (`post`), so an action on it is answered with the way there.
   */
  private async notePostParts(post: ReviewPost, draft: DraftRecord): Promise<void> {
    const ids = [...(post.headerMessageId === undefined ? [] : [post.headerMessageId]), ...(post.partMessageIds ?? [])];
    if (ids.length === 0) return;
    const shown = shownOfDraft(draft);
    const extra = { post: post.reviewMessageId };
    await this.deps.audit.append(
      ids.map((messageId) => this.deps.surfaces.note("notice", { chatId: post.reviewChatId, messageId }, shown, extra)),
    );
  }

  private runEffectsOf(work: () => Promise<void>): void {
    void this.track(work());
  }

  private armExpiry(draftId: string, at: number): void {
    this.disarm(draftId);
    if (this.stopped) return;
    const { clock } = this.deps;
    const handle = clock.setTimeout(
      () => {
        this.expiryTimers.delete(draftId);
        this.runEffectsOf(async () => {
          let result: TransitionResult;
          try {
            result = await this.deps.apply(draftId, { type: "expire" });
          } catch (err) {
            // Not recorded (a full disk): try again shortly. Meanwhile the machine refuses
            // decisions and sends past expires_at, so nothing goes out late.
            this.deps.log.error({ err, draft_id: draftId }, "could not record the expiry; trying again in 5 s");
            this.armExpiry(draftId, clock.now() + 5_000);
            return;
          }
          const current = this.deps.get(draftId);
          if (!result.ok && result.reason === "not_due" && current) this.armExpiry(draftId, expiryDue(current));
        });
      },
      Math.max(0, at - clock.now()),
    );
    this.expiryTimers.set(draftId, handle);
    this.reminders.arm(draftId);
  }
}
