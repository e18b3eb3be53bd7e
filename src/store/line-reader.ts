import type { FileHandle } from "node:fs/promises";

/**
 * Reads a file of newline-terminated lines in fixed-size chunks, so a store of
 * hundreds of MB is never held in memory at once.
 */

/**
 * Called once per complete line: `buf[start, end)` is the line without its
 * newline, valid only during the call. `offset` is the file offset of `start`;
 * `lineNo` is 1-based. A line longer than the reader's limit is reported as an
 * empty range (it cannot be a valid line).
 */
export type OnLine = (buf: Buffer, start: number, end: number, lineNo: number, offset: number) => void;

/** What `readLines` saw. */
export interface LinesRead {
  /** Bytes read: the file size at the time of reading. */
  readonly size: number;
  /** Complete (newline-terminated) lines. */
  readonly lines: number;
  /** Bytes after the last newline: an unterminated last line, or 0. */
  readonly tailBytes: number;
}

/** Tuning for tests; the defaults suit production. */
export interface ReadLinesOptions {
  /** Initial buffer size; default 4 MiB. */
  readonly chunkBytes?: number;
  /** Longer lines are reported as empty; default 64 MiB. */
  readonly maxLineBytes?: number;
  /** Read only the first `endOffset` bytes; default: the whole file. */
  readonly endOffset?: number;
  /** Start reading here (a line boundary); default 0. `lineNo` then counts from this offset. */
  readonly startOffset?: number;
}

/** Calls `onLine` for every complete line of `fh`, from offset 0 (or `startOffset`). */
export async function readLines(fh: FileHandle, onLine: OnLine, opts: ReadLinesOptions = {}): Promise<LinesRead> {
  const maxLine = opts.maxLineBytes ?? 64 << 20;
  let buf = Buffer.allocUnsafe(Math.min(opts.chunkBytes ?? 4 << 20, maxLine));
  let filled = 0; // bytes of buf in use
  let bufOffset = opts.startOffset ?? 0; // file offset of buf[0]
  let lineNo = 0;
  let skipFrom = -1; // file offset where an over-long line began, while skipping it
  const endOffset = opts.endOffset ?? Number.MAX_SAFE_INTEGER;
  for (;;) {
    const want = Math.min(buf.length - filled, endOffset - bufOffset - filled);
    const { bytesRead } = want > 0 ? await fh.read(buf, filled, want, bufOffset + filled) : { bytesRead: 0 };
    if (bytesRead === 0) break;
    const view = buf.subarray(0, filled + bytesRead);
    let start = 0;
    if (skipFrom >= 0) {
      const nl = view.indexOf(10);
      if (nl < 0) {
        bufOffset += view.length;
        filled = 0;
        continue;
      }
      onLine(view, 0, 0, ++lineNo, skipFrom);
      skipFrom = -1;
      start = nl + 1;
    }
    for (let nl = view.indexOf(10, start); nl >= 0; nl = view.indexOf(10, start)) {
      onLine(view, start, nl, ++lineNo, bufOffset + start);
      start = nl + 1;
    }
    if (start > 0) buf.copyWithin(0, start, view.length);
    bufOffset += start;
    filled = view.length - start;
    if (filled === buf.length) {
      if (buf.length >= maxLine) {
        skipFrom = bufOffset;
        bufOffset += filled;
        filled = 0;
      } else {
        const bigger = Buffer.allocUnsafe(Math.min(buf.length * 2, maxLine));
        buf.copy(bigger, 0, 0, filled);
        buf = bigger;
      }
    }
  }
  const size = bufOffset + filled;
  return { size, lines: lineNo, tailBytes: skipFrom >= 0 ? size - skipFrom : filled };
}
