import type { BotCommand, InlineKeyboardMarkup, Message } from "grammy/types";
import type { BusinessConnectionState } from "../business.js";
import type { Params } from "../params.js";
import type { RateLimiter } from "../rate-limit.js";
import type { AnsweredCallback, SentMessage, SentPhoto, ShownVersion } from "../types.js";
import type { UpdateQueue } from "../updates.js";
import type { World } from "../world.js";

/** Everything the method handlers read and change. */
export interface DoubleState {
  world: World;
  updates: UpdateQueue;
  /** Every accepted sendMessage, in order. */
  sent: SentMessage[];
  /** Every accepted sendMessage and edit, in order: what each message showed from when (see ShownVersion). */
  shown: ShownVersion[];
  /** Every accepted sendPhoto, in order. */
  photos: SentPhoto[];
  answered: AnsweredCallback[];
  /** Callback query ids injected and not yet answered. */
  openCallbacks: Set<string>;
  /** setMyCommands lists by scope and language. */
  commands: Map<string, BotCommand[]>;
  /** Present when rate limits are on. */
  limiter: RateLimiter | undefined;
  /** Telegram Business connections by id (business.ts). */
  business: Map<string, BusinessConnectionState>;
}

/**
 * One Bot API method: returns the `result` (or a promise of it) or throws an
 * `ApiError`. `signal` aborts when the client goes away.
 */
/** Records that `message` shows what it now holds, from now on (a send or an edit Telegram accepted). */
export function noteShown(state: DoubleState, chatId: number, message: Message, method: ShownVersion["method"]): void {
  const markup = message.reply_markup as InlineKeyboardMarkup | undefined;
  const text = "text" in message ? message.text : undefined;
  const entities = "entities" in message ? message.entities : undefined;
  state.shown.push({ chatId, messageId: message.message_id, method, at: Date.now(), text, entities, replyMarkup: markup });
}

export type Handler = (params: Params, state: DoubleState, signal: AbortSignal) => unknown;
