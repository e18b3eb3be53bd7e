/**
 * 6. Start-up time and peak RSS after 1k, 10k and 100k finished drafts with
 * their audit lines (ten per draft): each size generated once, then started
 * in fresh processes: once, then LATER_STARTS more times (all sizes in turn,
 * after every size is generated). The first start reads
 * the whole audit log (no checkpoint yet) and archives the drafts past
 * DRAFT_RETENTION (a one-off); the median of the later ones is every later
 * start. `BENCH_HISTORY_SIZES=1000,10000` picks sizes.
 * Every size runs with DRAFT_RETENTION=21d (BENCH_HISTORY_RETENTION), so each
 * keeps the same ~1,000 most recent drafts live and the sizes differ only by
 * history; at the default 30d the 1k size could not fill the live set.
 */
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { fixed, tempDir } from "./support.js";
import { info, judged, type Row } from "./table.js";

const run = promisify(execFile);

/** Later starts per size; the median is the figure. */
const LATER_STARTS = 5;

interface StartReport {
  seconds: number;
  maxRssMB: number;
  liveDrafts: number;
  auditFromCheckpoint: boolean;
  auditBytesRead: number;
}

async function child(args: string[]): Promise<string> {
  const { stdout } = await run(process.execPath, [join(import.meta.dirname, "history-child.js"), ...args], { maxBuffer: 1 << 20 });
  return stdout.trim().split("\n").at(-1)!;
}

/** One size: its directory, and what its generation and first start gave. */
interface Prepared {
  readonly n: number;
  readonly tmp: Awaited<ReturnType<typeof tempDir>>;
  readonly auditLines: number;
  readonly first: StartReport;
  readonly later: StartReport[];
}

function failedRow(n: number, err: unknown): Row {
  return info(
    "6",
    `${n} finished drafts`,
    `failed: ${String((err as { stderr?: string }).stderr ?? (err as Error).message)
      .trim()
      .split("\n")
      .slice(-3)
      .join(" | ")
      .slice(0, 300)}`,
  );
}

/**
 * The section's rows. Every size is generated and started once first; then the
 * later starts go round-robin across the sizes, so each size's figure is taken
 * under the same conditions (not the 1k one on a quiet disk and the 100k one
 * while the kernel still writes back the 1 GB its generation produced).
 */
export async function historySection(): Promise<Row[]> {
  const sizes = (process.env.BENCH_HISTORY_SIZES ?? "1000,10000,100000").split(",").map(Number);
  const rows: Row[] = [];
  const steady = new Map<number, StartReport>();
  const prepared: Prepared[] = [];
  try {
    for (const n of sizes) {
      const tmp = await tempDir(`history-${n}`);
      try {
        const gen = JSON.parse(await child(["generate", tmp.dir, String(n)])) as { auditLines: number };
        const first = JSON.parse(await child(["start", tmp.dir])) as StartReport;
        prepared.push({ n, tmp, auditLines: gen.auditLines, first, later: [] });
      } catch (err) {
        rows.push(failedRow(n, err));
        await tmp.remove();
      }
    }
    // A later start takes 0.1-0.3 s: one sample on a shared machine is mostly noise, so the median of LATER_STARTS.
    const failed = new Set<Prepared>();
    for (let i = 0; i < LATER_STARTS; i++) {
      for (const p of prepared) {
        if (failed.has(p)) continue;
        try {
          p.later.push(JSON.parse(await child(["start", p.tmp.dir])) as StartReport);
        } catch (err) {
          failed.add(p);
          rows.push(failedRow(p.n, err));
        }
      }
    }
    for (const p of prepared) {
      if (failed.has(p)) continue;
      const again = p.later.sort((a, b) => a.seconds - b.seconds)[Math.floor(LATER_STARTS / 2)]!;
      steady.set(p.n, again);
      rows.push(
        info(
          "6",
          `${p.n} finished drafts (${p.auditLines} audit lines): first start (full audit read, archiving)`,
          `${fixed(p.first.seconds)} s, peak RSS ${fixed(p.first.maxRssMB, 0)} MB; ${p.first.liveDrafts} drafts kept live`,
        ),
        info(
          "6",
          `${p.n} finished drafts: every later start (median of ${LATER_STARTS}, sizes taken in turn)`,
          `${fixed(again.seconds)} s, peak RSS ${fixed(again.maxRssMB, 0)} MB; ${again.liveDrafts} live drafts, audit read from checkpoint: ${again.auditFromCheckpoint ? `yes, ${again.auditBytesRead} bytes after it` : "no"}`,
        ),
      );
    }
  } finally {
    for (const p of prepared) await p.tmp.remove();
  }
  const small = steady.get(Math.min(...sizes));
  const big = steady.get(Math.max(...sizes));
  if (small && big && small !== big) {
    const t = big.seconds / small.seconds;
    const m = big.maxRssMB / small.maxRssMB;
    rows.push(
      judged(
        "6",
        `start-up time, ${Math.max(...sizes)} vs ${Math.min(...sizes)} finished drafts (same live set: ${big.liveDrafts} vs ${small.liveDrafts})`,
        `${fixed(t)}x`,
        "≤ 1.5x",
        t <= 1.5,
      ),
    );
    rows.push(
      judged("6", `peak RSS at start, ${Math.max(...sizes)} vs ${Math.min(...sizes)} finished drafts`, `${fixed(m)}x`, "≤ 1.5x", m <= 1.5),
    );
  }
  return rows;
}
