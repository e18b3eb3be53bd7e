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

/**
 * The first moment strictly after `nowMs` when the local clock shows
 * `hour`:00. Across a DST change the Date arithmetic picks the real instant;
 * an hour that a spring-forward skips comes an hour late that day.
 */
export function nextLocalHour(nowMs: number, hour: number): number {
  const d = new Date(nowMs);
  d.setHours(hour, 0, 0, 0);
  if (d.getTime() > nowMs) return d.getTime();
  d.setDate(d.getDate() + 1);
  d.setHours(hour, 0, 0, 0);
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
