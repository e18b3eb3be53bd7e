import { describe, expect, it } from "vitest";
import {
  AUDIENCE_CHECK_BACKOFF,
  backoffMs,
  CONNECT_BACKOFF,
  POLL_BACKOFF,
  REVIEW_POST_BACKOFF,
  SEND_BACKOFF,
  scaledBackoffs,
} from "../../src/retry/backoff.js";

describe("backoffMs", () => {
  it("starts at initialMs, doubles, and stops at maxMs", () => {
    expect([1, 2, 3, 4, 5, 6, 7, 8].map((n) => backoffMs(CONNECT_BACKOFF, n))).toEqual([
      1000, 2000, 4000, 8000, 16000, 32000, 60000, 60000,
    ]);
    expect([1, 2, 5, 6, 7].map((n) => backoffMs(REVIEW_POST_BACKOFF, n))).toEqual([5000, 10000, 80000, 160000, 300000]);
    expect([1, 5, 6].map((n) => backoffMs(SEND_BACKOFF, n))).toEqual([1000, 16000, 30000]);
    expect(backoffMs(POLL_BACKOFF, 10_000)).toBe(30000);
  });

  it("treats 0 or fewer failures as the first", () => {
    expect(backoffMs(SEND_BACKOFF, 0)).toBe(1000);
  });
});

describe("scaledBackoffs (TELEGRAM_RATE_SCALE)", () => {
  it("divides every wait, and the audience check's minute too", () => {
    const b = scaledBackoffs(20);
    expect(b.audienceCheck).toEqual({ initialMs: 100, maxMs: 750, giveUpAfterMs: 3_000 });
    expect(b.send).toEqual({ initialMs: 50, maxMs: 1_500 });
    expect(AUDIENCE_CHECK_BACKOFF.giveUpAfterMs).toBe(60_000);
  });
});
