import type { Report, ReportRow } from "./report-model.js";
import { INK } from "./svg-text.js";

/**
 * What the report picture says besides drawing: the segments of a role's bar
 * (colour, name, number) and the change against the period before, in words.
 */

/** One kind of segment of a role's bar. */
export interface SegmentKind {
  readonly name: string;
  readonly colour: string;
  /** The colour of its number (contrast on its fill). */
  readonly label: string;
  /** Drawn as a dashed outline: drafts with no outcome yet. */
  readonly dashed?: boolean;
}

/** A segment of one role's bar. */
export interface Segment extends SegmentKind {
  readonly n: number;
}

/** The segments in the order they are stacked; the legend names each. */
export const SEGMENT_KINDS: readonly SegmentKind[] = [
  { name: "sent as drafted", colour: "#1b7f3b", label: INK.white },
  { name: "edited, then sent", colour: "#7cc48f", label: INK.ink },
  { name: "sent back", colour: "#e8710a", label: INK.white },
  { name: "expired", colour: "#9aa0a6", label: INK.ink },
  { name: "waiting or other", colour: "#9aa0a6", label: INK.muted, dashed: true },
];

/** The colour of "sent back" (the notes carry it too). */
export const SENT_BACK_COLOUR = SEGMENT_KINDS[2]!.colour;

/** A role's bar: sent as drafted, sent after an edit, sent back, expired, and the rest (waiting, replaced, failed). */
export function segmentsOf(row: ReportRow): Segment[] {
  const edited = Math.min(row.edited, row.sent);
  const rest = Math.max(0, row.drafts - row.sent - row.revise - row.expired);
  const counts = [row.sent - edited, edited, row.revise, row.expired, rest];
  return SEGMENT_KINDS.map((kind, i) => ({ ...kind, n: counts[i]! }));
}

/** How the period before is named: `the week before`, `the day before`, `the 30 days before`, `the period before`. */
export function previousName(report: Pick<Report, "since" | "until">): string {
  const hours = (Date.parse(report.until) - Date.parse(report.since)) / 3_600_000;
  if (Math.abs(hours - 168) <= 1) return "the week before";
  if (Math.abs(hours - 24) <= 1) return "the day before";
  if (Math.abs(hours / 24 - Math.round(hours / 24)) < 0.05) return `the ${Math.round(hours / 24)} days before`;
  return "the period before";
}

/** The share of decided drafts sent without an edit, in percent; null with no decided draft. */
function asDraftedPercent(row: ReportRow): number | null {
  const decided = row.sent + row.revise + row.expired;
  return decided === 0 ? null : Math.round((100 * (row.sent - Math.min(row.edited, row.sent))) / decided);
}

/** `up from 64%`, `down from 3`, `as before`. */
function compared(now: number, before: number, unit = ""): string {
  if (now === before) return "as before";
  return `${now > before ? "up" : "down"} from ${before}${unit}`;
}

/**
 * A role's change against the period before, in words:
 * `Sent as drafted 71%, up from 64% · 2 sent back, down from 3`.
 */
export function changeLine(row: ReportRow, before: ReportRow, prevName: string): string {
  if (before.drafts === 0) return row.drafts === 0 ? `No drafts, nor ${prevName}.` : `No drafts ${prevName} to compare with.`;
  if (row.drafts === 0) return `No drafts; ${before.drafts} ${prevName}.`;
  const parts: string[] = [];
  const now = asDraftedPercent(row);
  const then = asDraftedPercent(before);
  if (now !== null) parts.push(`Sent as drafted ${now}%${then === null ? "" : `, ${compared(now, then, "%")}`}`);
  parts.push(`${row.revise} sent back, ${compared(row.revise, before.revise)}`);
  return parts.join(" · ");
}
