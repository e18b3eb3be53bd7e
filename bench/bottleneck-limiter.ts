/**
 * The benchmark's baseline limiter: Bottleneck, as the daemon first used it.
 * It lives here, not in src/, because only `npm run bench` runs it.
 */
import Bottleneck from "bottleneck";
import { isGroupChat, type DestinationLimiter } from "../src/send/limiter.js";

/** Telegram's documented limits for bots, in one place. */
export interface TelegramLimits {
  /** Minimum gap between messages to one private chat (about 1 per second). */
  readonly privateChatGapMs: number;
  /** Minimum gap between messages to one group (20 per minute). */
  readonly groupGapMs: number;
  /** Overall messages per second across all chats (30). */
  readonly globalPerSecond: number;
}

/** Telegram's limits as its FAQ states them. */
export const TELEGRAM_LIMITS: TelegramLimits = { privateChatGapMs: 1000, groupGapMs: 3000, globalPerSecond: 30 };

/**
 * The first, Bottleneck-based limiter, kept as the benchmark's baseline (the
 * daemon uses `slidingWindowLimiter` in src/send: Bottleneck counts from a job's start,
 * and this measured 429s). One limiter per destination chat (spaced by
 * the private or group gap), all chained to one global limiter. `scale` divides
 * every interval, so benchmarks can run Telegram's limits faster: the gaps, the
 * reservoir refresh and the 250 ms heartbeat Bottleneck refreshes it on, and a
 * pause (whose `ms` are Telegram's, from retry_after). Default 1: real time.
 */
export function bottleneckLimiter(limits: TelegramLimits = TELEGRAM_LIMITS, scale = 1): DestinationLimiter {
  const global = new Bottleneck({
    reservoir: limits.globalPerSecond,
    reservoirRefreshAmount: limits.globalPerSecond,
    reservoirRefreshInterval: Math.max(1, Math.round(1000 / scale)),
    maxConcurrent: limits.globalPerSecond,
    // Bottleneck's default heartbeat (not in its typings); scaled, or a faster clock would be capped by it.
    ...({ heartbeatInterval: Math.max(1, Math.round(250 / scale)) } as object),
  });
  const perChat = new Map<string, Bottleneck>();
  const pausedUntil = new Map<string, number>();
  const limiterFor = (chatId: string) => {
    let limiter = perChat.get(chatId);
    if (!limiter) {
      const gap = isGroupChat(chatId) ? limits.groupGapMs : limits.privateChatGapMs;
      limiter = new Bottleneck({ maxConcurrent: 1, minTime: Math.max(1, Math.round(gap / scale)) });
      limiter.chain(global);
      perChat.set(chatId, limiter);
    }
    return limiter;
  };
  return {
    schedule(chatId, work) {
      return limiterFor(chatId).schedule(async () => {
        const wait = (pausedUntil.get(chatId) ?? 0) - Date.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        return work();
      });
    },
    pause(chatId, ms) {
      pausedUntil.set(chatId, Math.max(pausedUntil.get(chatId) ?? 0, Date.now() + ms / scale));
    },
    async stop() {
      await Promise.all([...perChat.values()].map((l) => l.stop({ dropWaitingJobs: true }).catch(() => {})));
      await global.stop({ dropWaitingJobs: true }).catch(() => {});
    },
  };
}
