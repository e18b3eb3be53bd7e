import { mkdir, open, readdir } from "node:fs/promises";
import { join } from "node:path";
import { crc32 } from "./crc32.js";
import { errCode, errMessage, NOFOLLOW, readFileNoFollow, writeFileDurably } from "./fs-util.js";
import { checkLine, CRC_SUFFIX_BYTES, encodeLine } from "./line-codec.js";
import { readLines } from "./line-reader.js";
import type { StoreLog } from "./jsonl-store.js";

/**
 * Old final records, moved out of the live store: one file per month,
 * `telegram_drafts-YYYY-MM.jsonl`, in the store's line format (checksummed
 * lines, draft_id first). A month file is only ever replaced whole (the one
 * durable temp-file write), so a crash leaves the old file or the new one.
 *
 * A small catalog (`catalog.bin`: 32-bit hashes of every archived draft_id,
 * idempotency key and review message id, with their month) finds the month file to read without
 * holding the records: lookups cost one month file, memory 8 bytes per key.
 * The catalog is derived data: missing or damaged, it is rebuilt from the
 * month files, with a log line.
 */

/** What the archive needs to know about a record. */
export interface Archivable {
  readonly draft_id: string;
  readonly idempotency_key: string | null;
  /** The draft's review post, and the posts an edit replaced: a reply or reaction on one is refused, naming the draft. */
  readonly review_message_id?: number | null;
  readonly superseded_posts?: readonly number[];
}

/** How to open the archive. */
export interface OpenArchiveOptions<T> {
  readonly dir: string;
  /** Validates one record read back (the store's zod parse). */
  readonly parse: (value: unknown) => T;
  /** The month (`YYYY-MM`) a record is filed under. */
  readonly monthOf: (record: T) => string;
  readonly log: StoreLog;
}

const CATALOG = "catalog.bin";
/** 2: review message ids are keys too. A catalog of another version is rebuilt from the month files. */
const CATALOG_VERSION = 2;
const MONTH_FILE = /^telegram_drafts-(\d{4}-\d{2})\.jsonl$/;

/** A line of a month file that fails its checksum (or is torn): kept as it is, never dropped. */
export interface DamagedLine {
  /** 1-based line number. */
  readonly line: number;
  readonly problem: string;
  /** The draft_id its first bytes name, when they still read as one (a hint: the bytes are damaged). */
  readonly draftId: string | null;
}

/**
 * A lookup that cannot be answered because a month file that may hold the
 * answer has damaged lines: never a silent "not found". The message names the
 * file and the lines.
 */
export class ArchiveDamagedError extends Error {
  override readonly name = "ArchiveDamagedError";
}

/** The records of one month file, and its damaged lines. */
interface MonthRead<T> {
  readonly path: string;
  readonly records: Map<string, T>;
  readonly damaged: readonly DamagedLine[];
}

const DRAFT_ID_HEAD = /^\{"draft_id":"([^"\\]{1,200})"/;

function damageText(m: { path: string; damaged: readonly DamagedLine[] }): string {
  return `${m.path} ${m.damaged.map((d) => `line ${d.line} (${d.problem})`).join(", ")}`;
}

/** The month file of `month`. */
export function monthFileName(month: string): string {
  return `telegram_drafts-${month}.jsonl`;
}

const idKey = (id: string) => hash32(`i:${id}`);
const idemKey = (key: string) => hash32(`k:${key}`);
const messageKey = (messageId: number) => hash32(`m:${messageId}`);

/** The review posts of a record. */
function postsOf(record: Archivable): number[] {
  return [...(record.review_message_id == null ? [] : [record.review_message_id]), ...(record.superseded_posts ?? [])];
}

function hash32(s: string): number {
  return crc32(Buffer.from(s));
}

/** The archive directory (see the file comment). */
export class DraftArchive<T extends Archivable> {
  /** Sorted by hash: [hash, monthIndex] pairs. */
  private pairs: Uint32Array;
  private months: string[];
  private adding: Promise<void> = Promise.resolve();

  private constructor(
    private readonly options: OpenArchiveOptions<T>,
    pairs: Uint32Array,
    months: string[],
  ) {
    this.pairs = pairs;
    this.months = months;
  }

  /** Opens the archive (created on first use), reading its catalog or rebuilding it. */
  static async open<T extends Archivable>(options: OpenArchiveOptions<T>): Promise<DraftArchive<T>> {
    const read = await readCatalog(join(options.dir, CATALOG));
    if (read.ok) return new DraftArchive(options, read.pairs, read.months);
    const archive = new DraftArchive(options, new Uint32Array(0), []);
    const months = await archive.monthsOnDisk();
    if (months.length === 0) return archive;
    options.log.warn({ dir: options.dir, problem: read.problem }, "the archive catalog cannot be used; rebuilding it from the month files");
    const entries: Array<[number, number]> = [];
    for (const month of months) {
      const m = archive.monthIndex(month);
      const read = await archive.readMonth(month);
      for (const record of read.records.values()) entries.push(...archive.keysOf(record, m));
      // A damaged line still names its draft, most often: lookups of it then name the damage instead of "not found".
      for (const d of read.damaged) if (d.draftId !== null) entries.push([idKey(d.draftId), m]);
      if (read.damaged.length > 0)
        options.log.warn(
          { problem: damageText(read) },
          "an archive month file has damaged lines; they are kept as they are (restore the file from a backup)",
        );
    }
    archive.merge(entries);
    await archive.saveCatalog();
    return archive;
  }

  /** A read-only view for findArchivedReadOnly: every month file is a candidate. */
  static async reader<T extends Archivable>(
    dir: string,
    parse: (value: unknown) => T,
  ): Promise<{ get(id: string): Promise<T | undefined> }> {
    const archive = new DraftArchive<T>({ dir, parse, monthOf: () => "", log: { warn() {}, info() {} } }, new Uint32Array(0), []);
    const months = (await archive.monthsOnDisk()).reverse();
    return {
      async get(id) {
        const damaged: Array<MonthRead<T>> = [];
        for (const month of months) {
          const read = await archive.readMonth(month);
          const found = read.records.get(id);
          if (found) return found;
          if (read.damaged.length > 0) damaged.push(read);
        }
        if (damaged.length > 0) throw notFoundInDamage(`draft ${id}`, damaged);
        return undefined;
      },
    };
  }

  /**
   * The good records of the given months' files (a missing file has none),
   * read-only: for the report, which reads only the months of its period.
   */
  static async monthsReadOnly<T extends Archivable>(dir: string, months: readonly string[], parse: (value: unknown) => T): Promise<T[]> {
    const archive = new DraftArchive<T>({ dir, parse, monthOf: () => "", log: { warn() {}, info() {} } }, new Uint32Array(0), []);
    const out: T[] = [];
    for (const month of months) out.push(...(await archive.readMonth(month)).records.values());
    return out;
  }

  /** How many keys the catalog holds (ids and idempotency keys). */
  get size(): number {
    return this.pairs.length / 2;
  }

  /**
   * The archived record of a draft, or undefined. Throws ArchiveDamagedError
   * when it is not among the good lines of a month file the catalog names for
   * it and that file has damaged lines (it may be one of them).
   */
  async get(draftId: string): Promise<T | undefined> {
    return this.lookUp(idKey(draftId), `draft ${draftId}`, (read) => read.records.get(draftId));
  }

  /**
   * True when an archived draft may have had this review post (a catalog
   * look-up, no read: a false positive is rare and `byMessage` settles it).
   */
  mayHoldMessage(messageId: number): boolean {
    return this.candidates(messageKey(messageId)).length > 0;
  }

  /** The archived draft whose review post (live or replaced) this message was, or undefined; throws like `get`. */
  async byMessage(messageId: number): Promise<T | undefined> {
    return this.lookUp(messageKey(messageId), `the draft of review message ${messageId}`, (read) => {
      for (const record of read.records.values()) if (postsOf(record).includes(messageId)) return record;
      return undefined;
    });
  }

  /** The archived record submitted with this idempotency key, or undefined; throws like `get`. */
  async byIdempotencyKey(key: string): Promise<T | undefined> {
    return this.lookUp(idemKey(key), `the draft with idempotency key ${JSON.stringify(key)}`, (read) => {
      for (const record of read.records.values()) if (record.idempotency_key === key) return record;
      return undefined;
    });
  }

  private async lookUp(hash: number, what: string, pick: (read: MonthRead<T>) => T | undefined): Promise<T | undefined> {
    const damaged: Array<MonthRead<T>> = [];
    for (const month of this.candidates(hash)) {
      const read = await this.readMonth(month);
      const found = pick(read);
      if (found) return found;
      if (read.damaged.length > 0) damaged.push(read);
    }
    if (damaged.length > 0) throw notFoundInDamage(what, damaged);
    return undefined;
  }

  /**
   * Files `records` under their months, idempotently: a record already in its
   * month file is not written twice (a crash after the file and before the
   * store forgot the record makes the next pass file it again). Each month
   * file is replaced whole and durably, then the catalog. Only after this
   * resolves may the store forget the records.
   */
  add(records: readonly T[]): Promise<void> {
    // One move at a time: two overlapping read-modify-replace of a month file would lose one's records.
    const run = this.adding.then(() => this.addNow(records));
    this.adding = run.catch(() => {});
    return run;
  }

  private async addNow(records: readonly T[]): Promise<void> {
    if (records.length === 0) return;
    await mkdir(this.options.dir, { recursive: true, mode: 0o700 });
    const byMonth = new Map<string, T[]>();
    for (const r of records) {
      const month = this.options.monthOf(r);
      if (!/^\d{4}-\d{2}$/.test(month)) throw new TypeError(`archive month must be YYYY-MM, got ${JSON.stringify(month)}`);
      byMonth.set(month, [...(byMonth.get(month) ?? []), r]);
    }
    const entries: Array<[number, number]> = [];
    for (const [month, list] of byMonth) {
      const existing = await this.readMonth(month);
      const fresh = list.filter((r) => !existing.records.has(r.draft_id));
      if (fresh.length > 0) {
        const encode = (r: T) => encodeLine(Object.assign({ draft_id: r.draft_id }, r));
        // Archived lines are kept byte for byte (never encoded again, nor dropped when damaged: a test-mode
        // run archiving its own drafts leaves live ones as they were); the new lines follow on lines of their own.
        const known = existing.records.size + existing.damaged.length > 0;
        const old = known ? await readFileNoFollow(existing.path, 1 << 30) : Buffer.alloc(0);
        const sep = old.length > 0 && old[old.length - 1] !== 0x0a ? "\n" : "";
        const body = Buffer.concat([old, Buffer.from(sep + fresh.map(encode).join(""))]);
        if (existing.damaged.length > 0)
          this.options.log.warn(
            { problem: damageText(existing) },
            "an archive month file has damaged lines; they are kept as they are (restore the file from a backup)",
          );
        await writeFileDurably(existing.path, body, { mode: 0o600 });
      }
      const m = this.monthIndex(month);
      for (const r of list) entries.push(...this.keysOf(r, m));
    }
    this.merge(entries);
    await this.saveCatalog();
  }

  private keysOf(record: T, monthIndex: number): Array<[number, number]> {
    const keys: Array<[number, number]> = [[idKey(record.draft_id), monthIndex]];
    if (record.idempotency_key !== null) keys.push([idemKey(record.idempotency_key), monthIndex]);
    for (const post of postsOf(record)) keys.push([messageKey(post), monthIndex]);
    return keys;
  }

  private monthIndex(month: string): number {
    let i = this.months.indexOf(month);
    if (i < 0) {
      this.months.push(month);
      i = this.months.length - 1;
    }
    return i;
  }

  /** Months whose files may hold a key with this hash, newest first. */
  private candidates(hash: number): string[] {
    const p = this.pairs;
    let lo = 0;
    let hi = p.length / 2;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (p[mid * 2]! < hash) lo = mid + 1;
      else hi = mid;
    }
    const found = new Set<string>();
    for (let i = lo; i < p.length / 2 && p[i * 2] === hash; i++) found.add(this.months[p[i * 2 + 1]!]!);
    return [...found].sort().reverse();
  }

  private merge(entries: Array<[number, number]>): void {
    if (entries.length === 0) return;
    const all: Array<[number, number]> = [];
    for (let i = 0; i < this.pairs.length; i += 2) all.push([this.pairs[i]!, this.pairs[i + 1]!]);
    for (const e of entries) all.push(e);
    all.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    const out: number[] = [];
    for (let i = 0; i < all.length; i++) {
      if (i > 0 && all[i]![0] === all[i - 1]![0] && all[i]![1] === all[i - 1]![1]) continue;
      out.push(all[i]![0], all[i]![1]);
    }
    this.pairs = Uint32Array.from(out);
  }

  private async saveCatalog(): Promise<void> {
    const body = Buffer.from(this.pairs.buffer, this.pairs.byteOffset, this.pairs.byteLength);
    const header = encodeLine({ v: CATALOG_VERSION, months: this.months, count: this.pairs.length / 2, body_crc: crc32(body) });
    await writeFileDurably(join(this.options.dir, CATALOG), Buffer.concat([Buffer.from(header), body]), { mode: 0o600 });
  }

  private async monthsOnDisk(): Promise<string[]> {
    try {
      return (await readdir(this.options.dir)).flatMap((name) => MONTH_FILE.exec(name)?.[1] ?? []).sort();
    } catch (err) {
      if (errCode(err) === "ENOENT") return [];
      throw err;
    }
  }

  /**
   * The records of one month file (missing = none), by draft_id, and its
   * damaged lines (a checksum that fails, a torn last line): those are
   * reported, never dropped nor thrown away.
   */
  private async readMonth(month: string): Promise<MonthRead<T>> {
    const path = join(this.options.dir, monthFileName(month));
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
          const record = this.options.parse(JSON.parse(`${buf.toString("utf8", start, end - CRC_SUFFIX_BYTES)}}`));
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
}

/** The error of a lookup that missed where damaged lines may hold the answer. */
function notFoundInDamage(what: string, months: ReadonlyArray<{ path: string; damaged: readonly DamagedLine[] }>): ArchiveDamagedError {
  return new ArchiveDamagedError(
    `${what} may be archived in a damaged line: ${months.map(damageText).join("; ")}. ` +
      "The archive keeps those lines as they are: restore the file from a backup.",
  );
}

type CatalogRead = { ok: true; pairs: Uint32Array; months: string[] } | { ok: false; problem: string };

async function readCatalog(path: string): Promise<CatalogRead> {
  let buf: Buffer;
  try {
    buf = await readFileNoFollow(path);
  } catch (err) {
    return { ok: false, problem: errCode(err) === "ENOENT" ? "it is missing" : `it cannot be read: ${errMessage(err)}` };
  }
  const nl = buf.indexOf(0x0a);
  if (nl < 0 || checkLine(buf, 0, nl) !== null) return { ok: false, problem: "its header is damaged" };
  let header: { v?: unknown; months?: unknown; count?: unknown; body_crc?: unknown };
  try {
    header = JSON.parse(`${buf.toString("utf8", 0, nl - CRC_SUFFIX_BYTES)}}`) as typeof header;
  } catch {
    return { ok: false, problem: "its header is not JSON" };
  }
  const { months, count, body_crc } = header;
  if (
    header.v !== CATALOG_VERSION ||
    !Array.isArray(months) ||
    !months.every((m) => typeof m === "string") ||
    typeof count !== "number" ||
    typeof body_crc !== "number"
  ) {
    return { ok: false, problem: "its header is not one this version reads" };
  }
  const body = buf.subarray(nl + 1);
  if (body.length !== count * 8 || crc32(body) !== body_crc) return { ok: false, problem: "its body is damaged" };
  const pairs = new Uint32Array(count * 2);
  Buffer.from(pairs.buffer).set(body);
  return { ok: true, pairs, months: months as string[] };
}

/**
 * Finds an archived record without opening the archive for writing (no
 * catalog rebuilt): reads the month files, newest first. For readers that
 * must not write to HARNESS_DIR (the CLI while the daemon is stopped).
 */
export async function findArchivedReadOnly<T extends Archivable>(
  dir: string,
  draftId: string,
  parse: (value: unknown) => T,
): Promise<T | undefined> {
  const reader = await DraftArchive.reader<T>(dir, parse);
  return reader.get(draftId);
}
