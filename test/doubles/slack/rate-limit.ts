/**
 * Slack's posting limit per conversation as a token bucket: one message per
 * interval on average, with a short burst allowed ("1 message per second …
 * with short bursts of more than 1 allowed", Slack's rate-limit page). A
 * sender that keeps to the interval never sees a 429, whatever the jitter of
 * single messages; one that goes faster empties the bucket and gets one.
 */
export class PostingLimiter {
  private readonly buckets = new Map<string, { level: number; at: number }>();

  /** Seconds to wait when `channel` has no message left at `nowMs`; null when one may be posted. */
  retryAfter(channel: string, nowMs: number, intervalMs: number, burst: number): number | null {
    const level = this.level(channel, nowMs, intervalMs, burst);
    return level >= 1 ? null : Math.max(1, Math.ceil(((1 - level) * intervalMs) / 1000));
  }

  /** Counts one accepted message. */
  take(channel: string, nowMs: number, intervalMs: number, burst: number): void {
    this.buckets.set(channel, { level: this.level(channel, nowMs, intervalMs, burst) - 1, at: nowMs });
  }

  private level(channel: string, nowMs: number, intervalMs: number, burst: number): number {
    const b = this.buckets.get(channel);
    return b === undefined ? burst : Math.min(burst, b.level + (nowMs - b.at) / intervalMs);
  }
}
