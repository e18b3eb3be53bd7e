import type { Clock } from "../clock/clock.js";
import { awaitsUndoShown } from "../drafts/undo-window.js";
import type { DraftRecord } from "../drafts/record.js";
import type { OwnerProblem } from "../drafts/sender-choice.js";
import { AUDIENCE_CHECK_BACKOFF, backoffMs, type Backoff } from "../retry/backoff.js";
import type { ChannelSet } from "../channels/channel-set.js";
import { approvalProblem } from "./approval.js";
import type { AudienceCheck } from "./audience-check.js";
import { ChannelDelivery } from "./channel-delivery.js";
import type { DeliveryHooks, DraftDelivery, DraftLedger } from "./delivery.js";
import { approvalHalt, type HaltSighting } from "./halt-watch.js";
import type { KillSwitch } from "./kill-switch.js";
import type { DestinationLimiter } from "./limiter.js";
import type { SendMessageCall } from "../channels/telegram/send-call.js";
import { TelegramChannel } from "../channels/telegram/telegram-channel.js";
import { TelegramDelivery } from "./telegram-delivery.js";
import { traceStep } from "../log/latency-trace.js";

export type { DraftLedger } from "./delivery.js";

/** The halt reason of a draft whose destination Telegram would not describe at the send call (the contract's words). */
export const AUDIENCE_UNCHECKED = "audience could not be checked";

/** What the reviewer is told when the audience check gave up (`service`: who did not answer, "Telegram", "Slack", ...). */
const uncheckedNotice = (service: string) =>
  `⛔ Not sent: the audience could not be checked (${service} did not answer who is in the destination for a minute). Nothing went out. 👍 again to try again.`;

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
  /** AUDIENCE_CONFIRM_OVER, for their reader counts at the send (Telegram's is in `checkAudience`); absent: none. */
  readonly audienceConfirmOver?: number | null;
}

/**
 * The only code that sends a draft to its destination, on every channel. At
 * the moment of the call it checks again what is the same everywhere: the
 * draft is approved, by a reviewer, for exactly this text, and the kill switch
 * is off; then the draft's channel delivery (delivery.ts: Telegram's in
 * telegram-delivery.ts, Linear's, email's and Slack's in channel-delivery.ts)
 * checks who reads it, records the `sending` intent on disk before calling
 * and the outcome after. What may have reached its destination is never sent
 * again. The undo window's wait, retries and the audience backoff are here,
 * one for all channels.
 */
export class SendPath {
  /** Per draft, since when (for which approval) its audience could not be read at the send, and how often. */
  private readonly unchecked = new Map<string, { approvalAt: string | undefined; since: number; failures: number }>();
  private readonly waits = new Set<{ cancel(): void }>();
  /** One timer per draft waiting out UNDO_WINDOW (a new approval replaces the old timer). */
  private readonly undoWaits = new Map<string, { cancel(): void }>();
  private stopped = false;
  /** Sends to Telegram chats. */
  private readonly telegram: DraftDelivery;
  /** Sends to Linear, email and Slack: the configured channels, or a halt that says none is. */
  private readonly others: DraftDelivery;

  constructor(private readonly options: SendPathOptions) {
    const hooks: DeliveryHooks = {
      ledger: options.ledger,
      log: options.log,
      haltProblem: (d) => this.haltProblem(d),
      pause: (key, ms) => options.limiter.pause(key, ms),
      retryLater: (id, ms) => this.retryLater(id, ms),
      unchecked: (d, service) => this.audienceUnchecked(d, service),
      checked: (id) => void this.unchecked.delete(id),
    };
    const retry = { ...(options.backoff ? { backoff: options.backoff } : {}), maxNotSentAttempts: options.maxNotSentAttempts ?? 5 };
    this.telegram = new TelegramDelivery({
      ...hooks,
      ...retry,
      channel: new TelegramChannel({
        call: options.call,
        now: () => options.clock.now(),
        confirmOver: options.audienceConfirmOver ?? null,
      }),
      ...(options.checkAudience ? { checkAudience: options.checkAudience } : {}),
      ...(options.checkSender ? { checkSender: options.checkSender } : {}),
    });
    const channels = options.channels ?? null;
    this.others =
      channels === null
        ? notConfigured(options.ledger)
        : new ChannelDelivery({
            ...hooks,
            ...retry,
            pause: (key, ms) => (options.channelLimiter ?? options.limiter).pause(key, ms),
            channels,
            now: () => options.clock.now(),
            confirmOver: options.audienceConfirmOver ?? null,
          });
  }

  /** Sends an approved draft when its destination has a free slot. Never throws. */
  async send(draftId: string): Promise<void> {
    traceStep("6 send effect");
    const draft = this.options.ledger.get(draftId);
    // A send found under way with no call running here is looked for where its channel can say, never repeated blindly.
    const lost = draft?.status === "sending" && !this.stopped ? this.deliveryOf(draft) : null;
    if (draft && lost?.findLost) return lost.findLost(draft);
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

  /** Telegram's delivery, or the other channels'. */
  private deliveryOf(draft: DraftRecord): DraftDelivery {
    return draft.destination === null ? this.telegram : this.others;
  }

  /**
   * What is the same on every channel, at the moment of the call: the draft approved, by a reviewer,
   * for this text, and no halt since the approval; then its channel's delivery does the rest, in the
   * review chat's turn after an undo window. `answered`: the limiter's, told when the call was answered.
   */
  private async attempt(draftId: string, answered?: () => void): Promise<void> {
    traceStep("7 limiter ran");
    const { ledger } = this.options;
    const draft = ledger.get(draftId);
    if (!draft || draft.status !== "approved" || this.stopped) return;

    const problem = approvalProblem(draft, this.options.reviewerIds);
    if (problem !== null) {
      await ledger.apply(draftId, { type: "halt", reason: `not sent: ${problem}` });
      return;
    }
    const halted = await this.haltProblem(draft);
    traceStep("7.1 kill switch read");
    if (halted !== null) {
      await ledger.apply(draftId, { type: "halt", ...halted });
      return;
    }
    // After an undo window, the delivery and the edit that ends its ↩️ Undo share one review-chat turn. The whole
    // delivery, its reads of who reads the destination and as whom included: what they read is what the call meets,
    // however long the turn took to come (a read made before the wait could be seconds old at the call).
    const deliver = async (): Promise<void> => {
      const now = ledger.get(draftId);
      if (now?.status === "approved" && !this.stopped) await this.deliveryOf(now).attempt(now, answered);
    };
    return draft.send_after !== null && ledger.inReviewTurn ? ledger.inReviewTurn(draftId, deliver) : deliver();
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

/** A draft to Linear, email or Slack on a daemon where no such channel is configured: halted, never sent elsewhere. */
function notConfigured(ledger: DraftLedger): DraftDelivery {
  return {
    async attempt(draft) {
      await ledger.apply(draft.draft_id, {
        type: "halt",
        reason: `not sent: the ${draft.destination!.channel} channel is not configured on this daemon`,
      });
    },
  };
}
