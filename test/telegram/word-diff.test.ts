import { describe, expect, it } from "vitest";
import { compactWordDiff, richWordDiff, wordDiff } from "../../src/telegram/word-diff.js";

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

  it("as the review post shows it: removed words struck through, added words bold, as entities on plain text", () => {
    const rich = richWordDiff("Hi Anna, see you Thursday at 09:30.", "Hi Anna, see you Thursday at 09:45.");
    expect(rich.text).toBe("…you Thursday at 09:30. 09:45.");
    expect(rich.entities).toEqual([
      { type: "strikethrough", offset: 17, length: 6 },
      { type: "bold", offset: 24, length: 6 },
    ]);
    expect(richWordDiff("same", "same")).toEqual({ text: "", entities: [] });
    const cut = richWordDiff("x", "y ".repeat(500), 50);
    expect(cut.text.length).toBe(50);
    expect(cut.entities.every((e) => e.offset + e.length <= 49)).toBe(true);
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
