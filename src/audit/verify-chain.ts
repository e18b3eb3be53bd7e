import { open } from "node:fs/promises";
import { readLines } from "../store/line-reader.js";
import { lineHash, sourceNeedle } from "./audit-scan.js";
import { parseAuditLine } from "./audit-schema.js";

/** The default `source` of our audit lines. */
export const DEFAULT_AUDIT_SOURCE = "telegram-draft-for-review";

/** The result of verifyAuditChain. */
export type ChainVerdict = { ok: true; lines: number } | { ok: false; line: number; reason: string };

class Stop extends Error {}

/**
 * Checks that the lines of `source` in the audit log form an unbroken chain:
 * each `prev_hash` is the sha256 of the previous line of that source (""
 * for the first) and `seq` strictly increases. An edited or deleted line
 * breaks the chain at the next line of ours (an edit of the very last line
 * cannot be seen). Lines of other sources, and lines that do not parse (torn
 * writes), are skipped. Reports the first break with its 1-based line number.
 */
export async function verifyAuditChain(path: string, source: string = DEFAULT_AUDIT_SOURCE): Promise<ChainVerdict> {
  const needle = sourceNeedle(source);
  const fh = await open(path, "r");
  let prevHash = "";
  let prevSeq = -Infinity;
  let lines = 0;
  let broken: ChainVerdict | undefined;
  try {
    await readLines(fh, (buf, start, end, lineNo) => {
      if (buf.subarray(start, end).indexOf(needle) < 0) return;
      const parsed = parseAuditLine(buf.toString("utf8", start, end), source);
      if (!parsed) return;
      const fields = parsed.envelope;
      const reason = chainBreak(fields, prevHash, prevSeq, lines);
      if (reason) {
        broken = { ok: false, line: lineNo, reason };
        throw new Stop();
      }
      prevHash = lineHash(buf.subarray(start, end));
      prevSeq = fields.seq;
      lines++;
    });
  } catch (err) {
    if (!(err instanceof Stop)) throw err;
  } finally {
    await fh.close();
  }
  return broken ?? { ok: true, lines };
}

function chainBreak(fields: { seq: number; prev_hash: string }, prevHash: string, prevSeq: number, seen: number): string | null {
  if (fields.prev_hash !== prevHash) {
    return seen === 0
      ? `the first line of this source has prev_hash "${fields.prev_hash.slice(0, 16)}...", not "": earlier lines were deleted`
      : "prev_hash is not the sha256 of the previous line of this source: a line before it was edited or deleted";
  }
  if (fields.seq <= prevSeq) return `seq ${fields.seq} does not increase (previous ${prevSeq}): lines were reordered or copied`;
  return null;
}
