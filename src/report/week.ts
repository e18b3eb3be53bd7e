/**
 * The weekly report's calendar (REPORT_DAY): it is due at 09:00 local time
 * (REVIEW_TIMEZONE, the process's zone) on that weekday and covers the seven
 * local days before. Local Date arithmetic picks the real instants, so the
 * week across a daylight-saving night is 167 or 169 hours long and still
 * starts and ends at 09:00 on the clock. Pure functions of a timestamp.
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

/** `ms` moved by `days` local days, at REPORT_HOUR:00 local time. */
function localDayAt(ms: number, days: number): number {
  const d = new Date(ms);
  d.setDate(d.getDate() + days);
  d.setHours(REPORT_HOUR, 0, 0, 0);
  return d.getTime();
}

/** The last time at or before `nowMs` the report was due (`day` at 09:00 local). */
export function lastDue(nowMs: number, day: Weekday): number {
  const back = (new Date(nowMs).getDay() - WEEKDAYS.indexOf(day) + 7) % 7;
  const due = localDayAt(nowMs, -back);
  return due <= nowMs ? due : localDayAt(due, -7);
}

/** The next time after `nowMs` the report is due. */
export function nextDue(nowMs: number, day: Weekday): number {
  return localDayAt(lastDue(nowMs, day), 7);
}

/** The week a report due at `dueMs` covers: the seven local days before it. */
export function weekBefore(dueMs: number): { sinceMs: number; untilMs: number } {
  return { sinceMs: localDayAt(dueMs, -7), untilMs: dueMs };
}

/** True while `nowMs` is still the local day of `dueMs` (a daemon that was down at 09:00 posts later that day). */
export function sameLocalDay(dueMs: number, nowMs: number): boolean {
  const a = new Date(dueMs);
  const b = new Date(nowMs);
  return a.getFullYear() === b.getFullYear() && a.getMonth() === b.getMonth() && a.getDate() === b.getDate();
}
