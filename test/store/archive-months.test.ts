import { describe, expect, it } from "vitest";
import { judgeMonthFiles } from "../../src/store/archive-months.js";

const m = (entries: Array<[string, number]>) => new Map(entries);

describe("judgeMonthFiles: the month files against the sizes the catalog recorded", () => {
  it("as written: nothing short, nothing stale, the recorded sizes kept", () => {
    const v = judgeMonthFiles(
      ["2026-01", "2026-02"],
      m([
        ["2026-01", 100],
        ["2026-02", 50],
      ]),
      m([
        ["2026-01", 100],
        ["2026-02", 50],
      ]),
    );
    expect([...v.short]).toEqual([]);
    expect(v.stale).toBe(false);
    expect([...v.sizes]).toEqual([
      ["2026-01", 100],
      ["2026-02", 50],
    ]);
  });

  it("missing, empty, shorter: each named; the written size is kept so the loss stays known", () => {
    const v = judgeMonthFiles(
      ["2026-01", "2026-02", "2026-03"],
      m([
        ["2026-01", 100],
        ["2026-02", 50],
        ["2026-03", 70],
      ]),
      m([
        ["2026-02", 0],
        ["2026-03", 30],
      ]),
    );
    expect(v.short.get("2026-01")).toBe("it is missing");
    expect(v.short.get("2026-02")).toBe("it is empty");
    expect(v.short.get("2026-03")).toBe(
      "it is shorter than the archive wrote it (30 of 70 bytes): truncated, or replaced by an older copy",
    );
    expect(v.sizes.get("2026-03")).toBe(70);
    expect(v.stale).toBe(false);
  });

  it("a longer file, or one the catalog does not list: the catalog is stale", () => {
    expect(judgeMonthFiles(["2026-01"], m([["2026-01", 100]]), m([["2026-01", 120]])).stale).toBe(true);
    expect(
      judgeMonthFiles(
        ["2026-01"],
        m([["2026-01", 100]]),
        m([
          ["2026-01", 100],
          ["2026-02", 9],
        ]),
      ).stale,
    ).toBe(true);
  });

  it("a catalog from before sizes were kept: only a missing or empty file is told; the sizes found are recorded", () => {
    const v = judgeMonthFiles(
      ["2026-01", "2026-02"],
      m([]),
      m([
        ["2026-01", 80],
        ["2026-02", 0],
      ]),
    );
    expect([...v.short]).toEqual([["2026-02", "it is empty"]]);
    expect(v.sizes.get("2026-01")).toBe(80);
    expect(v.stale).toBe(false);
  });
});
