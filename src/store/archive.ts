import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { readFileNoFollow, writeFileDurably } from "./fs-util.js";
import {
  candidateMonths,
  CATALOG,
  idemKey,
  idKey,
  mergePairs,
  messageKey,
  monthFileName,
  monthSizes,
  readCatalog,
  writeCatalog,
} from "./archive-catalog.js";
import { encodeLine } from "./line-codec.js";
import { readMonthFile, type MonthRead } from "./archive-month-read.js";
import { ArchiveDamagedError, damageText, notFoundInDamage, type DamagedLine } from "./archive-errors.js";

export { ArchiveDamagedError, monthFileName, type DamagedLine };
import { judgeMonthFiles } from "./archive-months.js";
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
 * month files, with a log line. It also records each month file's size as
 * the archive wrote it, so a start tells, with one `stat` per month, a file
 * that lost drafts (missing, emptied, truncated, replaced by an older copy)
 * from one as written: the drafts the catalog files there are then refused
 * by name on lookup (see ArchiveDamagedError), never "not found", and never
 * taken for new by their idempotency key; the daemon keeps running (a lost
 * month of history must not lock the owner out of the gate). A catalog older
 * than its month files is rebuilt.
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

/** The review posts of a record. */
function postsOf(record: Archivable): number[] {
  return [...(record.review_message_id == null ? [] : [record.review_message_id]), ...(record.superseded_posts ?? [])];
}

/** The archive directory (see the file comment). */
export class DraftArchive<T extends Archivable> {
  /** Sorted by hash: [hash, monthIndex] pairs. */
  private pairs: Uint32Array;
  private months: string[];
  private adding: Promise<void> = Promise.resolve();
  /** Each month file's size as the archive wrote it (saved in the catalog). */
  private readonly sizes: Map<string, number>;
  /** Months whose file lost drafts the catalog files there, with what is wrong (see judgeMonthFiles). */
  private readonly short: ReadonlyMap<string, string>;

  private constructor(
    private readonly options: OpenArchiveOptions<T>,
    pairs: Uint32Array,
    months: string[],
    files: { readonly sizes?: ReadonlyMap<string, number>; readonly short?: ReadonlyMap<string, string> } = {},
  ) {
    this.pairs = pairs;
    this.months = months;
    this.sizes = new Map(files.sizes);
    this.short = files.short ?? new Map();
  }

  /**
   * Opens the archive (created on first use): reads its catalog and checks
   * it against the month files' sizes, or rebuilds it from them when it is
   * missing, damaged or older than they are. A month file that lost drafts
   * is logged (error) and kept in `problems`; the archive opens anyway.
   */
  static async open<T extends Archivable>(options: OpenArchiveOptions<T>): Promise<DraftArchive<T>> {
    const read = await readCatalog(join(options.dir, CATALOG));
    const onDisk = await monthSizes(options.dir);
    let archive: DraftArchive<T>;
    if (read.ok) {
      const verdict = judgeMonthFiles(read.months, read.files, onDisk);
      archive = new DraftArchive(options, read.pairs, read.months, verdict);
      if (verdict.stale) {
        options.log.warn({ dir: options.dir }, "the archive catalog is older than its month files; rebuilding it from them");
        await archive.rebuild(onDisk);
      }
    } else {
      archive = new DraftArchive(options, new Uint32Array(0), []);
      if (onDisk.size === 0) return archive;
      options.log.warn(
        { dir: options.dir, problem: read.problem },
        "the archive catalog cannot be used; rebuilding it from the month files",
      );
      await archive.rebuild(onDisk);
    }
    for (const problem of archive.problems()) options.log.warn({ problem }, "an archive month file lost drafts the catalog files there");
    return archive;
  }

  /**
   * What is wrong with the month files, one sentence per file that lost
   * drafts (for the log, /healthz and /status); empty when none did.
   */
  problems(): string[] {
    return [...this.short].map(
      ([month, problem]) =>
        `${this.monthPath(month)}: ${problem}, while archive/catalog.bin files drafts there; those drafts answer 503 and their ` +
        `idempotency keys are refused, until the file is restored from a backup (to accept the loss instead, delete archive/catalog.bin)`,
    );
  }

  /**
   * Rebuilds the catalog from the month files on disk. Entries of months
   * whose file lost drafts are kept (the files cannot tell them any more),
   * so their lookups still name the loss.
   */
  private async rebuild(onDisk: ReadonlyMap<string, number>): Promise<void> {
    const kept: Array<[number, number]> = [];
    for (let i = 0; i < this.pairs.length; i += 2)
      if (this.short.has(this.months[this.pairs[i + 1]!]!)) kept.push([this.pairs[i]!, this.pairs[i + 1]!]);
    this.pairs = new Uint32Array(0);
    const entries: Array<[number, number]> = kept;
    for (const month of [...onDisk.keys()].sort()) {
      const m = this.monthIndex(month);
      const read = await readMonthFile(this.options.dir, month, this.options.parse);
      for (const record of read.records.values()) entries.push(...this.keysOf(record, m));
      // A damaged line still names its draft, most often: lookups of it then name the damage instead of "not found".
      for (const d of read.damaged) if (d.draftId !== null) entries.push([idKey(d.draftId), m]);
      if (read.damaged.length > 0)
        this.options.log.warn(
          { problem: damageText(read) },
          "an archive month file has damaged lines; they are kept as they are (restore the file from a backup)",
        );
      if (!this.short.has(month)) this.sizes.set(month, onDisk.get(month)!);
    }
    this.merge(entries);
    await this.saveCatalog();
  }

  /**
   * A read-only view for findArchivedReadOnly: every month file is a
   * candidate; the catalog, when it reads, tells a draft filed in a month
   * file that lost it (refused by name, as the daemon does).
   */
  static async reader<T extends Archivable>(
    dir: string,
    parse: (value: unknown) => T,
  ): Promise<{ get(id: string): Promise<T | undefined> }> {
    const options = { dir, parse, monthOf: () => "", log: { warn() {}, info() {} } };
    const read = await readCatalog(join(dir, CATALOG));
    const onDisk = await monthSizes(dir);
    const archive = read.ok
      ? new DraftArchive<T>(options, read.pairs, read.months, judgeMonthFiles(read.months, read.files, onDisk))
      : new DraftArchive<T>(options, new Uint32Array(0), []);
    const months = [...onDisk.keys()].sort().reverse();
    return {
      async get(id) {
        const damaged: Array<MonthRead<T>> = [];
        for (const month of months) {
          const read = await readMonthFile(archive.options.dir, month, archive.options.parse);
          const found = read.records.get(id);
          if (found) return found;
          if (read.damaged.length > 0) damaged.push(read);
        }
        const lost = archive.lostIn(idKey(id));
        if (damaged.length > 0 || lost.length > 0) throw notFoundInDamage(`draft ${id}`, damaged, lost);
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
    for (const month of months) out.push(...(await readMonthFile(archive.options.dir, month, archive.options.parse)).records.values());
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

  /** True when the catalog may hold this draft (a look-up, no read: a start tells an archived draft from a lost one). */
  mayHoldDraft(draftId: string): boolean {
    return this.candidates(idKey(draftId)).length > 0;
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
      const read = await readMonthFile(this.options.dir, month, this.options.parse);
      const found = pick(read);
      if (found) return found;
      if (read.damaged.length > 0) damaged.push(read);
    }
    const lost = this.lostIn(hash);
    if (damaged.length > 0 || lost.length > 0) throw notFoundInDamage(what, damaged, lost);
    return undefined;
  }

  /** The month files that lost drafts among those the catalog names for this hash: each path, and what is wrong. */
  private lostIn(hash: number): Array<{ path: string; problem: string }> {
    return this.candidates(hash).flatMap((m) => {
      const problem = this.short.get(m);
      return problem === undefined ? [] : [{ path: this.monthPath(m), problem }];
    });
  }

  private monthPath(month: string): string {
    return join(this.options.dir, monthFileName(month));
  }

  /**
   * Files `records` under their months, idempotently: a record already in its
   * month file is not written twice (a crash after the file and before the
   * store forgot the record makes the next pass file it again). Each month
   * file is replaced whole and durably, then the catalog. Only after this
   * resolves may the store forget the records.
   */
  add(records: readonly T[]): Promise<T[]> {
    // One move at a time: two overlapping read-modify-replace of a month file would lose one's records.
    const run = this.adding.then(() => this.addNow(records));
    this.adding = run.then(
      () => {},
      () => {},
    );
    return run;
  }

  private async addNow(records: readonly T[]): Promise<T[]> {
    if (records.length === 0) return [];
    await mkdir(this.options.dir, { recursive: true, mode: 0o700 });
    const byMonth = new Map<string, T[]>();
    for (const r of records) {
      const month = this.options.monthOf(r);
      if (!/^\d{4}-\d{2}$/.test(month)) throw new TypeError(`archive month must be YYYY-MM, got ${JSON.stringify(month)}`);
      // Not into a month file that lost drafts: it stays as the operator found it, to be restored from a backup.
      if (this.short.has(month)) continue;
      byMonth.set(month, [...(byMonth.get(month) ?? []), r]);
    }
    if (byMonth.size < new Set(records.map((r) => this.options.monthOf(r))).size) {
      this.options.log.warn(
        { problems: this.problems() },
        "some final drafts are not archived: their month file lost drafts; they stay in the store until it is restored",
      );
    }
    const entries: Array<[number, number]> = [];
    for (const [month, list] of byMonth) {
      const existing = await readMonthFile(this.options.dir, month, this.options.parse);
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
        this.sizes.set(month, Buffer.byteLength(body));
      }
      const m = this.monthIndex(month);
      for (const r of list) entries.push(...this.keysOf(r, m));
    }
    this.merge(entries);
    await this.saveCatalog();
    return [...byMonth.values()].flat();
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

  private merge(entries: Array<[number, number]>): void {
    this.pairs = mergePairs(this.pairs, entries);
  }

  /** Months whose files may hold a key with this hash, newest first. */
  private candidates(hash: number): string[] {
    return candidateMonths(this.pairs, this.months, hash);
  }

  private saveCatalog(): Promise<void> {
    return writeCatalog(this.options.dir, this.pairs, this.months, this.sizes);
  }
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
