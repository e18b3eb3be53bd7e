import { open, type FileHandle } from "node:fs/promises";
import { parseAuditLine, type AuditRecord } from "../audit/audit-schema.js";
import { sourceNeedle } from "../audit/audit-scan.js";
import { errCode, NOFOLLOW } from "../store/fs-util.js";
import { readLines } from "../store/line-reader.js";

/**
 * Reads the audit log's lines of one period without reading the history
 * before it: our lines carry `ts` in the order they were written (one writer,
 * one clock), so a binary search over byte offsets finds where the period
 * starts, reading a few KB per probe; the pass then reads from there to the
 * end, keeping the lines dated inside the period (a line dated out of order,
 * such as test mode's simulated clock writes, hides nothing after it). Other
 * writers' lines are skipped, as everywhere.
 */

/** How much a probe reads at a time. */
const PROBE_BYTES = 16 << 10;
/** Below this distance the search stops and the pass reads on. */
const LINEAR_BYTES = 64 << 10;
/** The start of one of our lines: its `ts`, then its `source`. */
const HEAD = /^\{"ts":"([^"]{1,40})","source":("(?:[^"\\]|\\.)*")/;

/** What a pass read, for tests and the cost check. */
export interface PeriodScan {
  /** Where the pass began (a line start). */
  readonly startOffset: number;
  /** Bytes the pass read (probes not included). */
  readonly bytesRead: number;
}

/**
 * Calls `onLine` with each of our lines (parsed, envelope and entry) whose
 * `ts` is in [sinceMs, untilMs), in file order. A missing log has no lines.
 */
export async function readAuditPeriod(
  path: string,
  source: string,
  period: { readonly sinceMs: number; readonly untilMs: number },
  onLine: (atMs: number, line: AuditRecord) => void,
  /** When given, only lines it accepts are read (the daemon: AuditLog.proves, so another writer's line never counts). */
  proves?: (line: Uint8Array, offset: number) => boolean,
): Promise<PeriodScan> {
  let fh: FileHandle;
  try {
    fh = await open(path, NOFOLLOW.read);
  } catch (err) {
    if (errCode(err) === "ENOENT") return { startOffset: 0, bytesRead: 0 };
    throw err;
  }
  try {
    const size = (await fh.stat()).size;
    const startOffset = await lineStartAtOrAfter(fh, await searchStart(fh, size, source, period.sinceMs), size);
    const needle = sourceNeedle(source);
    const read = await readLines(
      fh,
      (buf, start, end, _lineNo, offset) => {
        const line = buf.subarray(start, end);
        if (line.indexOf(needle) < 0 || proves?.(line, offset) === false) return;
        const parsed = parseAuditLine(buf.toString("utf8", start, end), source);
        if (parsed === null || parsed.entry === null) return;
        const at = Date.parse(parsed.envelope.ts);
        // Each line is judged on its own time: a line dated out of order (test mode's simulated clock writes
        // this log too) must not hide the lines after it.
        if (!Number.isFinite(at) || at < period.sinceMs || at >= period.untilMs) return;
        onLine(at, { ...parsed.envelope, ...parsed.entry });
      },
      { startOffset, chunkBytes: 1 << 20, endOffset: size },
    );
    return { startOffset, bytesRead: read.size - startOffset };
  } finally {
    await fh.close();
  }
}

/**
 * A byte offset at or before the first of our lines with ts >= sinceMs, and
 * after every line of ours before it that a probe saw (binary search).
 */
async function searchStart(fh: FileHandle, size: number, source: string, sinceMs: number): Promise<number> {
  let lo = 0;
  let hi = size;
  while (hi - lo > LINEAR_BYTES) {
    const mid = lo + Math.floor((hi - lo) / 2);
    const probe = await firstOurLine(fh, mid, hi, source);
    if (probe !== null && probe.atMs < sinceMs) lo = probe.start + 1;
    else hi = mid;
  }
  return lo;
}

/** The first of our lines starting after the line boundary at or after `from` and before `limit`: where, and its ts. */
async function firstOurLine(fh: FileHandle, from: number, limit: number, source: string): Promise<{ start: number; atMs: number } | null> {
  const quoted = JSON.stringify(source);
  let pos = await lineStartAtOrAfter(fh, from, limit);
  const buf = Buffer.allocUnsafe(PROBE_BYTES);
  while (pos < limit) {
    const { bytesRead } = await fh.read(buf, 0, buf.length, pos);
    if (bytesRead === 0) return null;
    const view = buf.subarray(0, bytesRead);
    const head = HEAD.exec(view.toString("utf8", 0, Math.min(bytesRead, 512)));
    if (head && head[2] === quoted) {
      const atMs = Date.parse(head[1]!);
      if (Number.isFinite(atMs)) return { start: pos, atMs };
    }
    const next = await lineStartAtOrAfter(fh, pos + 1, limit);
    if (next <= pos) return null;
    pos = next;
  }
  return null;
}

/** `from` when a line starts there (0, or just after a newline), else the start of the next line (at most `limit`). */
async function lineStartAtOrAfter(fh: FileHandle, from: number, limit: number): Promise<number> {
  if (from <= 0) return 0;
  const buf = Buffer.allocUnsafe(PROBE_BYTES);
  for (let pos = from - 1; pos < limit; pos += PROBE_BYTES) {
    const { bytesRead } = await fh.read(buf, 0, Math.min(PROBE_BYTES, limit - pos), pos);
    if (bytesRead === 0) return limit;
    const nl = buf.subarray(0, bytesRead).indexOf(10);
    if (nl >= 0) return pos + nl + 1;
  }
  return limit;
}
