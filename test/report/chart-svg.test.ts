import { describe, expect, it } from "vitest";
import { changeLine, previousName, segmentsOf } from "../../src/report/chart-parts.js";
import { reportSvg } from "../../src/report/chart-svg.js";
import type { Report, RoleRow } from "../../src/report/report-model.js";
import { pngSize, svgToPng } from "../../src/report/render-png.js";
import { fitText, oneLine, textWidth } from "../../src/report/svg-text.js";

const row = (o: Partial<RoleRow> = {}): RoleRow => ({
  drafts: 0,
  sent: 0,
  partly_sent: 0,
  revise: 0,
  deferred: 0,
  expired: 0,
  edited: 0,
  undone: 0,
  decision_p50_s: null,
  decision_p90_s: null,
  restored: 0,
  notes: [],
  picks: { picked: 0, recommended: 0 },
  ...o,
});
const UNTIL = Date.parse("2030-01-07T08:00:00Z");
function report(roles: Record<string, RoleRow>, previous: Record<string, RoleRow> = {}): Report {
  return {
    since: new Date(UNTIL - 7 * 86_400_000).toISOString(),
    until: new Date(UNTIL).toISOString(),
    roles,
    destinations: {},
    picks: {},
    previous: { roles: previous, destinations: {}, picks: {} },
  };
}

/** The numbers drawn inside bar segments (bold, 38 px). */
function segmentNumbers(svg: string): string[] {
  return [...svg.matchAll(/font-size="38" font-weight="700" text-anchor="middle"[^>]*>(\d+)</g)].map((m) => m[1]!);
}

describe("the report picture", () => {
  it("says once, in the header, that the period before had no drafts, not once per role", () => {
    const svg = reportSvg(report({ Scribe: row({ drafts: 2, sent: 2 }), CoS: row({ drafts: 1, sent: 1 }), Margot: row({ drafts: 1 }) }));
    expect(svg).toContain("The week before: no drafts to compare with");
    expect(svg).not.toContain("to compare with.");
    expect(svg.match(/compare with/g)).toHaveLength(1);
  });

  it("labels every segment with its number, a one-draft segment beside a large one too", () => {
    const svg = reportSvg(
      report({
        Scribe: row({ drafts: 60, sent: 56, edited: 1, revise: 1, expired: 1 }), // 55 as drafted, 1 edited, 1, 1, 2 waiting
        CoS: row({ drafts: 1, sent: 1 }),
        Margot: row(),
      }),
    );
    expect(segmentNumbers(svg)).toEqual(["55", "1", "1", "1", "2", "1"]);
    // Each is at least 64 px wide: the number fits inside.
    const widths = [...svg.matchAll(/<rect x="[\d.]+" y="[\d.]+" width="([\d.]+)" height="84" fill=/g)].map((m) => Number(m[1]));
    expect(Math.min(...widths)).toBeGreaterThanOrEqual(64);
    // The legend names each colour, the dashed one too.
    for (const name of ["sent as drafted", "edited, then sent", "sent back", "expired", "waiting or other"])
      expect(svg).toContain(`>${name}<`);
  });

  it("draws time to decision on one fixed, labelled scale: the same x for the same time in every picture", () => {
    const x = (svg: string) =>
      [...svg.matchAll(/<rect x="60" y="[\d.]+" width="([\d.]+)" height="26" rx="13" fill="#1f1f1f"/g)].map((m) => m[1]);
    const fast = reportSvg(report({ Scribe: row({ drafts: 1, sent: 1, decision_p50_s: 600, decision_p90_s: 600 }) }));
    const slow = reportSvg(
      report({
        Scribe: row({ drafts: 1, sent: 1, decision_p50_s: 600, decision_p90_s: 600 }),
        CoS: row({ drafts: 1, sent: 1, decision_p50_s: 80_000, decision_p90_s: 80_000 }),
      }),
    );
    expect(x(fast)[0]).toBe(x(slow)[0]);
    for (const tick of ["1 min", "10 min", "1 h", "1 d"]) expect(fast).toContain(`>${tick}<`);
  });

  it("shows the change against the period before and the latest notes as data: escaped, one line, clipped", async () => {
    const hostile = 'Say "no" <script>alert(1)</script> & \u202eevil\u0007\nnext line \ud800 ' + "x".repeat(300);
    const svg = reportSvg(
      report(
        { Scribe: row({ drafts: 4, sent: 3, revise: 1, notes: [hostile, "Shorter, please.", "third"] }), CoS: row(), Margot: row() },
        { Scribe: row({ drafts: 2, sent: 1, revise: 1 }) },
      ),
    );
    expect(svg).not.toContain("<script>");
    expect(svg).toContain("&#60;script&#62;");
    expect(svg).not.toMatch(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u202e\ud800]/);
    expect(svg).toContain("Shorter, please.");
    expect(svg).not.toContain("third"); // two notes shown
    expect(svg).toContain('clip-path="url(#inner)"');
    expect(svg).toContain("Sent as drafted 75%, up from 50% · 1 sent back, as before");
    expect(svg).toContain("The week before: 2 drafts");
    const png = await svgToPng(svg);
    expect(pngSize(png)?.width).toBe(1080);
  });

  it("words: the period before named by its length; a role without drafts on either side", () => {
    const day = { since: "2030-01-01T00:00:00Z", until: "2030-01-02T00:00:00Z" };
    expect(previousName(day)).toBe("the day before");
    expect(previousName({ since: "2030-01-01T00:00:00Z", until: "2030-01-31T00:00:00Z" })).toBe("the 30 days before");
    expect(previousName({ since: "2030-01-01T00:00:00Z", until: "2030-01-01T05:00:00Z" })).toBe("the period before");
    expect(changeLine(row(), row(), "the week before")).toBe("No drafts, nor the week before.");
    expect(changeLine(row(), row({ drafts: 3 }), "the week before")).toBe("No drafts; 3 the week before.");
    expect(segmentsOf(row({ drafts: 3, sent: 2, edited: 3 })).map((s) => s.n)).toEqual([0, 2, 0, 0, 1]);
  });

  it("text helpers: one line of drawable text, cut to a width", () => {
    expect(oneLine(" a\n\tb\u0000c ")).toBe("a b c");
    const cut = fitText("word ".repeat(100), 500, 30);
    expect(cut.endsWith("…")).toBe(true);
    expect(textWidth(cut, 30)).toBeLessThanOrEqual(500);
  });
});
