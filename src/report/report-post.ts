import type { AuditEntry } from "../audit/audit-schema.js";
import { reportSvg } from "./chart-svg.js";
import { readAuditPeriod } from "./audit-period.js";
import { readPeriod, type ReportFiles } from "./read-period.js";
import { reportCaption } from "./report-text.js";
import type { Period } from "./report-model.js";
import { svgToPng } from "./render-png.js";

/** What posting a report picture needs: the files, the review chat's photo call and the audit log. */
export interface ReportPostDeps {
  readonly files: ReportFiles;
  /** Sends the PNG with its caption into the review chat (TelegramReviewChat.sendPhoto); resolves with the message id. */
  readonly sendPhoto: (png: Uint8Array, caption: string, filename: string) => Promise<number>;
  readonly audit: { append(entries: readonly AuditEntry[]): Promise<void> };
  /** The daemon's clock (the period's archive months run to now). */
  readonly now: () => number;
}

/**
 * Reads the period, draws its picture, posts it with a one-line caption, and
 * audits it (`report_posted`): for the weekly report that line is what makes
 * it once per week, across restarts too.
 */
export async function postReport(
  deps: ReportPostDeps,
  period: Period,
  by: { readonly trigger: "schedule" | "command"; readonly userId: number | null },
): Promise<void> {
  const data = await readPeriod(deps.files, period, deps.now());
  const png = await svgToPng(reportSvg(data.report));
  const caption = reportCaption(data.report, by.trigger === "schedule" ? "Weekly report" : "Report");
  const messageId = await deps.sendPhoto(png, caption, "report.png");
  await deps.audit.append([
    {
      kind: "report_posted",
      trigger: by.trigger,
      since: data.report.since,
      until: data.report.until,
      message_id: messageId,
      user_id: by.userId,
    },
  ]);
}

/**
 * True when the weekly report due at `dueMs` was posted: a `report_posted`
 * line of the schedule for that week, looked for among the lines written
 * since it was due (a short read, not the history).
 */
export async function weeklyReportPosted(files: ReportFiles, dueMs: number, nowMs: number): Promise<boolean> {
  const until = new Date(dueMs).toISOString();
  let found = false;
  await readAuditPeriod(files.audit, files.source, { sinceMs: dueMs, untilMs: Math.max(nowMs, dueMs) + 1 }, (_at, line) => {
    if (line.kind === "report_posted" && line.trigger === "schedule" && line.until === until) found = true;
  });
  return found;
}
