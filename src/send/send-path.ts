import type { Clock } from "../clock/clock.js";
import type { Effect } from "../drafts/effects.js";
import type { DraftEvent } from "../drafts/events.js";
import type { TransitionResult } from "../drafts/machine.js";
import { awaitsUndoShown } from "../drafts/undo-window.js";
import type { DraftRecord } from "../drafts/record.js";
import { AUDIENCE_CHECK_BACKOFF, backoffMs, SEND_BACKOFF, type Backoff } from "../retry/backoff.js";
import { approvalProblem } from "./approval.js";
import type { AudienceCheck } from "./audience-check.js";
import { approvalHalt, type HaltSighting } from "./halt-watch.js";
import type { KillSwitch } from "./kill-switch.js";
import type { DestinationLimiter } from "./limiter.js";
import type { SendMessageCall } from "./outcome.js";
import type { OwnerProblem } from "../drafts/sender-choice.js";
import { droppedReplyText } from "../business/sender-text.js";
import { replyTarget } from "../drafts/reply-target.js";
import type { ChannelSet } from "../channels/channel-set.js";
import { ChannelDelivery } from "./channel-delivery.js";

/** The halt reason of a draft whose destination Telegram would not describe at the send call (the contract's words). */
export const AUDIENCE_UNCHECKED = "audience could not be checked";

/** What the reviewer is told when the audience check gave up (`service`: who did not answer, "Telegram", "Slack", ...). */
const uncheckedNotice = (service: string) =>
  `⛔ Not sent: the audience could not be checked (${service} did not answer who is in the destination for a minute). Nothing went out. 👍 again to try again.`;

/** The part of the review desk the send path needs: read a draft, apply an event durably, run an effect later. */
export interface DraftLedger {
  get(draftId: string): DraftRecord | undefined;
  apply(draftId: string, event: DraftEvent): Promise<TransitionResult>;
  /** Runs effects as the desk's own (tracked, so a drain waits for them). */
  runEffects(effects: readonly Effect[]): void;
  /**
   * Runs `work` (the send call and its outcome) in the review chat's next top-priority turn, with
   * the edit that ends the draft's ↩️ Undo in the same turn. Absent: `work` at once.
   */
  inReviewTurn?<T>(draftId: string, work: () => Promise<T>): Promise<T>;
}

/** How long an approved draft still waits out UNDO_WINDOW at `now` (0: it may be sent). */
export function undoWaitMs(draft: DraftRecord, now: number): number {
  return draft.send_after === null ? 0 : Math.max(0, Date.parse(draft.send_after) - now);
}

/** What the send path is built from; every piece is passed in. */
export interface SendPathOptions {
  readonly ledger: DraftLedger;
  /** With `lastHalt` (a watched switch), a halt that came and went after an approval voids it. */
  readonly killSwitch: KillSwitch & { lastHalt?(): HaltSighting | null };
  readonly limiter: DestinationLimiter;
  readonly call: SendMessageCall;
  readonly reviewerIds: ReadonlySet<number>;
  readonly clock: Clock;
  readonly log: { warn(obj: object, msg: string): void; error(obj: object, msg: string): void };
  /** Resolves the destination again before the call (audience-check.ts); absent: not checked. */
  readonly checkAudience?: AudienceCheck;
  /**
   * Why a draft approved to go out as the owner cannot go now (the connection is not the owner's
   * or not the one approved, its can_reply right, the 24 h window), with what would let it, or
   * null; `fresh` asks Telegram first. Absent: no check.
   */
  readonly checkSender?: (draft: DraftRecord, fresh: boolean) => Promise<OwnerProblem | null>;
  /** How long an audience check Telegram does not answer is asked again before the draft is halted (default AUDIENCE_CHECK_BACKOFF). */
  readonly audienceBackoff?: Backoff;
  /** The wait before retrying a send Telegram never received (default SEND_BACKOFF). */
  readonly backoff?: Backoff;
  /** How often an error that proves the message was not sent may be retried. Default 5. */
  readonly maxNotSentAttempts?: number;
  /** Linear, email and Slack (contract v5), as configured; absent: Telegram only. */
  readonly channels?: ChannelSet | null;
  /** Their rate limits, keyed by the draft's destination label; absent: `limiter`. */
  readonly channelLimiter?: DestinationLimiter;
}

/**
 * The only code that sends a draft to its destination. At the moment of the
 * call it checks again: the draft is approved, by a reviewer, for exactly this
 * text, and the kill switch is off. It records the `sending` intent on disk
 * before calling and the outcome after. What may have reached Telegram is
 * never sent again.
 */
export class SendPath {
  private readonly attempts = new Map<string, number>();
  /** Per draft, since when (for which approval) Telegram has not answered the audience check, and how often. */
  private readonly unchecked = new Map<string, { approvalAt: string | undefined; since: number; failures: number }>();
  private readonly waits = new Set<{ cancel(): void }>();
  /** One timer per draft waiting out UNDO_WINDOW (a new approval replaces the old timer). */
  private readonly undoWaits = new Map<string, { cancel(): void }>();
  private stopped = false;
  /** Sends to Linear, email and Slack; null without them. */
  private readonly delivery: ChannelDelivery | null;

  constructor(private readonly options: SendPathOptions) {
    const channels = options.channels ?? null;
    this.delivery =
      channels === null
        ? null
        : new ChannelDelivery({
            ledger: options.ledger,
            channels,
            now: () => options.clock.now(),
            log: options.log,
            haltProblem: (d) => this.haltProblem(d),
            pause: (key, ms) => (options.channelLimiter ?? options.limiter).pause(key, ms),
            retryLater: (id, ms) => this.retryLater(id, ms),
            unchecked: (d, service) => this.audienceUnchecked(d, service),
            checked: (id) => void this.unchecked.delete(id),
            ...(options.backoff ? { backoff: options.backoff } : {}),
            maxNotSentAttempts: options.maxNotSentAttempts ?? 5,
          });
  }

  /** Sends an approved draft when its destination has a free slot. Never throws. */
  async send(draftId: string): Promise<void> {
    const draft = this.options.ledger.get(draftId);
    // Linear, email, Slack: a send found under way with no call running here is looked for, never repeated blindly.
    if (draft?.status === "sending" && draft.destination !== null && this.delivery && !this.stopped) return this.delivery.findLost(draft);
    if (!draft || draft.status !== "approved" || this.stopped) {
      // Undone, halted or expired while its audience check waited: nothing of it is kept.
      this.unchecked.delete(draftId);
      return;
    }
    // Its window begins when the chat shows its ↩️ Undo (`undo_shown` hands it here again).
    if (awaitsUndoShown(draft)) return;
    const waitMs = undoWaitMs(draft, this.options.clock.now());
    if (waitMs > 0) return this.sendAfterUndoWindow(draftId, waitMs);
    try {
      const limiter = draft.destination !== null ? (this.options.channelLimiter ?? this.options.limiter) : this.options.limiter;
      await limiter.schedule(draft.destination_chat_id, (answered) => this.attempt(draftId, answered));
    } catch (err) {
      if (!this.stopped)
        this.options.log.error({ draft_id: draftId, err }, "send path failed; the draft stays approved and is retried at the next start");
    }
  }

  /** Stops retries that are waiting; drafts stay `approved` on disk and are picked up at the next start. */
  stop(): void {
    this.stopped = true;
    for (const w of this.waits) w.cancel();
    for (const w of this.undoWaits.values()) w.cancel();
  }

  /** `answered`: the limiter's, told when another channel's call was answered (Telegram's sends count from their end). */
  private async attempt(draftId: string, answered?: () => void): Promise<void> {
    const { ledger } = this.options;
    const draft = ledger.get(draftId);
    if (!draft || draft.status !== "approved" || this.stopped) return;

    const problem = approvalProblem(draft, this.options.reviewerIds);
    if (problem !== null) {
      await ledger.apply(draftId, { type: "halt", reason: `not sent: ${problem}` });
      return;
    }
    const halted = await this.haltProblem(draft);
    if (halted !== null) {
      await ledger.apply(draftId, { type: "halt", ...halted });
      return;
    }
    if (draft.destination !== null) return this.deliverOnChannel(draft, answered);
    if (!(await this.audienceAllows(draft))) return;
    const notAsOwner = await this.options.checkSender?.(draft, true);
    if (notAsOwner) return this.haltNotAsOwner(draftId, notAsOwner);
    // After an undo window, the send and the edit that ends its ↩️ Undo share one review-chat turn.
    const sendNow = () => this.sendNow(draftId);
    return draft.send_after !== null && ledger.inReviewTurn ? ledger.inReviewTurn(draftId, sendNow) : sendNow();
  }

  /** The intent on disk, the kill switch and the identity once more, the call, its outcome. */
  private async sendNow(draftId: string): Promise<void> {
    const { ledger } = this.options;
    const intent = await ledger.apply(draftId, { type: "send_intent" });
    if (!intent.ok) {
      // Approved in time, but the send could not start before expires_at: it expires, unsent.
      if (intent.reason === "expired") await ledger.apply(draftId, { type: "expire" });
      return;
    }

    const sending = intent.draft;
    // Two fsyncs happened since the last look: look again, immediately before the call.
    const haltedNow = await this.haltProblem(sending);
    if (haltedNow !== null) {
      await ledger.apply(draftId, { type: "halt", ...haltedNow });
      return;
    }
    // The owner's identity once more, from what the daemon knows (no network between intent and call).
    const notAsOwnerNow = await this.options.checkSender?.(sending, false);
    if (notAsOwnerNow) return this.haltNotAsOwner(draftId, notAsOwnerNow);
    const outcome = await this.options
      .call(sendTarget(sending))
      .catch((err: unknown) => ({ kind: "unknown" as const, reason: `unexpected error: ${(err as Error).message}` }));
    if (outcome.kind === "refused" && sending.sender?.kind === "owner" && /BUSINESS/.test(outcome.reason)) {
      this.attempts.delete(draftId);
      return this.haltNotAsOwner(draftId, businessRefusal(outcome.reason));
    }

    switch (outcome.kind) {
      case "ok":
        this.attempts.delete(draftId);
        await ledger.apply(draftId, { type: "send_ok", messageId: outcome.messageId });
        return;
      case "refused":
        this.attempts.delete(draftId);
        await ledger.apply(draftId, { type: "send_failed", reason: outcome.reason });
        return;
      case "unknown":
        this.attempts.delete(draftId);
        await ledger.apply(draftId, { type: "send_unknown", reason: outcome.reason });
        return;
      case "retry_after":
        this.options.limiter.pause(sending.destination_chat_id, outcome.seconds * 1000);
        await ledger.apply(draftId, { type: "send_retry", reason: outcome.reason });
        return this.retryLater(draftId, outcome.seconds * 1000);
      case "not_sent": {
        const tries = (this.attempts.get(draftId) ?? 0) + 1;
        this.attempts.set(draftId, tries);
        const max = this.options.maxNotSentAttempts ?? 5;
        if (tries >= max) {
          this.attempts.delete(draftId);
          await ledger.apply(draftId, { type: "send_failed", reason: `gave up after ${tries} attempts: ${outcome.reason}` });
          return;
        }
        await ledger.apply(draftId, { type: "send_retry", reason: outcome.reason });
        return this.retryLater(draftId, backoffMs(this.options.backoff ?? SEND_BACKOFF, tries));
      }
    }
  }

  /** Linear, email or Slack: the channel's own checks and call (channel-delivery.ts), in the review turn after an undo window. */
  private deliverOnChannel(draft: DraftRecord, answered?: () => void): Promise<void> {
    const { ledger } = this.options;
    if (this.delivery === null)
      return ledger
        .apply(draft.draft_id, {
          type: "halt",
          reason: `not sent: the ${draft.destination!.channel} channel is not configured on this daemon`,
        })
        .then(() => undefined);
    const inTurn = (work: () => Promise<void>) =>
      draft.send_after !== null && ledger.inReviewTurn ? ledger.inReviewTurn(draft.draft_id, work) : work();
    return this.delivery.attempt(draft, inTurn, answered);
  }

  /**
   * The owner's identity cannot send this draft: it is not sent by any other
   * identity. It becomes `halted` with the reason, and the reviewer is told
   * in a reply to the post that carries "🤖 Send as the bot instead" (a new
   * approval, judged on that message: see surfaces.ts).
   */
  private async haltNotAsOwner(draftId: string, problem: OwnerProblem): Promise<void> {
    const result = await this.options.ledger.apply(draftId, { type: "halt", reason: `not sent as you: ${problem.why}` });
    if (!result.ok) return;
    this.options.ledger.runEffects([{ type: "offer_as_bot", draftId, text: notSentAsOwnerNotice(problem, result.draft) }]);
  }

  /**
   * The destination resolved again (audience-check.ts); true when the draft
   * may go. A change halts it with the reason. When Telegram does not answer,
   * the draft is not sent: it is asked again on the audience backoff, then
   * halted (`audience could not be checked`) once that gives up. A new
   * approval starts a new window.
   */
  private async audienceAllows(draft: DraftRecord): Promise<boolean> {
    const { checkAudience, ledger } = this.options;
    const draftId = draft.draft_id;
    const verdict = (await checkAudience?.(draft)) ?? null;
    if (verdict === null || verdict.kind === "changed") this.unchecked.delete(draftId);
    if (verdict === null) return true;
    if (verdict.kind === "changed") {
      await ledger.apply(draftId, verdict.event);
      ledger.runEffects([{ type: "notify", draftId, text: verdict.notice }]);
      return false;
    }
    await this.audienceUnchecked(draft, "Telegram");
    return false;
  }

  /**
   * Who reads the destination could not be read at the send call (contract
   * v3: evidence that cannot be had fails closed; v5: on every channel): not
   * sent, asked again on the audience backoff, then `halted` with reason
   * `audience could not be checked` once that gives up, the reviewer told.
   */
  private async audienceUnchecked(draft: DraftRecord, service: string): Promise<void> {
    const { ledger, clock } = this.options;
    const draftId = draft.draft_id;
    const policy = this.options.audienceBackoff ?? AUDIENCE_CHECK_BACKOFF;
    const now = clock.now();
    const approvalAt = draft.approval?.at;
    const last = this.unchecked.get(draftId);
    const seen = last !== undefined && last.approvalAt === approvalAt ? last : { approvalAt, since: now, failures: 0 };
    const leftMs = (policy.giveUpAfterMs ?? Number.POSITIVE_INFINITY) - (now - seen.since);
    if (leftMs <= 0) {
      this.unchecked.delete(draftId);
      this.options.log.warn(
        { draft_id: draftId, failures: seen.failures + 1 },
        "audience could not be checked; the draft is halted, not sent",
      );
      const halted = await ledger.apply(draftId, { type: "halt", reason: AUDIENCE_UNCHECKED });
      if (halted.ok) ledger.runEffects([{ type: "notify", draftId, text: uncheckedNotice(service) }]);
      return;
    }
    const failures = seen.failures + 1;
    this.unchecked.set(draftId, { ...seen, failures });
    this.options.log.warn({ draft_id: draftId, failures }, `${service} did not answer the audience check; not sent, asked again later`);
    this.retryLater(draftId, Math.min(backoffMs(policy, failures), leftMs));
  }

  /**
   * Why the kill switch forbids this send now, or null: halted at this moment
   * (`lasting`: no 👍 is offered until it ends), or halted at any moment since
   * the approval (a halt voids the approvals made before it, even once lifted).
   */
  private haltProblem(draft: DraftRecord): Promise<{ reason: string; lasting: boolean } | null> {
    return approvalHalt(this.options.killSwitch, draft.approval?.at);
  }

  /**
   * The approval waits out UNDO_WINDOW on the injected clock, then the draft
   * goes through the whole guarded path (an undo meanwhile left it not
   * `approved`, so nothing is sent). After a restart `send_after` on disk
   * gives the rest of the window.
   */
  private sendAfterUndoWindow(draftId: string, ms: number): void {
    if (this.stopped) return;
    this.undoWaits.get(draftId)?.cancel();
    const { clock } = this.options;
    const handle = clock.setTimeout(() => {
      this.undoWaits.delete(draftId);
      this.options.ledger.runEffects([{ type: "send", draftId }]);
    }, ms);
    this.undoWaits.set(draftId, { cancel: () => clock.clearTimeout(handle) });
  }

  /** Waits on the injected clock, then goes through the whole guarded path again. */
  private retryLater(draftId: string, ms: number): void {
    if (this.stopped) return;
    const { clock } = this.options;
    const handle = clock.setTimeout(() => {
      this.waits.delete(wait);
      this.options.ledger.runEffects([{ type: "send", draftId }]);
    }, ms);
    const wait = { cancel: () => clock.clearTimeout(handle) };
    this.waits.add(wait);
  }
}

/**
 * What the reviewers are told when a draft cannot go out as the owner: why,
 * that nothing else happens by itself, what "🤖 Send as the bot instead" would
 * send (a reply or not), and what would let a 👍 send it as him (never a
 * retry that cannot work).
 */
export function notSentAsOwnerNotice(problem: OwnerProblem, draft: DraftRecord): string {
  const asBot = replyTarget({ ...draft, sender: { kind: "bot", username: null, why_not_owner: null } });
  const reply = asBot.kind === "dropped" ? `, not as a reply: ${droppedReplyText(asBot.message_id)}` : "";
  return (
    `⛔ Not sent as you: ${problem.why}. Nothing went out, and it is not sent as anyone else by itself. ` +
    `Tap “🤖 Send as the bot instead” below to send it from the bot (a new approval${reply}). ` +
    (problem.until === null
      ? "It cannot go as you from this post (a new draft can)."
      : `A 👍 on the post can send it as you only once ${problem.until}.`)
  );
}

/** Telegram refused a send through the business connection: why, and what would let it go. */
function businessRefusal(reason: string): OwnerProblem {
  const why = `Telegram refused to send as you (${reason})`;
  if (/PEER_INVALID/.test(reason))
    return { why, until: "the person writes to you again (Telegram allows it within 24 h of their message)" };
  if (/MISSING/.test(reason)) return { why, until: "you let the bot reply to messages (Settings → Telegram Business → Chatbots)" };
  if (/NOT_ALLOWED/.test(reason)) return { why, until: "you resume the connection (Settings → Telegram Business → Chatbots)" };
  return { why, until: "the same connection works again (a new connection needs a new draft)" };
}

/**
 * Where and how a draft goes: as the owner through his connection, or as the
 * bot; it replies exactly as replyTarget says, which is what its post showed
 * (and what its approval bound, in sendIdentity). A reply the daemon did not
 * see must find its message: Telegram refuses the send rather than deliver a
 * plain message the post did not show.
 */
function sendTarget(d: DraftRecord): Parameters<SendMessageCall>[0] {
  const reply = replyTarget(d);
  return {
    chatId: d.destination_chat_id,
    threadId: d.destination_thread_id,
    text: d.draft_text,
    businessConnectionId: d.sender?.kind === "owner" ? d.sender.connection_id : null,
    replyToMessageId: reply.kind === "reply" ? reply.message_id : null,
    replyRequired: reply.kind === "reply" && !reply.seen,
  };
}
