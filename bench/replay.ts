/**
 * 4. Start-up replay of a store of 1M lines (100k drafts, 10 versions each),
 * written with the store's own line codec. Each replay runs in a child
 * process, so its peak RSS (process.resourceUsage().maxRSS) is its own.
 */
import { execFile } from "node:child_process";
import { open, statfs } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { encodeLine } from "../src/store/line-codec.js";
import { lifecycle } from "./records.js";

const run = promisify(execFile);

/** What a replay child reports. */
export interface ReplayReport {
  readonly mode: string;
  readonly seconds: number;
  readonly drafts: number;
  readonly lines: number;
  readonly maxRssMB: number;
}

/** Bytes free for an unprivileged writer on the filesystem of `dir`. */
export async function freeBytes(dir: string): Promise<number> {
  const s = await statfs(dir);
  return s.bavail * s.bsize;
}

/** What was written: lines and bytes of the full store, and of the store at the compaction bound. */
export interface Written {
  readonly lines: number;
  readonly bytes: number;
  readonly boundLines: number;
  readonly boundBytes: number;
}

/**
 * Writes `drafts` drafts x 10 versions to `path`, interleaved as a live store
 * would have them (blocks of 1000 drafts progress together). Also writes
 * `boundPath`: the same drafts' last two versions each, the longest file the
 * store's auto-compaction lets exist (it compacts past 2 lines per draft).
 */
export async function writeStore(path: string, boundPath: string, drafts: number): Promise<Written> {
  const full = await open(path, "w", 0o600);
  const bound = await open(boundPath, "w", 0o600);
  const out = { lines: 0, bytes: 0, boundLines: 0, boundBytes: 0 };
  try {
    const start = Date.parse("2026-01-05T08:00:00Z");
    for (let from = 0; from < drafts; from += 1000) {
      const block: ReturnType<typeof lifecycle>[] = [];
      for (let i = from; i < Math.min(drafts, from + 1000); i++) block.push(lifecycle(i, start + i * 60_000));
      for (let v = 0; v < 10; v++) {
        const lines = block.flatMap((versions) => (versions[v] ? [encodeLine(versions[v]!)] : []));
        const data = Buffer.from(lines.join(""));
        await full.write(data);
        out.lines += lines.length;
        out.bytes += data.length;
        if (v < 8) continue;
        const tail = Buffer.from(lines.join(""));
        await bound.write(tail);
        out.boundLines += lines.length;
        out.boundBytes += tail.length;
      }
    }
    await full.sync();
    await bound.sync();
  } finally {
    await full.close();
    await bound.close();
  }
  return out;
}

/** Runs `node replay-child.js <mode> <path>` and returns its report. */
export async function replayInChild(mode: string, path: string): Promise<ReplayReport> {
  const child = join(import.meta.dirname, "replay-child.js");
  const { stdout } = await run(process.execPath, [child, mode, path], { maxBuffer: 1 << 20 });
  return JSON.parse(stdout.trim().split("\n").at(-1)!) as ReplayReport;
}
