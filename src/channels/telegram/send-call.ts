import type { ChannelSendOutcome } from "../channel.js";

/**
 * What one sendMessage call came to: every channel's outcome (refused for good, 429 with its wait, provably
 * not sent, unknown), except that Telegram's acceptance carries the message id. The Telegram edge
 * (src/telegram/classify.ts) turns HTTP answers and network errors into one of these.
 */
export type SendCallOutcome =
  /** Telegram accepted the message. */
  { readonly kind: "ok"; readonly messageId: number } | Exclude<ChannelSendOutcome, { readonly kind: "ok" }>;

/** The one function that puts a draft's text on the wire to its destination. */
export type SendMessageCall = (target: {
  readonly chatId: string;
  readonly threadId: number | null;
  readonly text: string;
  /** Sends as the owner through this Telegram Business connection; absent or null: as the bot. */
  readonly businessConnectionId?: string | null;
  /** The message in the destination chat this one answers (sent as a reply). */
  readonly replyToMessageId?: number | null;
  /** True: Telegram refuses the send when that message is not there; otherwise it goes as a plain message. */
  readonly replyRequired?: boolean;
}) => Promise<SendCallOutcome>;
