import { atLocalTime, type NextRun } from "./schedule.js";
import { lastLocalTime, localDayAt, nextLocalTime, type LocalTime } from "./local-time.js";

/**
 * The weekly report's calendar (REPORT_DAY): it is due at 09:00 local time
 * (REVIEW_TIMEZONE, the process's zone) on that weekday and covers the seven
 * local days before. Local Date arithmetic picks the real instants, so the
 * week across a daylight-saving night is 167 or 169 hours long and still
 * starts and ends at 09:00 on the clock (the arithmetic is local-time.ts's).
 * Pure functions of a timestamp.
 */

/** REPORT_DAY's values, Sunday first as Date.getDay() counts. */
export const WEEKDAYS = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"] as const;
/** One of `WEEKDAYS`. */
export type Weekday = (typeof WEEKDAYS)[number];
/** The local hour the weekly report is due. */
export const REPORT_HOUR = 9;

/** The weekday of REPORT_DAY's text (`mon`, `Monday`, `MON`), or null. */
export function parseWeekday(text: string): Weekday | null {
  const t = text.trim().toLowerCase();
  const day = WEEKDAYS.find((d) => t === d || (t.length >= 3 && `${d}${DAY_TAIL[d]}`.startsWith(t)));
  return day ?? null;
}

const DAY_TAIL: Record<Weekday, string> = { sun: "day", mon: "day", tue: "sday", wed: "nesday", thu: "rsday", fri: "day", sat: "urday" };

/** REPORT_DAY's 09:00 as a local time. */
function dueTime(day: Weekday): LocalTime {
  return { hour: REPORT_HOUR, weekday: WEEKDAYS.indexOf(day) };
}

/** The last time at or before `nowMs` the report was due (`day` at 09:00 local). */
export function lastDue(nowMs: number, day: Weekday): number {
  return lastLocalTime(nowMs, dueTime(day));
}

/** The next time after `nowMs` the report is due. */
export function nextDue(nowMs: number, day: Weekday): number {
  return nextLocalTime(nowMs, dueTime(day));
}

/** When the weekly report runs, for the scheduler. */
export function weeklyDue(day: Weekday): NextRun {
  return atLocalTime(dueTime(day));
}

/** The week a report due at `dueMs` covers: the seven local days before it. */
export function weekBefore(dueMs: number): { sinceMs: number; untilMs: number } {
  return { sinceMs: localDayAt(dueMs, -7, { hour: REPORT_HOUR }), untilMs: dueMs };
}
