/**
 * Telegram as one channel among four, in the one shape every channel has
 * (src/channels/channel.ts): who the daemon speaks as, who reads a chat, the
 * one send call and what it came to in the words every channel uses, where
 * a sent message is, that a lost answer cannot be looked up, and the key of
 * its rate limit. Its I/O is passed in (grammY's calls live in src/telegram).
 *
 * What only Telegram has rides in its target, not in the shape: the owner's
 * voice (his business connection) and the message a draft answers. The
 * review-chat turn a send waits for and the richer audience record of
 * contract v3 (re-checked at the send by src/send/audience-check.ts, with
 * the growth an approval covers) stay in its delivery,
 * src/send/telegram-delivery.ts.
 */
import { z } from "zod";
import { type Audience, audienceUnknown, needsConfirmation } from "../../drafts/audience.js";
import { TELEGRAM_TEXT_LIMIT } from "../../drafts/payload.js";
import {
  AUDIENCE_UNREADABLE,
  type Channel,
  type ChannelAudience,
  type ChannelIdentity,
  type ChannelSendOutcome,
  type LostSendLookup,
  type SendReference,
} from "../channel.js";
import type { SendMessageCall } from "./send-call.js";

/** Where and how one Telegram send goes: the chat and topic, and what only Telegram has (the owner's voice, a reply). */
export const telegramTargetSchema = z.strictObject({
  channel: z.literal("telegram"),
  chat_id: z.string(),
  thread_id: z.number().int().positive().nullable(),
  /** Sends as the owner through this Telegram Business connection; null: as the bot. */
  business_connection_id: z.string().nullable(),
  /** The message in the chat this one answers; null: none. */
  reply_to_message_id: z.number().int().positive().nullable(),
  /** True: Telegram refuses the send when that message is gone (a message the daemon never saw). */
  reply_required: z.boolean(),
});

/** Where and how one Telegram send goes (telegramTargetSchema). */
export type TelegramTarget = z.infer<typeof telegramTargetSchema>;

/** What the Telegram channel is made from: its calls, made by src/telegram. */
export interface TelegramChannelPorts {
  /** The one sendMessage call (src/telegram/send-call.ts): plain text, never retried by itself. */
  readonly call: SendMessageCall;
  /** getMe: the bot; rejects with Telegram's error code when it refuses the token. */
  readonly getMe?: () => Promise<{ readonly username?: string | undefined }>;
  /** Resolves the chat (getChat and its member count), as the review post shows it. */
  readonly resolve?: (chatId: string, threadId: number | null) => Promise<Audience>;
  /** AUDIENCE_CONFIRM_OVER: a 👍 for a group of more members than this needs one more tap; null: never. */
  readonly confirmOver?: number | null;
  readonly now: () => number;
}

/** The Telegram channel (see the file's comment). */
export class TelegramChannel implements Channel<TelegramTarget> {
  readonly name = "telegram" as const;
  readonly maxLength = TELEGRAM_TEXT_LIMIT;
  readonly destinationSchema = telegramTargetSchema;

  constructor(private readonly ports: TelegramChannelPorts) {}

  /** The bot the daemon speaks as (the owner's voice is proven per draft, by his business connection). */
  async whoAmI(): Promise<ChannelIdentity> {
    if (this.ports.getMe === undefined) return { ok: false, credentialsRefused: false, reason: "no getMe call was given" };
    try {
      const me = await this.ports.getMe();
      return { ok: true, speaksAs: me.username ? `@${me.username}` : "the bot" };
    } catch (err) {
      const code = (err as { error_code?: unknown }).error_code;
      return { ok: false, credentialsRefused: code === 401 || code === 404, reason: (err as Error).message };
    }
  }

  /** Who reads the chat, as Telegram says; unreadable (the extra tap) when it cannot be asked or does not answer. */
  async readAudience(target: TelegramTarget, _text: string): Promise<ChannelAudience> {
    const checkedAt = new Date(this.ports.now()).toISOString();
    const unreadable = (why: string): ChannelAudience => ({
      channel: "telegram",
      readerCount: null,
      lines: [`⚠️ ${AUDIENCE_UNREADABLE}: ${why}`],
      confirmReasons: [AUDIENCE_UNREADABLE],
      problem: null,
      fingerprint: `unreadable:${why}`,
      checkedAt,
    });
    if (this.ports.resolve === undefined) return unreadable("no getChat call was given");
    let a: Audience;
    try {
      a = await this.ports.resolve(target.chat_id, target.thread_id);
    } catch (err) {
      return unreadable((err as Error).message);
    }
    if (audienceUnknown(a)) return unreadable(a.problem ?? "Telegram did not say who reads the chat");
    const readerCount = a.kind === "private" ? 1 : a.member_count;
    const confirmOver = this.ports.confirmOver ?? null;
    return {
      channel: "telegram",
      readerCount,
      lines: [audienceWords(a, readerCount)],
      confirmReasons: needsConfirmation(a, confirmOver) ? [`${readerCount} members, over AUDIENCE_CONFIRM_OVER (${confirmOver})`] : [],
      problem: a.problem,
      fingerprint: JSON.stringify([a.chat_id, a.kind, a.username, readerCount, a.can_post]),
      checkedAt,
    };
  }

  /** One sendMessage; its outcome in every channel's words, a message that went found again by chat and message id. */
  async send(target: TelegramTarget, text: string, _reference: SendReference): Promise<ChannelSendOutcome> {
    const outcome = await this.ports
      .call({
        chatId: target.chat_id,
        threadId: target.thread_id,
        text,
        businessConnectionId: target.business_connection_id,
        replyToMessageId: target.reply_to_message_id,
        replyRequired: target.reply_required,
      })
      .catch((err: unknown) => ({ kind: "unknown" as const, reason: `unexpected error: ${(err as Error).message}` }));
    if (outcome.kind !== "ok") return outcome;
    return { kind: "ok", sentRef: { chat_id: target.chat_id, message_id: outcome.messageId } };
  }

  /** Telegram has no call that finds a message by what it carries: a send whose answer was lost stays unknown, never resent. */
  async findSent(_target: TelegramTarget, _reference: SendReference): Promise<LostSendLookup> {
    return { kind: "unknown", reason: "Telegram has no way to look a sent message up; check the chat" };
  }

  /** Telegram's limits count per chat (one message a second in a person's chat, 20 a minute in a group). */
  rateKey(target: TelegramTarget): string {
    return target.chat_id;
  }
}

/** The chat in words, for the lines a channel's audience carries: its title, its kind, how many read it. */
function audienceWords(a: Audience, readers: number | null): string {
  const name = a.title ?? a.chat_id;
  const open = a.username !== null && a.kind !== "private" ? `, public (@${a.username})` : "";
  const count = readers === null ? "" : ` · ${readers} ${readers === 1 ? "reader" : "members"}`;
  return `${name} · ${a.kind}${open}${count}`;
}
