import { Api } from "grammy";
import type { Clock } from "../../src/clock/clock.js";
import { TelegramReviewChat, type TelegramReviewChatOptions } from "../../src/telegram/review-chat.js";
import { reviewChatLimits } from "../../src/telegram/review-lane.js";
import type { TelegramDouble } from "../telegram-double/index.js";

/**
 * A TelegramReviewChat over the Bot API double, as run.ts makes one: paced
 * for `chatId`'s kind, deferrals of 24 h, times in UTC, a quiet log.
 * `options` changes what a test needs (its pace, its time zone).
 */
export function reviewChatOnDouble(
  double: TelegramDouble,
  chatId: string,
  clock: Clock,
  options: Partial<TelegramReviewChatOptions> = {},
): TelegramReviewChat {
  return new TelegramReviewChat({
    api: new Api(double.token, { apiRoot: double.url }),
    chatId,
    threadId: null,
    deferForMs: 86_400_000,
    clock,
    log: { warn() {} },
    limits: reviewChatLimits(chatId),
    timeZone: "UTC",
    ...options,
  });
}
