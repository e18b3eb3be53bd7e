import { type ApiError, tooManyRequests } from "./errors.js";
import type { RateLimitOptions } from "./types.js";

interface Window {
  /** How many sends the window admits. */
  max: number;
  /** Its length in Telegram milliseconds (unscaled). */
  lengthMs: number;
}

/** Sliding-window log of one limit (a chat, a group, or everything). */
class Bucket {
  private stamps: number[] = [];
  private blockedUntil = 0;

  constructor(private readonly window: Window) {}

  /** Real milliseconds until a send is admitted; 0 if it is now. */
  waitMs(now: number, scale: number): number {
    const length = this.window.lengthMs * scale;
    this.stamps = this.stamps.filter((t) => t > now - length);
    const byWindow = this.stamps.length < this.window.max ? 0 : this.stamps[0]! + length - now;
    return Math.max(byWindow, this.blockedUntil - now, 0);
  }

  record(now: number): void {
    this.stamps.push(now);
  }

  /** Telegram keeps refusing until retry_after has passed, so retrying early does not help. */
  block(until: number): void {
    this.blockedUntil = Math.max(this.blockedUntil, until);
  }
}

/**
 * Telegram's documented send limits: one message per second in a chat, twenty
 * per minute in a group, thirty per second overall. A refused send gets a 429
 * whose retry_after (whole seconds, at least 1, unscaled) covers the wait.
 */
export class RateLimiter {
  private readonly scale: number;
  private readonly windows: { chat: Window; group: Window; global: Window };
  private readonly buckets = new Map<string, Bucket>();

  constructor(
    options: RateLimitOptions,
    private readonly now: () => number = Date.now,
  ) {
    this.scale = options.timeScale ?? 1;
    this.windows = {
      chat: { max: options.perChatPerSecond ?? 1, lengthMs: 1000 },
      group: { max: options.groupPerMinute ?? 20, lengthMs: 60_000 },
      global: { max: options.globalPerSecond ?? 30, lengthMs: 1000 },
    };
  }

  /** Admits a send to `chatId` and counts it, or returns the 429 to answer. */
  admit(chatId: number): ApiError | undefined {
    const now = this.now();
    const buckets = [this.bucket("global", this.windows.global), this.bucket(`chat:${chatId}`, this.windows.chat)];
    if (chatId < 0) buckets.push(this.bucket(`group:${chatId}`, this.windows.group));
    const waitMs = Math.max(...buckets.map((b) => b.waitMs(now, this.scale)));
    if (waitMs === 0) {
      for (const b of buckets) b.record(now);
      return undefined;
    }
    const error = tooManyRequests(waitMs / this.scale / 1000);
    const until = now + error.retryAfterSeconds! * 1000 * this.scale;
    for (const b of buckets) if (b.waitMs(now, this.scale) > 0) b.block(until);
    return error;
  }

  private bucket(key: string, window: Window): Bucket {
    let bucket = this.buckets.get(key);
    if (!bucket) this.buckets.set(key, (bucket = new Bucket(window)));
    return bucket;
  }
}
