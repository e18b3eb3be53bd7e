import { open, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readLines } from "../../src/store/line-reader.js";
import { tempDir } from "./helpers.js";

async function collect(content: string, chunkBytes: number, maxLineBytes?: number) {
  const path = join(await tempDir(), "f");
  await writeFile(path, content);
  const fh = await open(path, "r");
  const lines: Array<[string, number, number]> = [];
  try {
    const r = await readLines(fh, (buf, s, e, n, off) => lines.push([buf.toString("utf8", s, e), n, off]), {
      chunkBytes,
      ...(maxLineBytes ? { maxLineBytes } : {}),
    });
    return { ...r, got: lines };
  } finally {
    await fh.close();
  }
}

describe("readLines", () => {
  it("splits lines across chunk boundaries and grows for long lines", async () => {
    const content = "a\nbb\n\nccccccccccccccccccccc\nd\ntail";
    for (const chunk of [1, 2, 3, 7, 64]) {
      const r = await collect(content, chunk);
      expect(r.got.map((l) => l[0])).toEqual(["a", "bb", "", "ccccccccccccccccccccc", "d"]);
      expect(r.got.map((l) => l[2])).toEqual([0, 2, 5, 6, 28]);
      expect(r).toMatchObject({ size: content.length, lines: 5, tailBytes: 4 });
    }
  });

  it("reports an over-long line as empty and keeps counting", async () => {
    const r = await collect(`ok\n${"x".repeat(100)}\nnext\n${"y".repeat(50)}`, 4, 16);
    expect(r.got).toEqual([
      ["ok", 1, 0],
      ["", 2, 3],
      ["next", 3, 104],
    ]);
    expect(r.tailBytes).toBe(50);
  });
});
