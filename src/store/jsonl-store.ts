import { open, rename, unlink, type FileHandle } from "node:fs/promises";
import { dirname } from "node:path";
import { openAppendLog } from "./append-log.js";
import { errCode, errMessage, fsyncDir, NOFOLLOW, writeAll } from "./fs-util.js";
import { GroupCommit } from "./group-commit.js";
import { encodeLine } from "./line-codec.js";
import { replay } from "./replay.js";
import { StoreBrokenError, StoreCorruptError } from "./store-errors.js";

export { StoreBrokenError, StoreCorruptError } from "./store-errors.js";

/** The two log levels the store uses (a pino logger fits). */
export interface StoreLog {
  warn(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
}

/** How to open a store. */
export interface OpenStoreOptions<T> {
  /** The JSONL file; it and its directory are created if missing (file mode 0600). */
  path: string;
  /** Validates one record read back (a zod parse); throws on invalid. */
  parse: (value: unknown) => T;
  log: StoreLog;
  /**
   * Compact after an append once the file has more lines than
   * max(compactAfterLines, 2 * records). Default 10_000.
   */
  compactAfterLines?: number;
  /** What the file is, for the log ("draft store", "update journal"); default "draft store". */
  label?: string;
  /** What the operator should do when a middle line is damaged (see StoreCorruptError); default: move it aside or restore it. */
  corruptRemedy?: string;
}

/** A damaged end of the file that opening it cut off (see JsonlStore.cutTail). */
export interface CutTail {
  /** Why, with the first line's number. */
  readonly reason: string;
  /** How many bytes were cut. */
  readonly bytes: number;
  /** The first of them (at most TAIL_KEPT_BYTES), for the caller to tell what they held. */
  readonly head: Buffer;
  /**
   * True when they hold a whole line (newline-terminated) that failed its
   * check: data damaged after it was written (and acknowledged), not only an
   * interrupted write, which leaves an unterminated tail.
   */
  readonly complete: boolean;
}

/** How much of a cut tail `cutTail.head` keeps. */
const TAIL_KEPT_BYTES = 64 << 10;

interface Item<T> {
  record: T;
  line: string;
}

const FILE_MODE = 0o600;

/**
 * An append-only JSONL file of whole records keyed by `draft_id`; the last
 * line of a draft is its state. Appends are durable (fsync'd) before they
 * resolve, checksummed per line, and group-committed. A failed write is cut
 * back to the last acknowledged byte; if even that fails the store turns
 * broken and rejects every later append with a StoreBrokenError, so a
 * half-written line is never followed by a good one.
 */
export class JsonlStore<T extends { draft_id: string }> {
  private readonly queue = new GroupCommit<Item<T>>((items) => this.commit(items));
  private broken: Error | null = null;
  private closed = false;
  private compactionQueued = false;
  /** Auto-compaction waits until lineCount passes this (raised after a failed compaction). */
  private compactionFloor = 0;
  /** Set by `appendOnly`: the file is never rewritten (no compaction, no forget). */
  private rewritesRefused: string | null = null;

  private constructor(
    private readonly path: string,
    private readonly log: StoreLog,
    private readonly compactAfterLines: number,
    private fh: FileHandle,
    private size: number,
    private lines: number,
    private readonly map: Map<string, T>,
    /** The damaged end that opening cut off, or null when the file ended cleanly. */
    readonly cutTail: CutTail | null,
    private readonly label: string,
  ) {}

  /** Opens (replays) the store, cutting off a torn tail; see StoreCorruptError for a damaged middle. */
  static async open<T extends { draft_id: string }>(opts: OpenStoreOptions<T>): Promise<JsonlStore<T>> {
    const fh = await openAppendLog(opts.path);
    try {
      await removeStaleTemp(opts.path, opts.log);
      const r = await replay(fh, opts.path, opts.parse).catch((err: unknown) => {
        if (err instanceof StoreCorruptError && opts.corruptRemedy !== undefined) {
          throw new StoreCorruptError(err.path, err.line!, err.reason, opts.corruptRemedy);
        }
        throw err;
      });
      let cut: CutTail | null = null;
      if (r.droppedBytes > 0) {
        const head = Buffer.alloc(Math.min(r.droppedBytes, TAIL_KEPT_BYTES));
        await fh.read(head, 0, head.length, r.goodBytes);
        cut = { reason: r.droppedReason ?? "damaged", bytes: r.droppedBytes, head, complete: head.includes(0x0a) };
        await fh.truncate(r.goodBytes);
        await fh.datasync();
        opts.log.warn(
          { path: opts.path, droppedBytes: r.droppedBytes, keptBytes: r.goodBytes, reason: r.droppedReason },
          `cut off a torn or damaged end of the ${opts.label ?? "draft store"}`,
        );
      }
      const limit = opts.compactAfterLines ?? 10_000;
      return new JsonlStore(opts.path, opts.log, limit, fh, r.goodBytes, r.lines, r.latest, cut, opts.label ?? "draft store");
    } catch (err) {
      await fh.close().catch(() => undefined);
      throw err;
    }
  }

  /** Latest record per draft_id, in first-seen order. Records are shared, not copied: do not mutate them. */
  get latest(): ReadonlyMap<string, T> {
    return this.map;
  }

  /** Lines in the file (one per append of a record since the last compaction). */
  get lineCount(): number {
    return this.lines;
  }

  /**
   * Appends whole records, one line each; resolves only once written AND
   * fsync'd, and only then are they in `latest`. Keep the records unchanged
   * afterwards: `latest` holds them as given.
   */
  append(records: readonly T[]): Promise<void> {
    if (this.closed) return Promise.reject(new Error(`${this.path} is closed; this is a bug in the caller`));
    if (this.broken) return Promise.reject(this.broken);
    if (records.length === 0) return Promise.resolve();
    let items: Item<T>[];
    try {
      items = records.map((record) => ({ record, line: encodeRecord(record) }));
    } catch (err) {
      return Promise.reject(err);
    }
    return this.queue.submit(items);
  }

  /**
   * From now on the file is only appended to: its existing lines stay byte for
   * byte (a rewrite encodes records again, in another key order). Test mode
   * uses it while the store holds live drafts. `why` names the reason in the
   * error of a compaction or forget asked for anyway (a bug in the caller).
   */
  appendOnly(why: string): void {
    this.rewritesRefused = why;
  }

  /** Rewrites the file with one line per draft, atomically (temp file, fsync, rename, fsync dir). */
  compact(): Promise<void> {
    if (this.closed) return Promise.reject(new Error(`${this.path} is closed; this is a bug in the caller`));
    if (this.rewritesRefused !== null) return Promise.reject(new Error(`${this.path} is append-only: ${this.rewritesRefused}`));
    return this.queue.exclusive(() => this.compactNow());
  }

  /**
   * Drops records from the store (the caller has archived them durably): the
   * file is rewritten without them, atomically, like a compaction. Until the
   * rewrite is durable a crash keeps them in the store (and the caller's next
   * pass finds them archived already). A rewrite that fails keeps them, so
   * the next pass tries again.
   */
  forget(ids: ReadonlySet<string>): Promise<void> {
    if (this.closed) return Promise.reject(new Error(`${this.path} is closed; this is a bug in the caller`));
    if (ids.size === 0) return Promise.resolve();
    if (this.rewritesRefused !== null) return Promise.reject(new Error(`${this.path} is append-only: ${this.rewritesRefused}`));
    return this.queue.exclusive(async () => {
      const dropped: T[] = [];
      for (const id of ids) {
        const record = this.map.get(id);
        if (record !== undefined && this.map.delete(id)) dropped.push(record);
      }
      try {
        await this.compactNow();
      } catch (err) {
        for (const record of dropped) this.map.set(record.draft_id, record);
        throw err;
      }
    });
  }

  /** Waits for queued appends, then closes the file. Later appends reject. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.queue.exclusive(() => this.fh.close());
  }

  private async commit(items: readonly Item<T>[]): Promise<void> {
    if (this.broken) throw this.broken;
    const data = Buffer.from(items.map((i) => i.line).join(""));
    try {
      await writeAll(this.fh, data);
      // fdatasync: flushes the data and the new file size, all a replay needs.
      await this.fh.datasync();
    } catch (err) {
      await this.rollback(err);
      throw new Error(
        `could not write ${items.length} record(s) to ${this.path}: ${errMessage(err)}. They were not saved. Check disk space and permissions.`,
        { cause: err },
      );
    }
    this.size += data.length;
    this.lines += items.length;
    for (const { record } of items) this.map.set(record.draft_id, record);
    this.maybeScheduleCompaction();
  }

  /** Cuts the file back to the last acknowledged byte, or marks the store broken. */
  private async rollback(cause: unknown): Promise<void> {
    try {
      await this.fh.truncate(this.size);
      await this.fh.datasync();
    } catch {
      this.broken = new StoreBrokenError(this.path, cause);
    }
  }

  private maybeScheduleCompaction(): void {
    const threshold = Math.max(this.compactAfterLines, 2 * this.map.size, this.compactionFloor);
    if (this.lines <= threshold || this.compactionQueued || this.closed || this.rewritesRefused !== null) return;
    this.compactionQueued = true;
    this.queue
      .exclusive(() => this.compactNow())
      .catch((err: unknown) => {
        this.compactionFloor = this.lines + this.compactAfterLines;
        this.log.warn(
          { path: this.path, err: errMessage(err) },
          `compaction of the ${this.label} failed; appends go on, the file stays long`,
        );
      });
  }

  private async compactNow(): Promise<void> {
    this.compactionQueued = false;
    if (this.broken) throw this.broken;
    const before = this.lines;
    const tmp = tempPath(this.path);
    const size = await writeSnapshot(tmp, this.map.values());
    try {
      await rename(tmp, this.path);
    } catch (err) {
      await unlink(tmp).catch(() => undefined);
      throw err;
    }
    await this.switchToCompacted(size);
    this.log.info({ path: this.path, linesBefore: before, linesAfter: this.lines }, `compacted the ${this.label}`);
  }

  /** After the rename the old handle points at the replaced file: reopen, then make the rename durable. */
  private async switchToCompacted(size: number): Promise<void> {
    try {
      const fresh = await open(this.path, NOFOLLOW.append, FILE_MODE);
      await this.fh.close().catch(() => undefined);
      this.fh = fresh;
      this.size = size;
      this.lines = this.map.size;
      await fsyncDir(dirname(this.path));
    } catch (err) {
      this.broken = new StoreBrokenError(this.path, err);
      throw this.broken;
    }
  }
}

/** Encodes with draft_id as the first key, so replay can read the id without parsing the line. */
function encodeRecord(record: { draft_id: string }): string {
  return encodeLine(Object.assign({ draft_id: record.draft_id }, record));
}

function tempPath(path: string): string {
  return `${path}.compact.tmp`;
}

/** Writes one line per record to `tmp` and fsyncs it; returns its size. Removes `tmp` on failure. */
async function writeSnapshot<T extends { draft_id: string }>(tmp: string, records: Iterable<T>): Promise<number> {
  const fh = await open(tmp, NOFOLLOW.write, FILE_MODE);
  let size = 0;
  try {
    let parts: string[] = [];
    let partChars = 0;
    const flush = async () => {
      const data = Buffer.from(parts.join(""));
      parts = [];
      partChars = 0;
      await writeAll(fh, data);
      size += data.length;
    };
    for (const record of records) {
      const line = encodeRecord(record);
      parts.push(line);
      partChars += line.length;
      if (partChars >= 1 << 20) await flush();
    }
    await flush();
    await fh.sync();
    await fh.close();
    return size;
  } catch (err) {
    await fh.close().catch(() => undefined);
    await unlink(tmp).catch(() => undefined);
    throw err;
  }
}

/** A temp file left by a compaction that crashed before its rename is garbage: the store file is whole. */
async function removeStaleTemp(path: string, log: StoreLog): Promise<void> {
  try {
    await unlink(tempPath(path));
    log.info({ path: tempPath(path) }, "removed the temp file of an interrupted compaction");
  } catch (err) {
    if (errCode(err) !== "ENOENT") throw err;
  }
}
