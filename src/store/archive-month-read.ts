/**
 * Reads one month file of the archive back: every good record by draft_id, and every damaged line
 * (a checksum that fails, a line that is no draft record, a torn last line) with the draft_id its
 * head still names. Apart from archive.ts (the catalog, lookups and writes) because it is the one
 * place that parses the file format, and readers that never write (the report, the CLI) use it too.
 */
import { open } from "node:fs/promises";
import { join } from "node:path";
import { monthFileName } from "./archive-catalog.js";
import type { DamagedLine } from "./archive-errors.js";
import { errCode, errMessage, NOFOLLOW } from "./fs-util.js";
import { checkLine, CRC_SUFFIX_BYTES } from "./line-codec.js";
import { readLines } from "./line-reader.js";

/** The records of one month file, and its damaged lines. */
export interface MonthRead<T> {
  readonly path: string;
  readonly records: Map<string, T>;
  readonly damaged: readonly DamagedLine[];
}

/** The draft_id at the head of a line, read from a damaged line so its refusal can name the draft. */
const DRAFT_ID_HEAD = /^\{"draft_id":"([^"\\]{1,200})"/;

/**
 * The records of one month file (missing = none), by draft_id, and its
 * damaged lines (a checksum that fails, a torn last line): those are
 * reported, never dropped nor thrown away.
 */
export async function readMonthFile<T extends { readonly draft_id: string }>(
  dir: string,
  month: string,
  parse: (value: unknown) => T,
): Promise<MonthRead<T>> {
  const path = join(dir, monthFileName(month));
  const records = new Map<string, T>();
  const damaged: DamagedLine[] = [];
  let fh;
  try {
    fh = await open(path, NOFOLLOW.read);
  } catch (err) {
    if (errCode(err) === "ENOENT") return { path, records, damaged };
    throw err;
  }
  const take = (buf: Buffer, start: number, end: number, lineNo: number, problem: string | null) => {
    if (problem === null) {
      try {
        const record = parse(JSON.parse(`${buf.toString("utf8", start, end - CRC_SUFFIX_BYTES)}}`));
        records.set(record.draft_id, record);
        return;
      } catch (err) {
        problem = `not a draft record: ${errMessage(err).slice(0, 200)}`;
      }
    }
    const head = DRAFT_ID_HEAD.exec(buf.toString("utf8", start, Math.min(end, start + 256)));
    damaged.push({ line: lineNo, problem, draftId: head?.[1] ?? null });
  };
  try {
    const read = await readLines(fh, (buf, start, end, lineNo) => take(buf, start, end, lineNo, checkLine(buf, start, end)), {
      chunkBytes: 1 << 20,
    });
    if (read.tailBytes > 0) {
      const tail = Buffer.alloc(Math.min(read.tailBytes, 1 << 20));
      await fh.read(tail, 0, tail.length, read.size - read.tailBytes);
      take(tail, 0, tail.length, read.lines + 1, "torn last line (no newline)");
    }
  } catch (err) {
    throw new Error(`could not read the archive ${path}: ${errMessage(err)}`, { cause: err });
  } finally {
    await fh.close();
  }
  return { path, records, damaged };
}
