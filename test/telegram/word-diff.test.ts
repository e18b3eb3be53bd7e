import { describe, expect, it } from "vitest";
import { compactWordDiff, wordDiff } from "../../src/telegram/word-diff.js";

describe("compactWordDiff", () => {
  it("marks a replaced word with a little context", () => {
    expect(compactWordDiff("Hi Anna, see you Thursday at 10.", "Hi Anna, see you Friday at 10.")).toBe(
      "…Anna, see you [-Thursday-]{+Friday+} at 10.",
    );
  });

  it("leaves out long unchanged stretches", () => {
    const before = "Hi Anna, thanks for the notes on the plan. Thursday 10:00 works for me; I will bring the budget and the list.";
    const after = "Hi Anna, thanks for the notes on the plan. Friday 11:00 works for me; I will bring the list.";
    expect(compactWordDiff(before, after)).toBe(
      "…on the plan. [-Thursday 10:00-]{+Friday 11:00+} works for me; … will bring the [-budget and the-] list.",
    );
  });

  it("shows additions at the end, removals, and nothing for equal texts", () => {
    expect(compactWordDiff("a b c", "a b c d")).toBe("a b c {+d+}");
    expect(compactWordDiff("one two", "three")).toBe("[-one two-]{+three+}");
    expect(compactWordDiff("same text", "same text")).toBe("");
  });

  it("is cut to the limit", () => {
    const long = compactWordDiff("x", "y ".repeat(500), 50);
    expect(long.length).toBe(50);
    expect(long.endsWith("…")).toBe(true);
  });

  it("rebuilds both texts from its runs", () => {
    const before = "The quick brown fox\njumps over the lazy dog.";
    const after = "The quick red fox\nleaps over the dog!";
    const runs = wordDiff(before, after);
    expect(
      runs
        .filter((r) => r.kind !== "add")
        .map((r) => r.text)
        .join(""),
    ).toBe(before);
    expect(
      runs
        .filter((r) => r.kind !== "del")
        .map((r) => r.text)
        .join(""),
    ).toBe(after);
  });
});
