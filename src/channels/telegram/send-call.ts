/**
 * What one sendMessage call came to, as the send path's retry policy needs it.
 * The Telegram edge turns HTTP answers and network errors into one of these;
 * the policy lives in one place (the send path), not at call sites.
 */
export type SendCallOutcome =
  /** Telegram accepted the message. */
  | { readonly kind: "ok"; readonly messageId: number }
  /** Telegram refused it for good (400, 401, 403, ...): it was not sent. */
  | { readonly kind: "refused"; readonly reason: string }
  /** 429: not sent; Telegram asks us to wait this many seconds. */
  | { readonly kind: "retry_after"; readonly seconds: number; readonly reason: string }
  /** The request cannot have reached Telegram (connection refused, DNS): not sent. */
  | { readonly kind: "not_sent"; readonly reason: string }
  /** The request may have reached Telegram (timeout, reset after sending, 5xx): nobody knows. */
  | { readonly kind: "unknown"; readonly reason: string };

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
