import { createHash } from "node:crypto";
import { open } from "node:fs/promises";
import { errCode } from "../store/fs-util.js";
import { readLines } from "../store/line-reader.js";

/**
 * Reads our own lines back from the shared audit log: the chain head to
 * continue from after a restart, and the lines the daemon serves as its
 * transition feed. Other writers' lines and lines that do not parse are
 * skipped, never touched.
 */

/**
 * One of our audit lines as kept in memory: every field of the line except
 * `source` and `prev_hash` (the same for all, or only for the chain) and
 * `draft_text` (the bulk of a line; the store has it). Keeping the text would
 * make memory grow with every transition ever audited.
 */
export interface AuditLine {
  readonly seq: number;
  readonly ts: string;
  readonly kind: string;
  readonly draft_id?: string;
  readonly [k: string]: unknown;
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
export function toAuditLine(fields: Record<string, unknown>): AuditLine {
  const { source: _s, prev_hash: _p, draft_text: _t, ...rest } = fields;
  return rest as unknown as AuditLine;
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
      const fields = parseOurs(text, source);
      if (!fields) {
        if (scan.unparseableCount++ < 20) scan.unparseable.push(lineNo);
        return;
      }
      scan.ours.push(toAuditLine(fields));
      scan.lastSeq = Math.max(scan.lastSeq, fields.seq);
      lastText = text;
    });
    scan.tailBytes = read.tailBytes;
  } finally {
    await fh.close();
  }
  scan.lastHash = lastText === "" ? "" : lineHash(lastText);
  return scan;
}

/** The fields of a line of ours, or null when it is not JSON or lacks the chain fields. */
export function parseOurs(text: string, source: string): (Record<string, unknown> & { seq: number; prev_hash: string }) | null {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof v !== "object" || v === null || Array.isArray(v)) return null;
  const o = v as Record<string, unknown>;
  if (o.source !== source) return null;
  const { seq, prev_hash } = o;
  if (typeof seq !== "number" || !Number.isSafeInteger(seq) || typeof prev_hash !== "string") return null;
  if (typeof o.ts !== "string" || typeof o.kind !== "string") return null;
  return o as Record<string, unknown> & { seq: number; prev_hash: string };
}
