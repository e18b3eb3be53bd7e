import { isFanOut } from "../drafts/fan-out.js";
import { randomUUID } from "node:crypto";
import type { ChannelSet } from "../channels/channel-set.js";
import { AUDIENCE_UNREADABLE, type ChannelSendOutcome, type SendReference } from "../channels/channel.js";
import type { OtherChannelName } from "../drafts/destination.js";
import { readerGrowth } from "../drafts/audience.js";
import type { DraftRecord } from "../drafts/record.js";
import { backoffMs, SEND_BACKOFF, type Backoff } from "../retry/backoff.js";
import { NotSentRetries, settleUndelivered, type DeliveryHooks, type DraftDelivery } from "./delivery.js";

/** Why a send found under way at start is looked for. */
const STOPPED_DURING_SEND = "the daemon stopped during the send";

/** How the channel names itself on the post. */
const CHANNEL_WORD: Readonly<Record<OtherChannelName, string>> = { linear: "Linear", email: "the SMTP server", slack: "Slack" };
/** Who is asked who reads a destination on each channel. */
const CHANNEL_SERVICE: Readonly<Record<OtherChannelName, string>> = { linear: "Linear", email: "the email channel", slack: "Slack" };

/** What a delivery on another channel needs besides the hooks every delivery shares. */
export interface ChannelDeliveryOptions extends DeliveryHooks {
  readonly channels: ChannelSet;
  readonly now: () => number;
  /** AUDIENCE_CONFIRM_OVER: a reader count that grows past it since the approval halts the send (readerGrowth). */
  readonly confirmOver: number | null;
  readonly backoff?: Backoff;
  /** How often an error that proves the message was not sent may be retried. */
  readonly maxNotSentAttempts: number;
}

/**
 * The send of a draft to Linear, email or Slack (contract v5), behind the
 * same guards as Telegram's (the send path checked the approval and the kill
 * switch before this): the channel not halted for its credentials, the
 * audience read again and compared with what the approval bound, the intent
 * on disk with the reference chosen before the call, the switch once more,
 * one call, and its outcome. A lost answer is looked for (Linear by the
 * comment's id, Slack by the message's metadata); what cannot be found
 * (email) ends `outcome_unknown` and is never sent again by itself.
 */
export class ChannelDelivery implements DraftDelivery {
  private readonly retries: NotSentRetries;
  /** Drafts whose send call or lookup runs in this process: a `send` effect for them finds nothing to do. */
  private readonly inFlight = new Set<string>();

  constructor(private readonly options: ChannelDeliveryOptions) {
    this.retries = new NotSentRetries({ ...options, max: options.maxNotSentAttempts });
  }

  /**
   * Goes on from an approved draft whose approval and switch were checked:
   * everything else, then the call. `answered` tells the limiter the service
   * answered the call, so its window counts from then, not from after the
   * outcome's fsync (a lost answer never says so: its request may still arrive).
   */
  async attempt(draft: DraftRecord, answered?: () => void): Promise<void> {
    const { ledger } = this.options;
    const name = draft.destination!.channel;
    const halted = this.options.channels.haltedWhy(name);
    if (halted !== null) {
      await ledger.apply(draft.draft_id, {
        type: "halt",
        reason: `not sent: ${CHANNEL_WORD[name]} refused the daemon's credentials (${halted}); fix them and restart the daemon, then 👍 again`,
      });
      return;
    }
    if (this.options.channels.get(name) === undefined) {
      await ledger.apply(draft.draft_id, { type: "halt", reason: `not sent: the ${name} channel is no longer configured on this daemon` });
      return;
    }
    if (!(await this.audienceUnchanged(draft))) return;
    return this.sendNow(draft.draft_id, draft.chosen, answered);
  }

  /** True while a send or lookup of this draft runs here. */
  busy(draftId: string): boolean {
    return this.inFlight.has(draftId);
  }

  /**
   * A draft found `sending` with no call running here (a crash, or a stop
   * mid-send): the channel is asked whether the message is there. Found: sent.
   * Absent: it was not sent, and goes through the whole guarded path again.
   * Unknown: `outcome_unknown`, never sent again by itself.
   */
  async findLost(draft: DraftRecord): Promise<void> {
    if (this.inFlight.has(draft.draft_id)) return;
    this.inFlight.add(draft.draft_id);
    try {
      await this.settleLost(draft.draft_id, STOPPED_DURING_SEND);
    } finally {
      this.inFlight.delete(draft.draft_id);
    }
  }

  /**
   * The audience read again; a change halts the draft with the new audience
   * shown for a new 👍. One that cannot be read is no evidence (contract v3,
   * for every channel in v5), even if it could not be read when approved
   * either: not sent, asked again, then halted.
   */
  private async audienceUnchanged(draft: DraftRecord): Promise<boolean> {
    const fresh = await this.options.channels.readAudience(draft.destination!, draft.draft_text, this.options.now);
    if (fresh.confirm_reasons.includes(AUDIENCE_UNREADABLE)) {
      await this.options.unchecked(draft, CHANNEL_SERVICE[draft.destination!.channel]);
      return false;
    }
    this.options.checked(draft.draft_id);
    const shown = draft.channel_audience;
    const grew = readerGrowth(shown?.reader_count ?? null, fresh.reader_count, this.options.confirmOver);
    if (fresh.fingerprint === shown?.fingerprint && grew === null) return true;
    const was = shown?.lines.join("; ") ?? "not read";
    const reason = `the audience changed since the approval${grew === null ? "" : ` (${grew})`} (it showed: ${was})`;
    await this.options.ledger.apply(draft.draft_id, { type: "halt", reason, channelAudience: fresh });
    this.options.ledger.runEffects([
      {
        type: "notify",
        draftId: draft.draft_id,
        text: `⛔ Not sent: ${reason}. Nothing went out. Look at who will read it now (the post above), then 👍 again to send.`,
      },
    ]);
    return false;
  }

  /**
   * The intent, the switch again, the call, the outcome; marked in flight from before the intent, so no lookup runs
   * meanwhile. `delivery`: the one of several the checks were for (the intent is refused if the draft moved on).
   */
  private async sendNow(draftId: string, delivery: number | null, answered?: () => void): Promise<void> {
    if (this.inFlight.has(draftId)) return;
    this.inFlight.add(draftId);
    try {
      await this.intentAndCall(draftId, delivery, answered);
    } finally {
      this.inFlight.delete(draftId);
    }
    // Sent to several at once: the next delivery's `send` may have come while this one was still in flight here.
    const after = this.options.ledger.get(draftId);
    if (after && isFanOut(after) && after.status === "approved" && after.chosen !== delivery) this.options.retryLater(draftId, 0);
  }

  private async intentAndCall(draftId: string, delivery: number | null, answered?: () => void): Promise<void> {
    const { ledger } = this.options;
    const intent = await ledger.apply(draftId, { type: "send_intent", reference: randomUUID(), delivery });
    if (!intent.ok) {
      if (intent.reason === "expired") await ledger.apply(draftId, { type: "expire" });
      return;
    }
    const sending = intent.draft;
    const haltedNow = await this.options.haltProblem(sending);
    if (haltedNow !== null) {
      await ledger.apply(draftId, { type: "halt", ...haltedNow });
      return;
    }
    const outcome = await this.call(sending);
    if (outcome.kind !== "unknown") answered?.();
    await this.settle(sending, outcome);
  }

  /** The one call. Never throws: a channel that throws is a send whose outcome nobody knows. */
  private async call(d: DraftRecord): Promise<ChannelSendOutcome> {
    const channel = this.options.channels.get(d.destination!.channel)!;
    try {
      return await channel.send(channel.destinationSchema.parse(d.destination), d.draft_text, referenceOf(d));
    } catch (err) {
      return { kind: "unknown", reason: `unexpected error: ${(err as Error).message}` };
    }
  }

  private async settle(d: DraftRecord, outcome: ChannelSendOutcome): Promise<void> {
    const { ledger } = this.options;
    const draftId = d.draft_id;
    switch (outcome.kind) {
      case "ok":
        this.retries.forget(draftId);
        await ledger.apply(draftId, { type: "send_ok", messageId: null, sentRef: { ...outcome.sentRef } });
        return;
      case "unknown":
        return this.settleLost(draftId, outcome.reason);
      default:
        // The limiter's key is the draft's destination label (destination-payload.ts): the conversation, the mailbox.
        return settleUndelivered(this.options, this.retries, draftId, d.destination_chat_id, outcome);
    }
  }

  /** The answer was lost (or the daemon stopped mid-send): look for the message before anything else. */
  private async settleLost(draftId: string, why: string): Promise<void> {
    const { ledger } = this.options;
    const d = ledger.get(draftId);
    if (!d || d.status !== "sending" || d.destination === null) return;
    const channel = this.options.channels.get(d.destination.channel);
    const lookup = channel
      ? await channel
          .findSent(channel.destinationSchema.parse(d.destination), referenceOf(d))
          .catch((err: unknown) => ({ kind: "unknown" as const, reason: (err as Error).message }))
      : { kind: "unknown" as const, reason: "the channel is no longer configured" };
    this.retries.forget(draftId);
    if (lookup.kind === "found") {
      await ledger.apply(draftId, { type: "send_ok", messageId: null, sentRef: { ...lookup.sentRef } });
      return;
    }
    if (lookup.kind === "absent") {
      this.options.log.warn({ draft_id: draftId, why }, "a send's answer was lost and the message is not there; sending again");
      await ledger.apply(draftId, { type: "send_retry", reason: `${why}; the message is not there, so it is sent again` });
      this.options.retryLater(draftId, backoffMs(this.options.backoff ?? SEND_BACKOFF, 1));
      return;
    }
    // Email cannot be asked: the send's own reason already names its Message-ID and what to do.
    const reason = d.destination.channel === "email" && why !== STOPPED_DURING_SEND ? why : `${why}${referenceText(d)}; ${lookup.reason}`;
    await ledger.apply(draftId, { type: "send_unknown", reason });
  }
}

/** The reference the intent recorded, as the channel is given it. */
function referenceOf(d: DraftRecord): SendReference {
  return { draftId: d.draft_id, delivery: 1, reference: d.send_reference ?? d.draft_id };
}

/** For the owner: what to look for (the email's Message-ID is built from the reference). */
function referenceText(d: DraftRecord): string {
  return d.send_reference === null ? "" : ` (send reference ${d.send_reference})`;
}
