const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** One day in milliseconds. */
export const DAY_MS = 86_400_000;

/**
 * The longest duration anything accepts (3650d, ten years): far past any TTL,
 * deferral or retention an operator means, and far inside what a Date can
 * hold, so no sum of a few such durations ever makes an Invalid Date.
 */
export const MAX_DURATION_MS = 3650 * DAY_MS;

/**
 * Parses a duration such as `90s`, `15m`, `24h` (also `ms` and `d`) into
 * milliseconds. Returns null for anything else, and for a value past
 * MAX_DURATION_MS, so the caller can name the variable that holds it (see
 * readDuration for why a value is refused).
 */
export function parseDuration(text: string): number | null {
  const read = readDuration(text);
  return read.ok ? read.ms : null;
}

/** A duration read from text, or why it is not one (the caller names the variable or field). */
export type DurationRead = { readonly ok: true; readonly ms: number } | { readonly ok: false; readonly error: string };

/**
 * Reads a positive duration (`90s`, `15m`, `24h`, `30d`, `500ms`) no longer
 * than `maxMs` (default MAX_DURATION_MS). The error says what is wrong and
 * names the limit: a huge value is refused here, never found later as a hang
 * or an Invalid Date.
 */
export function readDuration(text: string, maxMs: number = MAX_DURATION_MS): DurationRead {
  const m = /^\s*(-\s*)?(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)\s*$/.exec(text);
  const ms = m ? Number(m[2]) * UNITS[m[3]!]! : Number.NaN;
  if (!m || !Number.isFinite(ms)) return { ok: false, error: `"${text}" is not a duration such as 90s, 15m, 24h or 30d` };
  // A sign or a zero is a duration out of range, not an unknown word: say the range.
  if (m[1] !== undefined || Math.round(ms) <= 0) {
    const what = m[1] !== undefined ? "negative" : "zero";
    return { ok: false, error: `"${text}" is ${what}: a duration is more than 0 and at most ${formatDuration(maxMs)}` };
  }
  if (ms > maxMs) return { ok: false, error: `"${text}" is longer than the limit of ${formatDuration(maxMs)}` };
  return { ok: true, ms: Math.round(ms) };
}

/** Formats milliseconds the way the operator writes them (`90s`, `15m`, `24h`, `1h30m`). */
export function formatDuration(ms: number): string {
  if (ms % 86_400_000 === 0 && ms >= 86_400_000 * 2) return `${ms / 86_400_000}d`;
  const parts: string[] = [];
  let rest = Math.max(0, Math.round(ms / 1000));
  for (const [unit, size] of [
    ["h", 3600],
    ["m", 60],
    ["s", 1],
  ] as const) {
    if (rest >= size) {
      parts.push(`${Math.floor(rest / size)}${unit}`);
      rest %= size;
    }
  }
  return parts.join("") || "0s";
}
