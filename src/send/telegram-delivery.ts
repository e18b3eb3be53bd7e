import { droppedReplyText } from "../business/sender-text.js";
import { replyTarget } from "../drafts/reply-target.js";
import type { DraftRecord } from "../drafts/record.js";
import type { OwnerProblem } from "../drafts/sender-choice.js";
import type { Backoff } from "../retry/backoff.js";
import type { AudienceCheck } from "./audience-check.js";
import { NotSentRetries, settleUndelivered, type DeliveryHooks, type DraftDelivery } from "./delivery.js";
import type { TelegramChannel, TelegramTarget } from "../channels/telegram/telegram-channel.js";
import { traceStep } from "../log/latency-trace.js";

/** What Telegram's delivery needs besides the hooks every delivery shares. */
export interface TelegramDeliveryOptions extends DeliveryHooks {
  /** Telegram in the one shape of a channel: the call, its outcome, its rate key (src/channels/telegram). */
  readonly channel: TelegramChannel;
  /** Resolves the destination again before the call (audience-check.ts); absent: not checked. */
  readonly checkAudience?: AudienceCheck;
  /**
   * Why a draft approved to go out as the owner cannot go now (the connection is not the owner's
   * or not the one approved, its can_reply right, the 24 h window), with what would let it, or
   * null; `fresh` asks Telegram first. Absent: no check.
   */
  readonly checkSender?: (draft: DraftRecord, fresh: boolean) => Promise<OwnerProblem | null>;
  readonly backoff?: Backoff;
  /** How often an error that proves the message was not sent may be retried. */
  readonly maxNotSentAttempts: number;
}

/**
 * The send of a draft to a Telegram chat, after the send path checked the
 * approval and the kill switch: who reads the chat resolved again and compared
 * with what the approval bound, the owner's identity where it goes as him,
 * the intent on disk, the switch and the identity once more, one sendMessage,
 * and its outcome. Telegram has no way to look a message up: a send whose
 * answer was lost ends `outcome_unknown` and is never sent again by itself.
 */
export class TelegramDelivery implements DraftDelivery {
  private readonly retries: NotSentRetries;

  constructor(private readonly options: TelegramDeliveryOptions) {
    this.retries = new NotSentRetries({ ...options, max: options.maxNotSentAttempts });
  }

  async attempt(draft: DraftRecord): Promise<void> {
    // Both are reads (Telegram asked where need be): made at once, judged in this order.
    const sender = this.options.checkSender?.(draft, true) ?? Promise.resolve(null);
    sender.catch(() => {});
    if (!(await this.audienceAllows(draft))) return;
    traceStep("7.2 audience checked");
    const notAsOwner = await sender;
    traceStep("7.3 sender checked");
    if (notAsOwner) return this.haltNotAsOwner(draft.draft_id, notAsOwner);
    return this.sendNow(draft.draft_id, draft.chosen);
  }

  /**
   * The intent on disk, the kill switch and the identity once more, the call, its outcome. `delivery`: the one of
   * several the checks above were for (the intent is refused if the draft moved on to another: never sent unchecked).
   */
  private async sendNow(draftId: string, delivery: number | null): Promise<void> {
    const { ledger } = this.options;
    traceStep("8 checks done");
    const intent = await ledger.apply(draftId, { type: "send_intent", delivery });
    traceStep("9 intent durable");
    if (!intent.ok) {
      // Approved in time, but the send could not start before expires_at: it expires, unsent.
      if (intent.reason === "expired") await ledger.apply(draftId, { type: "expire" });
      return;
    }
    const sending = intent.draft;
    // Two fsyncs happened since the last look: look again, immediately before the call.
    // The owner's identity once more, from what the daemon knows (no network between intent and call), read with the switch.
    const senderNow = this.options.checkSender?.(sending, false) ?? Promise.resolve(null);
    senderNow.catch(() => {});
    const haltedNow = await this.options.haltProblem(sending);
    traceStep("9.1 kill switch read again");
    if (haltedNow !== null) {
      await ledger.apply(draftId, { type: "halt", ...haltedNow });
      return;
    }
    const notAsOwnerNow = await senderNow;
    if (notAsOwnerNow) return this.haltNotAsOwner(draftId, notAsOwnerNow);
    traceStep("10 call");
    const { channel } = this.options;
    const target = sendTarget(sending);
    const outcome = await channel.send(target, sending.draft_text, { draftId, delivery: sending.chosen ?? 1, reference: draftId });
    if (outcome.kind === "refused" && sending.sender?.kind === "owner" && /BUSINESS/.test(outcome.reason)) {
      this.retries.forget(draftId);
      return this.haltNotAsOwner(draftId, businessRefusal(outcome.reason));
    }
    switch (outcome.kind) {
      case "ok":
        this.retries.forget(draftId);
        await ledger.apply(draftId, { type: "send_ok", messageId: Number(outcome.sentRef.message_id) });
        return;
      case "unknown":
        this.retries.forget(draftId);
        await ledger.apply(draftId, { type: "send_unknown", reason: outcome.reason });
        return;
      default:
        return settleUndelivered(this.options, this.retries, draftId, channel.rateKey(target), outcome);
    }
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
    const verdict = (await checkAudience?.(draft)) ?? null;
    if (verdict === null || verdict.kind === "changed") this.options.checked(draft.draft_id);
    if (verdict === null) return true;
    if (verdict.kind === "changed") {
      await ledger.apply(draft.draft_id, verdict.event);
      ledger.runEffects([{ type: "notify", draftId: draft.draft_id, text: verdict.notice }]);
      return false;
    }
    await this.options.unchecked(draft, "Telegram");
    return false;
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
function sendTarget(d: DraftRecord): TelegramTarget {
  const reply = replyTarget(d);
  return {
    channel: "telegram",
    chat_id: d.destination_chat_id,
    thread_id: d.destination_thread_id,
    business_connection_id: d.sender?.kind === "owner" ? d.sender.connection_id : null,
    reply_to_message_id: reply.kind === "reply" ? reply.message_id : null,
    reply_required: reply.kind === "reply" && !reply.seen,
  };
}
