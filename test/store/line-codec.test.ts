import { describe, expect, it } from "vitest";
import { checkLine, encodeLine } from "../../src/store/line-codec.js";

function check(line: string): string | null {
  const b = Buffer.from(line.endsWith("\n") ? line.slice(0, -1) : line);
  return checkLine(b, 0, b.length);
}

describe("line codec", () => {
  it("writes plain JSON with the checksum as the last key", () => {
    const line = encodeLine({ draft_id: "a", text: 'héllo\n"x" 🎉' });
    expect(line.endsWith('"}\n')).toBe(true);
    expect(line.split("\n")).toHaveLength(2);
    const parsed = JSON.parse(line) as Record<string, unknown>;
    expect(Object.keys(parsed).at(-1)).toBe("crc");
    expect(parsed.text).toBe('héllo\n"x" 🎉');
    expect(check(line)).toBeNull();
  });

  it("rejects every single-bit flip", () => {
    const b = Buffer.from(encodeLine({ draft_id: "abc", version: 3, text: "some text" }).slice(0, -1));
    for (let i = 0; i < b.length; i++) {
      for (let bit = 0; bit < 8; bit++) {
        b[i]! ^= 1 << bit;
        expect(checkLine(b, 0, b.length), `byte ${i} bit ${bit}`).not.toBeNull();
        b[i]! ^= 1 << bit;
      }
    }
  });

  it("refuses records it cannot store", () => {
    expect(() => encodeLine({ draft_id: "a", crc: "x" })).toThrow(/crc/);
    expect(() => encodeLine({})).toThrow(TypeError);
    expect(check("")).toBe("empty line");
    expect(check('{"a":1}')).not.toBeNull();
  });
});
