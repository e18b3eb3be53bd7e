import { describe, expect, it } from "vitest";
import { backoffMs, CONNECT_BACKOFF, POLL_BACKOFF, REVIEW_POST_BACKOFF, SEND_BACKOFF } from "../../src/retry/backoff.js";

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
