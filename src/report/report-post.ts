import type { AuditEntry } from "../audit/audit-schema.js";
import { reportSvg } from "./chart-svg.js";
import { readPeriod, type ReportFiles } from "./read-period.js";
import { periodLabel, reportCaption } from "./report-text.js";
import type { Period, Report } from "./report-model.js";
import { svgToPng } from "./render-png.js";

/** What posting a report picture needs: the files, the review chat's photo call and the audit log. */
export interface ReportPostDeps {
  readonly files: ReportFiles;
  /** Sends the PNG with its caption into the review chat (TelegramReviewChat.sendPhoto); resolves with the message id. */
  readonly sendPhoto: (png: Uint8Array, caption: string, filename: string) => Promise<number>;
  /** Appends (fsync'd) to the audit log. */
  readonly audit: { append(entries: readonly AuditEntry[]): Promise<void> };
  /** The daemon's clock (the period's archive months run to now). */
  readonly now: () => number;
}

/** What became of a report: posted, or not drawn because no draft was made in the period. */
export type ReportOutcome = { readonly posted: true; readonly messageId: number } | { readonly posted: false; readonly report: Report };

/** True when no draft was made in the report's period. */
export function isEmpty(report: Report): boolean {
  return Object.values(report.roles).every((r) => r.drafts === 0);
}

/**
 * Reads the period, draws its picture, posts it with a one-line caption, and
 * audits it (`report_posted`). A period with no drafts gets no picture (an
 * empty chart says nothing): the caller says so in words, or nothing for a
 * weekly report. The weekly one writes its intent first (`report_intent`,
 * fsync'd before the sendPhoto): a stop between the two lines leaves it
 * unknown whether Telegram took it, and it is never posted again
 * (weekly-report.ts), as answers are marked before they go (answer-mark.ts).
 */
export async function postReport(
  deps: ReportPostDeps,
  period: Period,
  by: { readonly trigger: "schedule" | "command"; readonly userId: number | null },
): Promise<ReportOutcome> {
  const data = await readPeriod(deps.files, period, deps.now());
  const { since, until } = data.report;
  if (isEmpty(data.report)) return { posted: false, report: data.report };
  const png = await svgToPng(reportSvg(data.report));
  const caption = reportCaption(data.report, by.trigger === "schedule" ? "Weekly report" : "Report");
  if (by.trigger === "schedule") await deps.audit.append([{ kind: "report_intent", trigger: "schedule", since, until }]);
  const messageId = await deps.sendPhoto(png, caption, "report.png");
  await deps.audit.append([{ kind: "report_posted", trigger: by.trigger, since, until, message_id: messageId, user_id: by.userId }]);
  return { posted: true, messageId };
}

/** /report's answer in words for a period with no drafts. */
export function emptyReportText(report: Report): string {
  return `No drafts were made in the last 7 days (${periodLabel(report)}), so there is no picture.`;
}
