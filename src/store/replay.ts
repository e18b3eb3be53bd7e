import type { FileHandle } from "node:fs/promises";
import { CRC_SUFFIX_BYTES, checkLine } from "./line-codec.js";
import { readLines } from "./line-reader.js";
import { StoreCorruptError } from "./store-errors.js";

/**
 * Rebuilds the latest record per `draft_id` from a store file, in two
 * streaming passes. Pass 1 verifies every line's checksum and notes the last
 * line of each draft (reading the id from the line's first key, without
 * parsing it) and where it lies. Pass 2 reads back only those lines (adjacent
 * ones in one read) and decodes, JSON-parses and validates them: superseded
 * versions are never read twice nor materialised, which keeps a replay of a
 * long, churned file fast and light on garbage collection.
 */

/** The outcome of a replay. */
export interface Replayed<T> {
  /** Latest record per draft_id, in first-seen order. */
  readonly latest: Map<string, T>;
  /** Good lines. */
  readonly lines: number;
  /** Length of the good prefix: where the file must be cut if `droppedBytes > 0`. */
  readonly goodBytes: number;
  /** Bytes after the last good line (torn or damaged tail); 0 when clean. */
  readonly droppedBytes: number;
  /** Why the tail was dropped, with its first line number. */
  readonly droppedReason: string | null;
}

interface Scanned {
  /** draft_id -> its slot in `last`, in first-seen order. */
  slots: Map<string, number>;
  /** Per slot: the draft's last line. */
  last: LastLines;
  lines: number;
  goodBytes: number;
  droppedBytes: number;
  droppedReason: string | null;
}

const ID_PREFIX = Buffer.from('{"draft_id":"');

/** Replays `fh`. Throws StoreCorruptError for a damaged line that good lines follow. */
export async function replay<T extends { draft_id: string }>(
  fh: FileHandle,
  path: string,
  parse: (value: unknown) => T,
): Promise<Replayed<T>> {
  const scan = await scanLines(fh, path);
  const bySlot = await readLatest(fh, path, scan, parse);
  const latest = new Map<string, T>();
  for (const [id, slot] of scan.slots) {
    const record = bySlot[slot];
    if (record?.draft_id !== id) throw new StoreCorruptError(path, scan.last.line[slot]!, "the record's draft_id changed in validation");
    latest.set(id, record);
  }
  const { lines, goodBytes, droppedBytes, droppedReason } = scan;
  return { latest, lines, goodBytes, droppedBytes, droppedReason };
}

/** Bad lines after the last good one: a torn tail, unless it holds whole records (see tailVerdict). */
interface BadRun {
  line: number;
  reason: string;
  count: number;
  /** Bad lines that are nevertheless complete JSON records (no or wrong checksum). */
  records: number;
}

/** Pass 1: checksums, draft ids, the good prefix. */
async function scanLines(fh: FileHandle, path: string): Promise<Scanned> {
  const slots = new Map<string, number>();
  const last = new LastLines();
  let lines = 0;
  let goodBytes = 0;
  let bad: BadRun | undefined;
  const read = await readLines(fh, (buf, start, end, lineNo, offset) => {
    const problem = checkLine(buf, start, end);
    if (problem !== null) {
      bad ??= { line: lineNo, reason: problem, count: 0, records: 0 };
      bad.count++;
      if (bad.records === 0 && looksLikeRecord(buf, start, end)) bad.records++;
      return;
    }
    if (bad) throw new StoreCorruptError(path, bad.line, bad.reason);
    lines++;
    goodBytes = offset + (end - start) + 1;
    const id = lineId(buf, start, end - CRC_SUFFIX_BYTES, lineNo, path);
    let slot = slots.get(id);
    if (slot === undefined) {
      slot = last.add();
      slots.set(id, slot);
    }
    last.set(slot, lineNo, offset, end - start);
  });
  return {
    slots,
    last,
    lines,
    goodBytes,
    droppedBytes: read.size - goodBytes,
    droppedReason: tailVerdict(path, bad, read.tailBytes, lines),
  };
}

/**
 * Why the end of the file may be cut off, or null when it is clean. An
 * interrupted write leaves one damaged line, or zeros and garbage; several
 * bad lines that are whole JSON records are data (a file from another
 * program or version?), so they are refused rather than deleted.
 */
function tailVerdict(path: string, bad: BadRun | undefined, tailBytes: number, lines: number): string | null {
  if (bad && bad.count >= 2 && bad.records > 0) {
    throw new StoreCorruptError(
      path,
      bad.line,
      `${bad.reason}; the ${bad.count} lines from here to the end fail their checksum and include whole records, so this is not an interrupted write (a file written by another program or version?)`,
    );
  }
  if (bad) return `line ${bad.line}: ${bad.reason}`;
  if (tailBytes > 0) return `line ${lines + 1}: no newline at the end (interrupted write)`;
  return null;
}

/** True when a line that failed its checksum still parses as a JSON object with a draft_id. */
function looksLikeRecord(buf: Buffer, start: number, end: number): boolean {
  if (buf[start] !== 0x7b) return false;
  try {
    const v = JSON.parse(buf.toString("utf8", start, end)) as { draft_id?: unknown } | null;
    return typeof v?.draft_id === "string";
  } catch {
    return false;
  }
}

/** Reads coalesce lines closer than this into one read, up to READ_BYTES. */
const GAP_BYTES = 64 << 10;
const READ_BYTES = 4 << 20;

/** Pass 2: read back, parse and validate the last line of each draft (in file order, neighbours in one read). Returns records by slot. */
async function readLatest<T>(fh: FileHandle, path: string, scan: Scanned, parse: (value: unknown) => T): Promise<T[]> {
  const { last } = scan;
  const order = Uint32Array.from({ length: last.size }, (_, i) => i).sort((a, b) => last.offset[a]! - last.offset[b]!);
  const bySlot = new Array<T>(last.size);
  let buf = Buffer.allocUnsafe(0);
  for (let first = 0; first < order.length; ) {
    // One read from the first line of the run to the end of its last one.
    const from = last.offset[order[first]!]!;
    let next = first + 1;
    let to = from + last.length[order[first]!]!;
    while (next < order.length) {
      const o = last.offset[order[next]!]!;
      const end = o + last.length[order[next]!]!;
      if (o - to > GAP_BYTES || end - from > READ_BYTES) break;
      to = end;
      next++;
    }
    if (to - from > buf.length) buf = Buffer.allocUnsafe(Math.max(to - from, Math.min(READ_BYTES, scan.goodBytes - from)));
    await readFully(fh, buf, to - from, from);
    for (let k = first; k < next; k++) {
      const slot = order[k]!;
      const start = last.offset[slot]! - from;
      const lineNo = last.line[slot]!;
      const json = `${buf.toString("utf8", start, start + last.length[slot]! - CRC_SUFFIX_BYTES)}}`;
      try {
        bySlot[slot] = parse(JSON.parse(json));
      } catch (err) {
        const why = err instanceof Error ? err.message.slice(0, 500) : String(err);
        throw new StoreCorruptError(
          path,
          lineNo,
          `checksum is valid but the record does not validate (written by another version?): ${why}`,
        );
      }
    }
    first = next;
  }
  return bySlot;
}

/** Reads `length` bytes at `position` into `buf`; the file cannot be shorter (pass 1 read them). */
async function readFully(fh: FileHandle, buf: Buffer, length: number, position: number): Promise<void> {
  for (let done = 0; done < length; ) {
    const { bytesRead } = await fh.read(buf, done, length - done, position + done);
    if (bytesRead === 0) throw new Error(`the file shrank while it was read (byte ${position + done})`);
    done += bytesRead;
  }
}

/** Per draft (a slot): its last line's number, byte offset and length, in growable typed arrays. */
class LastLines {
  line = new Float64Array(1024);
  offset = new Float64Array(1024);
  length = new Float64Array(1024);
  size = 0;

  /** A new slot. */
  add(): number {
    if (this.size === this.line.length) {
      const grow = (a: Float64Array) => {
        const b = new Float64Array(a.length * 2);
        b.set(a);
        return b;
      };
      this.line = grow(this.line);
      this.offset = grow(this.offset);
      this.length = grow(this.length);
    }
    return this.size++;
  }

  set(slot: number, line: number, offset: number, length: number): void {
    this.line[slot] = line;
    this.offset[slot] = offset;
    this.length[slot] = length;
  }
}

/** The draft_id of a checksummed line whose JSON is `buf[start, body)` + `}`. */
function lineId(buf: Buffer, start: number, body: number, line: number, path: string): string {
  const fast = fastId(buf, start, body);
  if (fast !== undefined) return fast;
  let value: unknown;
  try {
    value = JSON.parse(`${buf.toString("utf8", start, body)}}`);
  } catch (err) {
    throw new StoreCorruptError(path, line, `checksum is valid but the JSON is not: ${(err as Error).message}`);
  }
  const id = (value as { draft_id?: unknown } | null)?.draft_id;
  if (typeof id !== "string" || id === "") throw new StoreCorruptError(path, line, "the line has no draft_id");
  return id;
}

/** The id of a line that starts with `{"draft_id":"<string without escapes>"`, else undefined (parse it). */
function fastId(buf: Buffer, start: number, body: number): string | undefined {
  if (body - start <= ID_PREFIX.length) return undefined;
  for (let i = 0; i < ID_PREFIX.length; i++) if (buf[start + i] !== ID_PREFIX[i]) return undefined;
  const from = start + ID_PREFIX.length;
  for (let i = from; i < body; i++) {
    const c = buf[i];
    if (c === 0x5c) return undefined; // an escape: let JSON.parse decode it
    if (c === 0x22) return i > from ? buf.toString("utf8", from, i) : undefined;
  }
  return undefined;
}
