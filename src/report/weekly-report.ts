import type { AuditRecord } from "../audit/audit-schema.js";
import { readAuditPeriod } from "./audit-period.js";
import { postReport, type ReportPostDeps } from "./report-post.js";
import { periodLabel } from "./report-text.js";
import { lastDue, weekBefore, type Weekday } from "../clock/week.js";

/**
 * The weekly report (REPORT_DAY), once per week across restarts and crashes.
 * The audit log is its memory: `report_intent` before the sendPhoto,
 * `report_posted` once Telegram took it, `report_unconfirmed` once the
 * reviewer was told that one may be missing. A week with an intent is never
 * posted again (a crash after Telegram took the picture must not post it
 * twice); a week with no drafts gets no picture.
 *
 * At start, the newest week that has drafts or a report line decides: a
 * REPORT_DAY the daemon was down for (that morning, or for days) is posted
 * then, for its own week, once; weeks with no drafts in between (the daemon
 * was down) are passed over, and older weeks are never posted after a newer one.
 */

/** How many weeks back a start looks for a week that is due and not out (an outage of a month). */
export const LOOKBACK_WEEKS = 5;

/** What the weekly report needs besides posting a picture. */
export interface WeeklyReportDeps extends ReportPostDeps {
  /** REPORT_DAY. */
  readonly day: Weekday;
  /** Posts a line in the review chat (the notice of a picture that may be missing). */
  readonly say: (text: string) => Promise<unknown>;
  readonly log: { info(obj: object, msg: string): void; warn(obj: object, msg: string): void };
}

/** What the audit log says of the week due at some time. */
type WeekState = "none" | "intent" | "posted" | "told";

/** Reads the state of the week due at `dueMs` from the lines written since (a short read, not the history). */
async function weekState(deps: WeeklyReportDeps, dueMs: number): Promise<WeekState> {
  const until = new Date(dueMs).toISOString();
  let state: WeekState = "none";
  const rank: Record<WeekState, number> = { none: 0, intent: 1, told: 2, posted: 3 };
  const see = (s: WeekState) => {
    if (rank[s] > rank[state]) state = s;
  };
  const period = { sinceMs: dueMs, untilMs: Math.max(deps.now(), dueMs) + 1 };
  const onLine = (_at: number, line: AuditRecord) => {
    if (line.kind === "report_posted" && line.trigger === "schedule" && line.until === until) see("posted");
    if (line.kind === "report_intent" && line.until === until) see("intent");
    if (line.kind === "report_unconfirmed" && line.until === until) see("told");
  };
  // Only our own lines: another writer's `report_posted` must not keep the week's picture from being posted.
  await readAuditPeriod(deps.files.audit, deps.files.source, period, onLine, deps.files.proves);
  return state;
}

/**
 * Settles the week due at `dueMs`: posts its picture unless it is out, was
 * begun, or the week had no drafts. Resolves "empty" for a week with no
 * drafts and nothing out (the start then looks at the week before), else "done".
 */
export async function settleWeek(deps: WeeklyReportDeps, dueMs: number): Promise<"done" | "empty"> {
  const due = new Date(dueMs).toISOString();
  const state = await weekState(deps, dueMs);
  if (state === "posted" || state === "told") {
    deps.log.info({ due }, "the week's report is already posted");
    return "done";
  }
  if (state === "intent") {
    await tellUnconfirmed(deps, dueMs);
    return "done";
  }
  try {
    const outcome = await postReport(deps, weekBefore(dueMs), { trigger: "schedule", userId: null });
    if (!outcome.posted) {
      deps.log.info({ due }, "no drafts in the week: no weekly report");
      return "empty";
    }
    deps.log.info({ due }, "posted the weekly report");
    return "done";
  } catch (err) {
    // The intent may be on disk while Telegram's answer is not: the picture may or may not be in the chat.
    if ((await weekState(deps, dueMs)) === "intent") await tellUnconfirmed(deps, dueMs);
    throw err;
  }
}

/** At start: the newest week (of the last LOOKBACK_WEEKS) that has drafts or a report line is settled; older ones are not. */
export async function catchUpWeeks(deps: WeeklyReportDeps): Promise<void> {
  let dueMs = lastDue(deps.now(), deps.day);
  for (let back = 0; back < LOOKBACK_WEEKS; back++) {
    if ((await settleWeek(deps, dueMs)) === "done") return;
    // The REPORT_DAY before is where this week began.
    dueMs = weekBefore(dueMs).sinceMs;
  }
  deps.log.info({ weeks: LOOKBACK_WEEKS }, "no weekly report due at start: no drafts in the last weeks");
}

/** Tells the reviewer (once: the line comes first) that a weekly picture may be missing, and where to get one. */
async function tellUnconfirmed(deps: WeeklyReportDeps, dueMs: number): Promise<void> {
  const week = weekBefore(dueMs);
  const since = new Date(week.sinceMs).toISOString();
  const until = new Date(week.untilMs).toISOString();
  deps.log.warn(
    { due: until },
    "the weekly report may not have reached the chat (a stop or a failed call while posting it); not posting it again",
  );
  await deps.audit.append([{ kind: "report_unconfirmed", since, until }]);
  await deps.say(
    `The weekly report of ${periodLabel({ since, until })} may be missing: the daemon stopped, or Telegram did not answer, while it was being posted. It is not posted twice; /report shows the last 7 days.`,
  );
}
