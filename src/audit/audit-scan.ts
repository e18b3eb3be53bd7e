import { createHash } from "node:crypto";
import { open, type FileHandle } from "node:fs/promises";
import { errCode, NOFOLLOW } from "../store/fs-util.js";
import { readLines } from "../store/line-reader.js";
import type { AuditIndex } from "./audit-index.js";
import { parseAuditLine } from "./audit-schema.js";

/**
 * Reads our own lines back from the shared audit log into the index, from a
 * given offset (0, or where the checkpoint ends). Other writers' lines and
 * lines that do not parse are skipped, never touched.
 */

/** What a scan found besides what it put in the index. */
export interface AuditScan {
  /** Lines naming our source that do not parse (1-based line numbers from where the scan began, the first 20). */
  unparseable: number[];
  unparseableCount: number;
  /** Bytes after the file's last newline (someone's interrupted write); our next line must start on a new line. */
  tailBytes: number;
  /** Bytes read. */
  bytesRead: number;
  /** The file's size when read. */
  size: number;
}

/** The `"source":"<source>"` bytes that every line of ours contains. */
export function sourceNeedle(source: string): Buffer {
  return Buffer.from(`"source":${JSON.stringify(source)}`);
}

/** sha256 hex of a line's exact text (without its newline). */
export function lineHash(line: string | Uint8Array): string {
  return createHash("sha256").update(line).digest("hex");
}

/** Reads `path` (missing = empty) from `index.scannedTo` on, adding our lines to `index`. */
export async function scanInto(index: AuditIndex, path: string, source: string): Promise<AuditScan> {
  let fh: FileHandle;
  try {
    fh = await open(path, NOFOLLOW.read);
  } catch (err) {
    if (errCode(err) === "ENOENT") return { unparseable: [], unparseableCount: 0, tailBytes: 0, bytesRead: 0, size: 0 };
    throw err;
  }
  try {
    return await scanHandle(index, fh, source);
  } finally {
    await fh.close();
  }
}

/** As scanInto, on an open handle. */
export async function scanHandle(index: AuditIndex, fh: FileHandle, source: string): Promise<AuditScan> {
  const scan: AuditScan = { unparseable: [], unparseableCount: 0, tailBytes: 0, bytesRead: 0, size: 0 };
  const needle = sourceNeedle(source);
  const from = index.scannedTo;
  const read = await readLines(
    fh,
    (buf, start, end, lineNo, offset) => {
      if (buf.subarray(start, end).indexOf(needle) < 0) return;
      const parsed = parseAuditLine(buf.toString("utf8", start, end), source);
      if (!parsed) {
        if (scan.unparseableCount++ < 20) scan.unparseable.push(lineNo);
        return;
      }
      const seq = parsed.envelope.seq;
      if (seq > index.lastSeq || index.lastSeq === 0) index.add(parsed.envelope, parsed.entry, lineHash(buf.subarray(start, end)), offset);
      if (seq === index.lastSeq) index.head = [offset, offset + (end - start)];
    },
    { startOffset: from, chunkBytes: 1 << 20 },
  );
  scan.tailBytes = read.tailBytes;
  scan.size = read.size;
  scan.bytesRead = read.size - from;
  index.scannedTo = read.size - read.tailBytes;
  return scan;
}
