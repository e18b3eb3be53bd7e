import type { MessageEntity } from "grammy/types";

/**
 * Local wall-clock arithmetic for the owner's views: "today" in /status and
 * the digest hour are the owner's local time (the process's TZ), while every
 * stored time stays UTC. Pure functions of a millisecond timestamp.
 */

/** Midnight (local time) of the day that contains `nowMs`. */
export function startOfLocalDay(nowMs: number): number {
  const d = new Date(nowMs);
  d.setHours(0, 0, 0, 0);
  return d.getTime();
}

/** `2030-01-02 08:00` in local time, for messages. */
export function localMinute(ms: number): string {
  const d = new Date(ms);
  const p = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}`;
}

/** A short age: `45s`, `12m`, `3h`, `2d 4h`. */
export function shortAge(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m`;
  if (s < 86_400) return `${Math.floor(s / 3600)}h${s % 3600 >= 60 ? ` ${Math.floor((s % 3600) / 60)}m` : ""}`;
  const h = Math.floor((s % 86_400) / 3600);
  return `${Math.floor(s / 86_400)}d${h > 0 ? ` ${h}h` : ""}`;
}

/** Built once per zone: constructing an Intl.DateTimeFormat costs far more than using one (~1 ms each on a review post). */
const formatters = new Map<string, { parts: Intl.DateTimeFormat; month: Intl.DateTimeFormat }>();

function formattersFor(timeZone: string | undefined): { parts: Intl.DateTimeFormat; month: Intl.DateTimeFormat } {
  // No zone: the process's, which follows process.env.TZ (REVIEW_TIMEZONE sets it; tests change it).
  const key = timeZone ?? `process:${process.env.TZ ?? ""}`;
  let f = formatters.get(key);
  if (f === undefined) {
    f = {
      parts: new Intl.DateTimeFormat("en-GB", {
        timeZone,
        year: "numeric",
        month: "2-digit",
        day: "2-digit",
        hour: "2-digit",
        minute: "2-digit",
        hourCycle: "h23",
        weekday: "short",
      }),
      month: new Intl.DateTimeFormat("en-GB", { timeZone, month: "short" }),
    };
    formatters.set(key, f);
  }
  return f;
}

/** The calendar fields of an instant in a time zone (undefined: the process's zone, which REVIEW_TIMEZONE sets). */
function zoned(
  ms: number,
  timeZone: string | undefined,
): { y: number; mo: number; d: number; h: number; mi: number; wd: string; mon: string } {
  const f = formattersFor(timeZone);
  const parts = f.parts.formatToParts(new Date(ms));
  const get = (type: string) => parts.find((p) => p.type === type)?.value ?? "";
  const mon = f.month.format(new Date(ms));
  return {
    y: Number(get("year")),
    mo: Number(get("month")),
    d: Number(get("day")),
    h: Number(get("hour")),
    mi: Number(get("minute")),
    wd: get("weekday"),
    mon,
  };
}

/** Days between two calendar dates (a DST day still counts as one). */
function dayDiff(a: { y: number; mo: number; d: number }, b: { y: number; mo: number; d: number }): number {
  return Math.round((Date.UTC(b.y, b.mo - 1, b.d) - Date.UTC(a.y, a.mo - 1, a.d)) / 86_400_000);
}

/** A rounded distance for people: `45 s`, `12 min`, `23 h`, `3 d`. */
export function roughDuration(ms: number): string {
  const s = Math.round(Math.abs(ms) / 1000);
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.round(s / 60)} min`;
  if (s < 86_400 * 2) return `${Math.round(s / 3600)} h`;
  return `${Math.round(s / 86_400)} d`;
}

/**
 * An instant as a person reads it, in REVIEW_TIMEZONE: `today 14:03`,
 * `tomorrow 09:15`, `yesterday 23:50`, `Wed 3 Dec 09:15`, `3 Dec 2027 09:15`.
 */
export function localWhen(ms: number, nowMs: number, timeZone?: string): string {
  const at = zoned(ms, timeZone);
  const now = zoned(nowMs, timeZone);
  const hm = `${String(at.h).padStart(2, "0")}:${String(at.mi).padStart(2, "0")}`;
  const days = dayDiff(now, at);
  if (days === 0) return `today ${hm}`;
  if (days === 1) return `tomorrow ${hm}`;
  if (days === -1) return `yesterday ${hm}`;
  if (at.y !== now.y) return `${at.d} ${at.mon} ${at.y} ${hm}`;
  return `${Math.abs(days) < 7 ? `${at.wd} ` : ""}${at.d} ${at.mon} ${hm}`;
}

/** `tomorrow 09:15, in 23 h` (future) or `today 08:00, 2 h ago` (past). */
export function localWhenRelative(ms: number, nowMs: number, timeZone?: string): string {
  const delta = ms - nowMs;
  return `${localWhen(ms, nowMs, timeZone)}, ${delta >= 0 ? `in ${roughDuration(delta)}` : `${roughDuration(delta)} ago`}`;
}

/** The zone name shown beside times, e.g. `Europe/Berlin`. */
export function zoneName(timeZone?: string): string {
  return new Intl.DateTimeFormat("en-GB", { timeZone }).resolvedOptions().timeZone;
}

/** A local time of day (REVIEW_TIMEZONE, the process's zone), every day or on one weekday (0 = Sunday, as Date.getDay counts). */
export interface LocalTime {
  readonly hour: number;
  readonly minute?: number;
  readonly weekday?: number;
}

/**
 * `ms` moved by `days` local calendar days, at `at`'s hour and minute local
 * time. Across a DST change the Date arithmetic picks the real instant (a
 * week is then 167 or 169 hours); a time a spring-forward skips comes an hour
 * late that day.
 */
export function localDayAt(ms: number, days: number, at: Pick<LocalTime, "hour" | "minute">): number {
  const d = new Date(ms);
  d.setDate(d.getDate() + days);
  d.setHours(at.hour, at.minute ?? 0, 0, 0);
  return d.getTime();
}

/** The last moment at or before `nowMs` when the local clock showed `at` (on its weekday, when it has one). */
export function lastLocalTime(nowMs: number, at: LocalTime): number {
  const back = at.weekday === undefined ? 0 : (new Date(nowMs).getDay() - at.weekday + 7) % 7;
  const t = localDayAt(nowMs, -back, at);
  return t <= nowMs ? t : localDayAt(t, at.weekday === undefined ? -1 : -7, at);
}

/** The first moment strictly after `nowMs` when the local clock shows `at` (on its weekday, when it has one). */
export function nextLocalTime(nowMs: number, at: LocalTime): number {
  return localDayAt(lastLocalTime(nowMs, at), at.weekday === undefined ? 1 : 7, at);
}

/** True when two instants fall on the same local calendar day. */
export function sameLocalDay(aMs: number, bMs: number): boolean {
  return startOfLocalDay(aMs) === startOfLocalDay(bMs);
}

/** `Mon 24 Mar 09:00` in REVIEW_TIMEZONE (the process's zone unless `timeZone`). */
export function localDayTime(ms: number, timeZone?: string): string {
  const at = zoned(ms, timeZone);
  return `${at.wd} ${at.d} ${at.mon} ${String(at.h).padStart(2, "0")}:${String(at.mi).padStart(2, "0")}`;
}

/**
 * How a Telegram client renders a `date_time` entity (Bot API 9.5): `r`
 * relative ("in 5 minutes", "2 hours ago"); otherwise `w` the weekday, `d`/`D`
 * a short or long date, `t`/`T` a short or long time.
 */
export type DateTimeFormat = MessageEntity.DateTimeMessageEntity["date_time_format"];

/**
 * An instant in a message: `text` is an absolute time in REVIEW_TIMEZONE (what a
 * client without date_time entities shows, true whenever it is read), and
 * the client renders `unixTime` in `format` instead, relative forms included,
 * so no message keeps a relative time that goes stale.
 */
export interface TimeMark {
  readonly text: string;
  /** Whole seconds (the instant, truncated), as Telegram requires. */
  readonly unixTime: number;
  readonly format: DateTimeFormat;
}

/**
 * `Wed 3 Dec 14:03` (or `Wed 3 Dec 2027 14:03` in another year than `nowMs`'s)
 * in REVIEW_TIMEZONE; `14:03:12` for a format with seconds (`T`): an absolute
 * time, never "today" or "in 5 min", so it stays true.
 */
export function absoluteTime(ms: number, format: DateTimeFormat, timeZone?: string, nowMs = ms): string {
  const at = zoned(ms, timeZone);
  const hm = `${String(at.h).padStart(2, "0")}:${String(at.mi).padStart(2, "0")}`;
  if (format === "T") return `${hm}:${String(new Date(ms).getUTCSeconds()).padStart(2, "0")}`;
  const day = localDayTime(ms, timeZone);
  return at.y === zoned(nowMs, timeZone).y ? day : day.replace(/ (\d\d:\d\d)$/, ` ${at.y} $1`);
}

/** An instant for a message (see TimeMark), rendered by the client in `format`. */
export function timeMark(ms: number, format: DateTimeFormat, timeZone?: string, nowMs = ms): TimeMark {
  return { text: absoluteTime(ms, format, timeZone, nowMs), unixTime: Math.floor(ms / 1000), format };
}

/** The date_time entity of `mark` at `offset` (UTF-16 code units, as JavaScript counts). */
export function timeEntity(mark: TimeMark, offset: number): MessageEntity.DateTimeMessageEntity {
  return { type: "date_time", offset, length: mark.text.length, unix_time: mark.unixTime, date_time_format: mark.format };
}

/** A message's text and its entities. */
export interface TimedText {
  readonly text: string;
  readonly entities: MessageEntity[];
}

/** Joins text and times into one message text, each time under its date_time entity. */
export function timed(...parts: ReadonlyArray<string | TimeMark>): TimedText {
  let text = "";
  const entities: MessageEntity[] = [];
  for (const part of parts) {
    if (typeof part !== "string") entities.push(timeEntity(part, text.length));
    text += typeof part === "string" ? part : part.text;
  }
  return { text, entities };
}

/**
 * The date_time entities of `marks` in a text built from their `text`s
 * elsewhere: each at the first place, at or after `from`, where `before` and
 * the mark's text stand together (none for a mark the text does not show).
 */
export function timeEntitiesIn(text: string, marks: ReadonlyArray<{ mark: TimeMark; before: string }>, from = 0): MessageEntity[] {
  return marks.flatMap(({ mark, before }) => {
    const at = text.indexOf(before + mark.text, from);
    return at < 0 ? [] : [timeEntity(mark, at + before.length)];
  });
}
