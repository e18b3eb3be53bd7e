import type { Report, ReportRow } from "./report-model.js";
import { humanSeconds, periodLabel } from "./report-text.js";

/**
 * The weekly picture as SVG, written by hand (no chart library): per role,
 * its drafts as one bar stacked by outcome, and its time to decision (median
 * and 90th percentile) on a shared scale. Made for a phone: 1080 px wide,
 * text 30-56 px, four colours, every role named even without drafts.
 */

/** The picture's width in pixels. */
export const CHART_WIDTH = 1080;
const PAD = 60;
const BAR_W = CHART_WIDTH - 2 * PAD;

/** The four colours: each outcome has one, and the legend names them. */
export const COLOURS = {
  sent: "#1b7f3b",
  edited: "#7cc48f",
  revise: "#e8710a",
  expired: "#9aa0a6",
  ink: "#1f1f1f",
  muted: "#5f6368",
} as const;

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function text(x: number, y: number, size: number, body: string, opts: { bold?: boolean; fill?: string; anchor?: string } = {}): string {
  const weight = opts.bold ? ' font-weight="700"' : "";
  const anchor = opts.anchor ? ` text-anchor="${opts.anchor}"` : "";
  return `<text x="${x}" y="${y}" font-size="${size}"${weight}${anchor} fill="${opts.fill ?? COLOURS.ink}">${esc(body)}</text>`;
}

/** The segments of a role's bar, in order: sent unchanged, sent after an edit, sent back, expired. */
function segments(row: ReportRow): Array<{ n: number; colour: string }> {
  const edited = Math.min(row.edited, row.sent);
  return [
    { n: row.sent - edited, colour: COLOURS.sent },
    { n: edited, colour: COLOURS.edited },
    { n: row.revise, colour: COLOURS.revise },
    { n: row.expired, colour: COLOURS.expired },
  ];
}

function legend(y: number): string {
  const items: Array<[string, string, number]> = [
    ["sent", COLOURS.sent, PAD],
    ["edited, sent", COLOURS.edited, 230],
    ["sent back", COLOURS.revise, 500],
    ["expired", COLOURS.expired, 740],
  ];
  const out: string[] = [];
  for (const [label, colour, x] of items) {
    out.push(`<rect x="${x}" y="${y - 28}" width="34" height="34" rx="6" fill="${colour}"/>`, text(x + 46, y, 32, label));
  }
  return out.join("");
}

/** One role's block: name, counts, the stacked bar (waiting drafts as an outline). Returns its height. */
function roleBlock(role: string, row: ReportRow, y: number, max: number, out: string[]): number {
  const decided = row.sent + row.revise + row.expired;
  const waiting = Math.max(0, row.drafts - decided);
  const extra = [row.deferred > 0 ? `${row.deferred} deferred` : "", row.undone > 0 ? `${row.undone} undone` : ""].filter(Boolean);
  out.push(text(PAD, y + 44, 48, role, { bold: true }));
  out.push(
    text(CHART_WIDTH - PAD, y + 44, 34, `${row.drafts} draft${row.drafts === 1 ? "" : "s"}`, { anchor: "end", fill: COLOURS.muted }),
  );
  const barY = y + 70;
  const unit = max > 0 ? BAR_W / max : 0;
  out.push(`<rect x="${PAD}" y="${barY}" width="${BAR_W}" height="84" rx="10" fill="#f1f3f4"/>`);
  let x = PAD;
  for (const s of segments(row)) {
    if (s.n === 0) continue;
    const w = s.n * unit;
    out.push(`<rect x="${x.toFixed(1)}" y="${barY}" width="${w.toFixed(1)}" height="84" fill="${s.colour}"/>`);
    if (w >= 56) out.push(text(x + w / 2, barY + 56, 38, String(s.n), { bold: true, anchor: "middle", fill: "#ffffff" }));
    x += w;
  }
  if (waiting > 0) {
    const w = waiting * unit;
    out.push(
      `<rect x="${(x + 2).toFixed(1)}" y="${barY + 2}" width="${Math.max(0, w - 4).toFixed(1)}" height="80" fill="none" stroke="${COLOURS.expired}" stroke-width="4" stroke-dasharray="12 8"/>`,
    );
  }
  const note = [waiting > 0 ? `${waiting} waiting` : "", ...extra].filter(Boolean).join(" · ");
  if (note) out.push(text(PAD, barY + 130, 32, note, { fill: COLOURS.muted }));
  return note ? 230 : 190;
}

/** The time-to-decision block of one role: a bar to the 90th percentile, darker to the median. Returns its height. */
function timeBlock(role: string, row: ReportRow, y: number, maxSeconds: number, out: string[]): number {
  out.push(text(PAD, y + 40, 40, role, { bold: true }));
  if (row.decision_p50_s === null || row.decision_p90_s === null) {
    out.push(text(CHART_WIDTH - PAD, y + 40, 34, "no decisions", { anchor: "end", fill: COLOURS.muted }));
    return 80;
  }
  const label = `median ${humanSeconds(row.decision_p50_s)} · 90% ${humanSeconds(row.decision_p90_s)}`;
  out.push(text(CHART_WIDTH - PAD, y + 40, 34, label, { anchor: "end" }));
  const scale = maxSeconds > 0 ? BAR_W / maxSeconds : 0;
  const barY = y + 60;
  out.push(`<rect x="${PAD}" y="${barY}" width="${BAR_W}" height="26" rx="13" fill="#f1f3f4"/>`);
  out.push(
    `<rect x="${PAD}" y="${barY}" width="${Math.max(26, row.decision_p90_s * scale).toFixed(1)}" height="26" rx="13" fill="${COLOURS.expired}"/>`,
  );
  out.push(
    `<rect x="${PAD}" y="${barY}" width="${Math.max(26, row.decision_p50_s * scale).toFixed(1)}" height="26" rx="13" fill="${COLOURS.ink}"/>`,
  );
  return 120;
}

/** The picture of a report as an SVG document (`roles` in the order to show them). */
export function reportSvg(report: Report, roles: readonly string[] = Object.keys(report.roles)): string {
  const rows = roles.map((r) => [r, report.roles[r]!] as const);
  const total = rows.reduce((n, [, r]) => n + r.drafts, 0);
  const sum = (k: "sent" | "revise" | "expired") => rows.reduce((n, [, r]) => n + r[k], 0);
  const out: string[] = [];
  out.push(text(PAD, 96, 56, "Drafts and decisions", { bold: true }));
  out.push(text(PAD, 150, 34, periodLabel(report), { fill: COLOURS.muted }));
  out.push(text(PAD, 206, 36, `${total} drafts · ${sum("sent")} sent · ${sum("revise")} sent back · ${sum("expired")} expired`));
  out.push(legend(276));
  let y = 310;
  const max = Math.max(1, ...rows.map(([, r]) => r.drafts));
  for (const [role, row] of rows) y += roleBlock(role, row, y, max, out);
  y += 20;
  out.push(`<rect x="${PAD}" y="${y}" width="${BAR_W}" height="3" fill="#dadce0"/>`);
  out.push(text(PAD, y + 70, 44, "Time to decision", { bold: true }));
  y += 100;
  const maxSeconds = Math.max(0, ...rows.map(([, r]) => r.decision_p90_s ?? 0));
  for (const [role, row] of rows) y += timeBlock(role, row, y, maxSeconds, out);
  const height = Math.ceil(y + 30);
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${CHART_WIDTH}" height="${height}" viewBox="0 0 ${CHART_WIDTH} ${height}" font-family="Inter">`,
    `<rect width="${CHART_WIDTH}" height="${height}" fill="#ffffff"/>`,
    ...out,
    "</svg>",
  ].join("\n");
}
