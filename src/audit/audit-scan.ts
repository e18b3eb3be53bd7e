import { createHash } from "node:crypto";
import { open } from "node:fs/promises";
import { errCode } from "../store/fs-util.js";
import { readLines } from "../store/line-reader.js";
import { parseAuditLine, type AuditEntry, type ParsedAuditLine } from "./audit-schema.js";

/**
 * Reads our own lines back from the shared audit log: the chain head to
 * continue from after a restart, and the lines the daemon serves as its
 * transition feed. Other writers' lines and lines that do not parse are
 * skipped, never touched.
 */

/**
 * One of our audit lines as kept in memory: its seq, ts and typed entry
 * (null for a line of ours this version does not know), without the texts
 * (`draft_text`, `previous_text`: the bulk of a line; the store has them).
 */
export interface AuditLine {
  readonly seq: number;
  readonly ts: string;
  readonly entry: AuditEntry | null;
}

/** What a scan found. */
export interface AuditScan {
  ours: AuditLine[];
  /** Highest seq of ours, 0 if none. */
  lastSeq: number;
  /** sha256 (hex) of our last line, "" if none: the next line's prev_hash. */
  lastHash: string;
  /** Lines naming our source that do not parse (1-based line numbers, the first 20). */
  unparseable: number[];
  unparseableCount: number;
  /** Bytes after the file's last newline (someone's interrupted write); our next line must start on a new line. */
  tailBytes: number;
}

/** The `"source":"<source>"` bytes that every line of ours contains. */
export function sourceNeedle(source: string): Buffer {
  return Buffer.from(`"source":${JSON.stringify(source)}`);
}

/** sha256 hex of a line's exact text (without its newline). */
export function lineHash(line: string | Uint8Array): string {
  return createHash("sha256").update(line).digest("hex");
}

/** Our line as kept in memory (see AuditLine). */
export function toAuditLine(line: ParsedAuditLine): AuditLine {
  const { seq, ts } = line.envelope;
  const entry = line.entry;
  if (entry?.kind === "transition") {
    const { draft_text: _t, previous_text: _p, ...rest } = entry;
    return { seq, ts, entry: rest };
  }
  if (entry?.kind === "decision_refused") {
    const { draft_text: _t, ...rest } = entry;
    return { seq, ts, entry: rest };
  }
  return { seq, ts, entry };
}

/** Reads `path` (missing = empty) and collects the lines of `source`. */
export async function scanAudit(path: string, source: string): Promise<AuditScan> {
  const scan: AuditScan = { ours: [], lastSeq: 0, lastHash: "", unparseable: [], unparseableCount: 0, tailBytes: 0 };
  let fh;
  try {
    fh = await open(path, "r");
  } catch (err) {
    if (errCode(err) === "ENOENT") return scan;
    throw err;
  }
  const needle = sourceNeedle(source);
  let lastText = "";
  try {
    const read = await readLines(fh, (buf, start, end, lineNo) => {
      if (buf.subarray(start, end).indexOf(needle) < 0) return;
      const text = buf.toString("utf8", start, end);
      const parsed = parseAuditLine(text, source);
      if (!parsed) {
        if (scan.unparseableCount++ < 20) scan.unparseable.push(lineNo);
        return;
      }
      scan.ours.push(toAuditLine(parsed));
      scan.lastSeq = Math.max(scan.lastSeq, parsed.envelope.seq);
      lastText = text;
    });
    scan.tailBytes = read.tailBytes;
  } finally {
    await fh.close();
  }
  scan.lastHash = lastText === "" ? "" : lineHash(lastText);
  return scan;
}

