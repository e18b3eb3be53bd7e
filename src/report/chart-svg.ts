import type { Report, ReportRow, RoleRow } from "./report-model.js";
import { humanSeconds, periodLabel } from "./report-text.js";
import { fitText, INK, oneLine, r, text, textWidth } from "./svg-text.js";
import { changeLine, previousName, SEGMENT_KINDS, SENT_BACK_COLOUR, segmentsOf, type SegmentKind } from "./chart-parts.js";

/**
 * The report picture as SVG, written by hand (no chart library). Per role:
 * its drafts as one bar stacked by outcome, every segment with its number;
 * the change against the period before; the reviewer's latest notes (untrusted
 * text: escaped, cut to one line, clipped). Then the time to decision (median
 * and 90th percentile) per role on one fixed, labelled logarithmic scale, the
 * same in every picture. Made for a phone: 1080 px wide, text 30-56 px, every
 * role named even without drafts.
 */

/** The picture's width in pixels. */
export const CHART_WIDTH = 1080;
const PAD = 60;
const BAR_W = CHART_WIDTH - 2 * PAD;
const BAR_H = 84;
/** The narrowest a segment is drawn, so that its number fits in it. */
const MIN_SEGMENT = 64;
/** How many of a role's notes the picture shows. */
const NOTES_SHOWN = 2;

/** The fixed time scale: 10 s at the left edge, 3 days at the right, logarithmic, with these ticks. */
const SCALE = { minS: 10, maxS: 3 * 86_400 } as const;
const TICKS: ReadonlyArray<[number, string]> = [
  [60, "1 min"],
  [600, "10 min"],
  [3600, "1 h"],
  [86_400, "1 d"],
];

/** Where `seconds` falls on the time scale (x in px). */
function timeX(seconds: number): number {
  const lo = Math.log10(SCALE.minS);
  const f = (Math.log10(Math.max(SCALE.minS, Math.min(SCALE.maxS, seconds))) - lo) / (Math.log10(SCALE.maxS) - lo);
  return PAD + f * BAR_W;
}

/** The legend: each segment's colour and name (the dashed one too). Returns its height. */
function legend(y: number, out: string[]): number {
  let x = PAD;
  let row = 0;
  for (const s of SEGMENT_KINDS) {
    const w = 46 + textWidth(s.name, 30) + 36;
    if (x + w > CHART_WIDTH - PAD + 20) {
      x = PAD;
      row++;
    }
    const top = y + row * 50;
    out.push(swatch(x, top, 34, s));
    out.push(text(x + 46, top + 28, 30, s.name));
    x += w;
  }
  return (row + 1) * 50;
}

const ZERO: ReportRow = {
  drafts: 1,
  sent: 0,
  partly_sent: 0,
  revise: 0,
  deferred: 0,
  expired: 0,
  edited: 0,
  undone: 0,
  decision_p50_s: null,
  decision_p90_s: null,
};

/** A segment's box: filled, or dashed for drafts with no outcome yet. */
function swatch(x: number, y: number, w: number, s: SegmentKind, h = w): string {
  if (s.dashed) {
    return `<rect x="${r(x + 2)}" y="${r(y + 2)}" width="${r(Math.max(0, w - 4))}" height="${r(h - 4)}" fill="none" stroke="${s.colour}" stroke-width="4" stroke-dasharray="12 8"/>`;
  }
  return `<rect x="${r(x)}" y="${r(y)}" width="${r(w)}" height="${r(h)}" rx="${w === h ? 6 : 0}" fill="${s.colour}"/>`;
}

/**
 * The drafts per unit of bar, shared by every role so bars compare: as wide
 * as the widest role allows once each of its segments is at least MIN_SEGMENT.
 */
function unitWidth(rows: readonly ReportRow[]): number {
  const need = (u: number) =>
    Math.max(...rows.map((row) => segmentsOf(row).reduce((w, s) => w + (s.n > 0 ? Math.max(MIN_SEGMENT, s.n * u) : 0), 0)));
  let lo = 0;
  let hi = BAR_W / Math.max(1, ...rows.map((row) => row.drafts));
  for (let i = 0; i < 30; i++) {
    const mid = (lo + hi) / 2;
    if (need(mid) <= BAR_W) lo = mid;
    else hi = mid;
  }
  return lo;
}

/** One role's bar, each segment with its number. */
function bar(row: ReportRow, y: number, unit: number, out: string[]): void {
  out.push(`<rect x="${PAD}" y="${y}" width="${BAR_W}" height="${BAR_H}" rx="10" fill="#f1f3f4"/>`);
  let x = PAD;
  for (const s of segmentsOf(row)) {
    if (s.n === 0) continue;
    const w = Math.max(MIN_SEGMENT, s.n * unit);
    out.push(swatch(x, y, w, s, BAR_H));
    out.push(text(x + w / 2, y + 56, 38, String(s.n), { bold: true, anchor: "middle", fill: s.label }));
    x += w;
  }
}

/** One role's block: name, drafts, the bar, what else happened, the change, the latest notes. Returns its height. */
function roleBlock(role: string, row: RoleRow, before: RoleRow, prevName: string | null, y: number, unit: number, out: string[]): number {
  out.push(text(PAD, y + 44, 48, role, { bold: true }));
  const was = before.drafts === row.drafts ? "" : ` · was ${before.drafts}`;
  out.push(
    text(CHART_WIDTH - PAD, y + 44, 32, `${row.drafts} draft${row.drafts === 1 ? "" : "s"}${was}`, { anchor: "end", fill: INK.muted }),
  );
  bar(row, y + 66, unit, out);
  let h = 66 + BAR_H + 16;
  const extra = [
    row.deferred > 0 ? `${row.deferred} deferred` : "",
    row.undone > 0 ? `${row.undone} undone` : "",
    row.restored > 0 ? `${row.restored} with removed details restored` : "",
    row.picks.picked > 0 ? `its recommended destination kept ${row.picks.recommended} of ${row.picks.picked}` : "",
  ].filter(Boolean);
  if (extra.length > 0) {
    out.push(text(PAD, y + h + 30, 30, fitText(extra.join(" · "), BAR_W, 30), { fill: INK.muted }));
    h += 44;
  }
  // No drafts at all the period before: the header says so once, not each role.
  if (prevName !== null) {
    out.push(text(PAD, y + h + 30, 30, fitText(changeLine(row, before, prevName), BAR_W, 30)));
    h += 44;
  }
  const notes = row.notes.slice(0, NOTES_SHOWN).map(oneLine).filter(Boolean);
  if (notes.length > 0) {
    out.push(text(PAD, y + h + 28, 30, row.notes.length === 1 ? "Your note:" : "Your latest notes:", { fill: INK.muted }));
    h += 40;
    for (const note of notes) {
      out.push(`<rect x="${PAD}" y="${y + h + 4}" width="6" height="34" fill="${SENT_BACK_COLOUR}"/>`);
      out.push(text(PAD + 22, y + h + 30, 30, fitText(`“${note}”`, BAR_W - 22, 30), { clip: "inner" }));
      h += 44;
    }
  }
  return h + 24;
}

/** The time scale's labels, above the first row. */
function timeAxis(y: number, out: string[]): void {
  for (const [s, label] of TICKS) out.push(text(timeX(s), y, 30, label, { anchor: "middle", fill: INK.muted }));
}

/** The scale's ticks across one row's bar. */
function timeTicks(barY: number, out: string[]): void {
  for (const [s] of TICKS) out.push(`<rect x="${r(timeX(s) - 1)}" y="${barY - 10}" width="2" height="46" fill="#bdc1c6"/>`);
}

/** The time-to-decision row of one role: a bar to the 90th percentile, darker to the median. Returns its height. */
function timeRow(role: string, row: ReportRow, y: number, out: string[]): number {
  out.push(text(PAD, y + 40, 38, role, { bold: true }));
  const barY = y + 58;
  out.push(`<rect x="${PAD}" y="${barY}" width="${BAR_W}" height="26" rx="13" fill="#f1f3f4"/>`);
  timeTicks(barY, out);
  if (row.decision_p50_s === null || row.decision_p90_s === null) {
    out.push(text(CHART_WIDTH - PAD, y + 40, 32, "no decisions", { anchor: "end", fill: INK.muted }));
    return 110;
  }
  out.push(
    text(CHART_WIDTH - PAD, y + 40, 32, `median ${humanSeconds(row.decision_p50_s)} · 90% ${humanSeconds(row.decision_p90_s)}`, {
      anchor: "end",
    }),
  );
  const w = (s: number) => Math.max(26, timeX(s) - PAD);
  out.push(`<rect x="${PAD}" y="${barY}" width="${r(w(row.decision_p90_s))}" height="26" rx="13" fill="#9aa0a6"/>`);
  out.push(`<rect x="${PAD}" y="${barY}" width="${r(w(row.decision_p50_s))}" height="26" rx="13" fill="${INK.ink}"/>`);
  return 110;
}

/** The header: title, period, totals now and before. Returns its height. */
function header(report: Report, rows: ReadonlyArray<readonly [string, RoleRow, RoleRow]>, prevName: string, out: string[]): number {
  const sum = (k: "drafts" | "sent" | "revise" | "expired", i: 1 | 2) => rows.reduce((n, row) => n + row[i][k], 0);
  const totals = (i: 1 | 2) =>
    `${sum("drafts", i)} drafts · ${sum("sent", i)} sent · ${sum("revise", i)} sent back · ${sum("expired", i)} expired`;
  out.push(text(PAD, 96, 56, "Drafts and decisions", { bold: true }));
  out.push(text(PAD, 150, 34, periodLabel(report), { fill: INK.muted }));
  out.push(text(PAD, 206, 36, totals(1)));
  const first = prevName.charAt(0).toUpperCase() + prevName.slice(1);
  const before = sum("drafts", 2) === 0 ? "no drafts to compare with" : totals(2);
  out.push(text(PAD, 254, 30, fitText(`${first}: ${before}`, BAR_W, 30), { fill: INK.muted }));
  return 290;
}

/** The picture of a report as an SVG document (`roles` in the order to show them). */
export function reportSvg(report: Report, roles: readonly string[] = Object.keys(report.roles)): string {
  const empty: RoleRow = { ...ZERO, drafts: 0, restored: 0, notes: [], picks: { picked: 0, recommended: 0 } };
  const rows = roles.map((role) => [role, report.roles[role] ?? empty, report.previous.roles[role] ?? empty] as const);
  const prevName = previousName(report);
  const out: string[] = [];
  let y = header(report, rows, prevName, out);
  y += legend(y, out) + 10;
  const unit = unitWidth(rows.map(([, row]) => row));
  const compareWith = rows.some(([, , before]) => before.drafts > 0) ? prevName : null;
  for (const [role, row, before] of rows) y += roleBlock(role, row, before, compareWith, y, unit, out);
  out.push(`<rect x="${PAD}" y="${y}" width="${BAR_W}" height="3" fill="#dadce0"/>`);
  out.push(text(PAD, y + 70, 44, "Time to decision", { bold: true }));
  out.push(text(PAD, y + 114, 30, "from the post: median (dark) and 90% of decisions", { fill: INK.muted }));
  timeAxis(y + 168, out);
  y += 178;
  for (const [role, row] of rows) y += timeRow(role, row, y, out);
  const height = Math.ceil(y + 30);
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${CHART_WIDTH}" height="${height}" viewBox="0 0 ${CHART_WIDTH} ${height}" font-family="Inter">`,
    `<defs><clipPath id="inner"><rect x="${PAD}" y="0" width="${BAR_W}" height="${height}"/></clipPath></defs>`,
    `<rect width="${CHART_WIDTH}" height="${height}" fill="#ffffff"/>`,
    ...out,
    "</svg>",
  ].join("\n");
}
