import { describe, expect, it } from "vitest";
import { crc32 } from "../../src/store/crc32.js";

describe("crc32", () => {
  it("matches the standard check value and zlib's results", () => {
    expect(crc32(Buffer.from("123456789"))).toBe(0xcbf43926);
    expect(crc32(Buffer.alloc(0))).toBe(0);
    expect(crc32(Buffer.from("The quick brown fox jumps over the lazy dog"))).toBe(0x414fa339);
  });

  it("gives the same result for a range in one piece or many", () => {
    const b = Buffer.from(Array.from({ length: 3000 }, (_, i) => (i * 7919) & 0xff));
    for (const len of [511, 512, 513, 2999]) {
      const native = crc32(b, 1, 1 + len);
      let js = 0;
      for (let i = 1; i < 1 + len; i += 100) js = crc32(b, i, Math.min(i + 100, 1 + len), js);
      expect(js).toBe(native);
    }
  });

  it("continues across pieces and honours start/end", () => {
    const b = Buffer.from("xx hello, wörld, a longer line to cross the 8-byte blocks ✓ yy");
    const whole = crc32(b, 2, b.length - 2);
    for (let k = 2; k < b.length - 2; k++) expect(crc32(b, k, b.length - 2, crc32(b, 2, k))).toBe(whole);
  });
});
