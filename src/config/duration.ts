const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/**
 * Parses a duration such as `90s`, `15m`, `24h` (also `ms` and `d`) into
 * milliseconds. Returns null for anything else, so the caller can name the
 * variable that holds it.
 */
export function parseDuration(text: string): number | null {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)\s*$/.exec(text);
  if (!m) return null;
  const ms = Number(m[1]) * UNITS[m[2]!]!;
  return Number.isFinite(ms) && ms > 0 ? Math.round(ms) : null;
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
