import { describe, expect, it } from "vitest";
import { changedWordShare, describeChange, REWRITE_SHARE, richWordDiff, wordDiff } from "../../src/telegram/word-diff.js";

/** The diff's text with removed words as [-…-] and added ones as {+…+}, to read the entities in one string. */
function marked(before: string, after: string): string {
  const { text, entities } = richWordDiff(before, after);
  let out = "";
  let at = 0;
  for (const e of entities) {
    const [open, close] = e.type === "strikethrough" ? ["[-", "-]"] : ["{+", "+}"];
    out += `${text.slice(at, e.offset)}${open}${text.slice(e.offset, e.offset + e.length)}${close}`;
    at = e.offset + e.length;
  }
  return out + text.slice(at);
}

describe("richWordDiff", () => {
  it("marks a replaced word with a little context", () => {
    expect(marked("Hi Anna, see you Thursday at 10.", "Hi Anna, see you Friday at 10.")).toBe(
      "…Anna, see you [-Thursday-] {+Friday+} at 10.",
    );
  });

  it("leaves out long unchanged stretches", () => {
    const before = "Hi Anna, thanks for the notes on the plan. Thursday 10:00 works for me; I will bring the budget and the list.";
    const after = "Hi Anna, thanks for the notes on the plan. Friday 11:00 works for me; I will bring the list.";
    expect(marked(before, after)).toBe(
      "…on the plan. [-Thursday 10:00-] {+Friday 11:00+} works for me; … will bring the [-budget and the-] list.",
    );
  });

  it("shows additions at the end, removals, and nothing for equal texts", () => {
    expect(marked("a b c", "a b c d")).toBe("a b c {+d+}");
    expect(marked("one two", "three")).toBe("[-one two-] {+three+}");
    expect(richWordDiff("same text", "same text")).toEqual({ text: "", entities: [] });
  });

  // Issue 25 point 7: a run that ends a text has no space of its own; the words after it touched it.
  it("keeps a space between runs where one text ends: never 'me.Thanks'", () => {
    expect(marked("See you at 7. Bring the wine. Thanks for the invite!", "Thanks for the invite! See you at 7. Bring the wine.")).toBe(
      "{+Thanks for the invite!+} See you at … Bring the wine. [-Thanks for the invite!-]",
    );
    expect(marked("Call me. Thanks", "Call me.")).toBe("Call me. [-Thanks-]");
    expect(marked("a b", "a b c")).toBe("a b {+c+}");
    expect(marked("x y me.", "z me. Thanks")).toBe("[-x y-] {+z+} me. {+Thanks+}");
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
    expect(cut.text.endsWith("…")).toBe(true);
    expect(cut.entities.every((e) => e.offset + e.length <= 49)).toBe(true);
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

describe("describeChange: a diff, or 'rewritten' when most of the words changed", () => {
  const share = (a: string, b: string) => changedWordShare(wordDiff(a, b));

  it("counts the changed words over both texts", () => {
    expect(share("a b c d", "a b c d")).toBe(0);
    expect(share("a b c d", "e f g h")).toBe(1);
    // 3 kept of 4 and 4: one removed and one added over 8 words.
    expect(share("a b c d", "a b x d")).toBe(0.25);
    expect(share("", "")).toBe(0);
  });

  it("keeps the diff for small changes: a day, restored items, a sentence added, typos", () => {
    for (const [before, after] of [
      ["Hi team, see you Thursday at 10.", "Hi team, see you Friday at 10."],
      [
        "Hi Anna, call me on [phone] or mail [email] if anything changes. Thanks, Sam",
        "Hi Anna, call me on +61 412 345 678 or mail sam@northwind.io if anything changes. Thanks, Sam",
      ],
      ["Hi all, the offsite is on Friday at 10 in room 4.", "Hi all, the offsite is on Friday at 10 in room 4. Please bring your laptops."],
      ["Thnaks for teh invite, I'll be ther at 7 wiht the wine.", "Thanks for the invite, I'll be there at 7 with the wine."],
    ] as const) {
      const change = describeChange(before, after);
      expect(change.kind, `${before} → ${after}`).toBe("diff");
    }
  });

  it("says 'rewritten' for a wholesale rewrite, whose diff was longer than either text", () => {
    const before =
      "Hi Anna, just checking whether Thursday still works for the budget review. If not, let me know a better time. Thanks, me.";
    const after = "Anna — the budget review moves to next week; I'll send a new invite once finance confirms the numbers. Thanks";
    expect(richWordDiff(before, after).text.length).toBeGreaterThan(Math.max(before.length, after.length));
    const change = describeChange(before, after);
    expect(change).toMatchObject({ kind: "rewrite" });
    expect(change.kind === "rewrite" && change.share).toBeGreaterThan(REWRITE_SHARE);
    expect(
      describeChange(
        "Hi Anna, thanks for the update. I will review the deck tonight and send comments tomorrow morning.",
        "Hi Anna, thanks! I'll go through the deck tonight and get comments to you by 9 tomorrow.",
      ),
    ).toMatchObject({ kind: "rewrite" });
    expect(describeChange("same words", "same  words")).toEqual({ kind: "none" });
  });
});
