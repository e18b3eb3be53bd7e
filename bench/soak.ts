/**
 * 7. `npm run bench -- soak`: 30 simulated days of steady traffic (see
 * soak-child.ts), the daily series and, for each measure, its least-squares
 * slope per day over the days after retention is reached (day 8 on).
 * `BENCH_SOAK_DAYS` and `BENCH_SOAK_PER_DAY` shrink it for a quick check.
 */
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { fixed } from "./support.js";
import { info, judged, type Row } from "./table.js";

const run = promisify(execFile);

type Day = Record<"day" | "rssMB" | "heapUsedMB" | "fds" | "storeKB" | "archiveKB" | "auditKB" | "liveDrafts" | "startSeconds", number>;

/** Least-squares slope of y over x. */
export function slope(points: ReadonlyArray<[number, number]>): number {
  const n = points.length;
  if (n < 2) return 0;
  const mx = points.reduce((s, [x]) => s + x, 0) / n;
  const my = points.reduce((s, [, y]) => s + y, 0) / n;
  let num = 0;
  let den = 0;
  for (const [x, y] of points) {
    num += (x - mx) * (y - my);
    den += (x - mx) ** 2;
  }
  return den === 0 ? 0 : num / den;
}

/** The section's rows. */
export async function soakSection(): Promise<Row[]> {
  const days = process.env.BENCH_SOAK_DAYS ?? "30";
  const perDay = process.env.BENCH_SOAK_PER_DAY ?? "100";
  const { stdout } = await run(process.execPath, ["--expose-gc", join(import.meta.dirname, "soak-child.js"), days, perDay], {
    maxBuffer: 8 << 20,
  });
  const series = stdout
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as Day);
  const rows: Row[] = [
    info(
      "7",
      `soak: ${days} simulated days x ${perDay} drafts, DRAFT_RETENTION=7d, restart every 3rd day`,
      "day: RSS MB, heap MB, fds, store kB, archive kB, live drafts, last start s",
    ),
  ];
  for (const d of series) {
    rows.push(
      info(
        "7",
        `  day ${d.day}`,
        `${fixed(d.rssMB, 0)}, ${fixed(d.heapUsedMB, 1)}, ${d.fds}, ${fixed(d.storeKB, 0)}, ${fixed(d.archiveKB, 0)}, ${d.liveDrafts}, ${fixed(d.startSeconds, 3)}`,
      ),
    );
  }
  const after = series.filter((d) => d.day >= 8);
  const per = (key: keyof Day) => slope(after.map((d) => [d.day, d[key]]));
  const mean = (key: keyof Day) => after.reduce((s, d) => s + d[key], 0) / Math.max(1, after.length);
  const flat = (key: keyof Day, label: string, unit: string) => {
    const s = per(key);
    const m = mean(key);
    // "≈ 0": what the trend adds over the whole window stays under 10% of the mean level. One-sided:
    // the question is growth; a start-up of ~50 ms sampled every third day falls as often as it rises.
    const ok = s * Math.max(1, after.length) <= 0.1 * Math.max(m, 1e-9);
    rows.push(
      judged(
        "7",
        `  slope of ${label} after retention (day 8-${days})`,
        `${fixed(s, 3)} ${unit}/day (mean ${fixed(m, 2)} ${unit})`,
        "≈ 0 (rise < 10% of mean over the window)",
        ok,
      ),
    );
  };
  flat("rssMB", "RSS", "MB");
  flat("heapUsedMB", "heap used", "MB");
  flat("fds", "open fds", "fds");
  flat("storeKB", "store size", "kB");
  flat("liveDrafts", "live drafts", "drafts");
  flat("startSeconds", "start-up time", "s");
  rows.push(
    info(
      "7",
      "  archive and audit log grow with history (by design: the audit log is never rewritten)",
      `archive ${fixed(per("archiveKB"), 0)} kB/day, audit ${fixed(per("auditKB"), 0)} kB/day`,
    ),
  );
  return rows;
}
