import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { cutIntoParts, joinParts, LAST_PART_ROOM, reviewParts } from "../../src/drafts/text-parts.js";

const EDGE =
  /^[\u0000-\u0020\u00A0\u1680\u180E\u2000-\u200B\u2028-\u202F\u205F\u3000\uFEFF]|[\u0000-\u0020\u00A0\u1680\u180E\u2000-\u200B\u2028-\u202F\u205F\u3000\uFEFF]$/;
const loneSurrogateAtEdge = (s: string) => /^[\udc00-\udfff]|[\ud800-\udbff]$/.test(s);

describe("a long draft cut into review messages", () => {
  it("a text within the limit is one part", () => {
    expect(cutIntoParts("Short text.", 50)).toEqual([{ text: "Short text.", joint: null }]);
  });

  it("cuts at a line break, which becomes the step to the next message", () => {
    const text = `${"a".repeat(30)}\n${"b".repeat(30)}`;
    expect(cutIntoParts(text, 40)).toEqual([
      { text: "a".repeat(30), joint: "line" },
      { text: "b".repeat(30), joint: null },
    ]);
  });

  it("cuts inside a word when no line break will do, never between the halves of an emoji nor at a space", () => {
    const text = `${"x".repeat(9)}😀${"y".repeat(9)} ${"z".repeat(20)}`;
    const parts = cutIntoParts(text, 10)!;
    for (const p of parts) {
      expect(p.text.length).toBeLessThanOrEqual(10);
      expect(EDGE.test(p.text)).toBe(false);
      expect(loneSurrogateAtEdge(p.text)).toBe(false);
    }
    expect(joinParts(parts)).toBe(text);
  });

  it("refuses a stretch with no allowed cut (whitespace throughout)", () => {
    expect(cutIntoParts(`a${" ".repeat(30)}b`, 10)).toBeNull();
  });

  it("for any text: joined back it is the text; each part fits, and neither begins nor ends with what Telegram drops", () => {
    const unit = fc.constantFrom("a", "b", " ", "\n", "\n\n", "😀", "é", "\u00a0", "word ", "line\n");
    fc.assert(
      fc.property(fc.array(unit, { minLength: 1, maxLength: 400 }), fc.integer({ min: 8, max: 60 }), (units, limit) => {
        const text = units.join("").replace(/^\s+|\s+$/g, "") || "x";
        const parts = cutIntoParts(text, limit);
        if (parts === null) return;
        expect(joinParts(parts)).toBe(text);
        for (const p of parts) {
          expect(p.text.length).toBeLessThanOrEqual(limit);
          if (parts.length > 1) expect(EDGE.test(p.text)).toBe(false);
          expect(loneSurrogateAtEdge(p.text)).toBe(false);
        }
      }),
      { numRuns: 400 },
    );
  });

  it("the last part leaves its room (the status and the legend go beside it); the others are full messages", () => {
    const unit = fc.constantFrom("a", "b", " ", "\n", "😀", "\u00a0", "word ", "line\n");
    fc.assert(
      fc.property(
        fc.array(unit, { minLength: 1, maxLength: 400 }),
        fc.integer({ min: 12, max: 60 }),
        fc.integer({ min: 1, max: 6 }),
        (units, limit, room) => {
          const text = units.join("").replace(/^\s+|\s+$/g, "") || "x";
          const parts = cutIntoParts(text, limit, limit - room);
          if (parts === null) return;
          expect(joinParts(parts)).toBe(text);
          expect(parts.at(-1)!.text.length).toBeLessThanOrEqual(limit - room);
          for (const p of parts) {
            expect(p.text.length).toBeLessThanOrEqual(limit);
            if (parts.length > 1) expect(EDGE.test(p.text)).toBe(false);
            expect(loneSurrogateAtEdge(p.text)).toBe(false);
          }
        },
      ),
      { numRuns: 400 },
    );
  });

  it("a review post's parts: 4096 code units each, the last at most 4096 - LAST_PART_ROOM", () => {
    const text = Array.from({ length: 400 }, (_, i) => `Line ${i}: ${"the numbers ".repeat(20).trim()}`).join("\n");
    const parts = reviewParts(text)!;
    expect(joinParts(parts)).toBe(text);
    expect(parts.at(-1)!.text.length).toBeLessThanOrEqual(4096 - LAST_PART_ROOM);
    for (const p of parts) expect(p.text.length).toBeLessThanOrEqual(4096);
  });
});
