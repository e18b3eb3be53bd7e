import { localDayTime, shortAge, zoneName } from "../clock/local-time.js";
import type { Report, ReportRow } from "./report-model.js";

/**
 * The report for people: the CLI's table (80 columns), the picture's labels
 * and the caption. Times are local (REVIEW_TIMEZONE, the process's zone).
 */

/** A duration in seconds as people read it: `45s`, `12m`, `3h 5m`, `2d 4h`. */
export function humanSeconds(seconds: number): string {
  return shortAge(Math.round(seconds * 1000));
}

/** `Mon 24 Mar 09:00 – Mon 31 Mar 09:00`: the period, local time. */
export function periodLabel(report: Pick<Report, "since" | "until">): string {
  return `${localDayTime(Date.parse(report.since))} – ${localDayTime(Date.parse(report.until))}`;
}

const COLUMNS: Array<[keyof ReportRow, string, number]> = [
  ["drafts", "drafts", 7],
  ["sent", "sent", 5],
  ["revise", "revise", 7],
  ["deferred", "defer", 6],
  ["expired", "expired", 8],
  ["edited", "edited", 7],
  ["undone", "undone", 7],
  ["decision_p50_s", "p50", 8],
  ["decision_p90_s", "p90", 8],
];
const NAME_WIDTH = 15;

function cell(row: ReportRow, key: keyof ReportRow): string {
  const v = row[key];
  if (v === null) return "-";
  return key === "decision_p50_s" || key === "decision_p90_s" ? humanSeconds(v) : String(v);
}

/** A name cut to `width` characters, with … when cut. */
function fitName(name: string, width: number): string {
  const chars = [...name];
  return chars.length <= width ? name.padEnd(width) : `${chars.slice(0, width - 1).join("")}…`;
}

function tableLines(title: string, rows: ReadonlyArray<readonly [string, ReportRow]>): string[] {
  const head = fitName(title, NAME_WIDTH) + COLUMNS.map(([, h, w]) => h.padStart(w)).join("");
  return [head, ...rows.map(([name, row]) => fitName(name, NAME_WIDTH) + COLUMNS.map(([k, , w]) => cell(row, k).padStart(w)).join(""))];
}

/**
 * The CLI's report: the period, a table per role and one per destination
 * (by title or name where a draft's audience had one, else its chat id).
 */
export function reportTable(report: Report, names: ReadonlyMap<string, string>): string {
  const dests = Object.entries(report.destinations).map(([id, row]) => [names.get(id) ?? id, row] as const);
  return [
    `Report ${periodLabel(report)} (${zoneName()})`,
    "Drafts created in the period, as they stand at its end; p50/p90: time from",
    "the review post to the decision (send or revise) that stood.",
    "",
    ...tableLines("Role", Object.entries(report.roles)),
    "",
    ...(dests.length === 0 ? ["Destination: no drafts in the period"] : tableLines("Destination", dests)),
    ...picksLines(report),
  ].join("\n");
}

/** Where the owner picked among several destinations: how often he kept the role's recommendation, per kind and per role. */
function picksLines(report: Report): string[] {
  const count = (c: { picked: number; recommended: number }) => `${c.recommended} of ${c.picked}`;
  const kinds = Object.entries(report.picks).filter(([, c]) => c.picked > 0);
  if (kinds.length === 0) return [];
  const roles = Object.entries(report.roles).filter(([, r]) => r.picks.picked > 0);
  return [
    "",
    "Picked among several destinations: the role's recommendation kept",
    `  by where it recommended: ${kinds.map(([kind, c]) => `${kind} ${count(c)}`).join(", ")}`,
    `  by role: ${roles.map(([role, r]) => `${role} ${count(r.picks)}`).join(", ")}`,
  ];
}

/** The picture's one-line caption, headed `Weekly report` or `Report`. */
export function reportCaption(report: Report, heading: string): string {
  const rows = Object.values(report.roles);
  const sum = (k: "drafts" | "sent" | "revise" | "expired") => rows.reduce((n, r) => n + r[k], 0);
  const drafts = sum("drafts");
  return `${heading}, ${periodLabel(report)}: ${drafts} draft${drafts === 1 ? "" : "s"}, ${sum("sent")} sent, ${sum("revise")} sent back, ${sum("expired")} expired.`;
}
