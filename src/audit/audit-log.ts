import { readSync } from "node:fs";
import type { FileHandle } from "node:fs/promises";
import { errMessage, writeAll } from "../store/fs-util.js";
import { openAppendLog } from "../store/append-log.js";
import { GroupCommit } from "../store/group-commit.js";
import type { StoreLog } from "../store/jsonl-store.js";
import type { AuditIndex } from "./audit-index.js";
import { lineHash, scanHandle, sourceNeedle, type ScanTrust } from "./audit-scan.js";
import { parseAuditLine, type AuditEntry, type TransitionEntry } from "./audit-schema.js";
import { encodeEntry, type Encoded } from "./encoded-entry.js";
import { OwnLinesSinceScan } from "./own-lines.js";
import { keyAnchorEntry, reportScan, startAudit, type AuditKeyOption } from "./audit-start.js";
import { CheckpointWrites, encodeCheckpoint } from "./checkpoint.js";
import { lineProof, signLine, type AuditKey } from "./line-proof.js";
import { readLines } from "../store/line-reader.js";
import { DEFAULT_AUDIT_SOURCE } from "./verify-chain.js";

export { verifyAuditChain, DEFAULT_AUDIT_SOURCE, type ChainVerdict } from "./verify-chain.js";
export type { AuditEntry } from "./audit-schema.js";

/** Ends a search through the log once the line is found. */
const FOUND = new Error("found");

/** Read more than this at open and the checkpoint is written at once. */
const CHECKPOINT_AT_OPEN_BYTES = 1 << 20;

/** How to open the audit log. */
export interface OpenAuditOptions {
  path: string;
  log: StoreLog;
  /** Our `source` field; default "telegram-draft-for-review". */
  source?: string;
  /** Milliseconds since the epoch for `ts` (pass the daemon's Clock.now); default Date.now. */
  now?: () => number;
  /**
   * Where the index's checkpoint lives (the daemon: HARNESS_DIR/audit_index.json).
   * Without one every open reads the whole log.
   */
  checkpointPath?: string;
  /** Write the checkpoint after this many of our lines; default 1000. */
  checkpointEvery?: number;
  /**
   * The audit key (HARNESS_DIR/audit_key): our lines carry its proof, and only proven lines (or,
   * before the key existed, lines on our chain) reach the index. Absent: no proofs, no key (tests of
   * the log alone).
   */
  key?: AuditKeyOption;
}

/**
 * The audit log `swarm.jsonl`, shared with other programs that append to it.
 * We only ever append, with O_APPEND and one write(2) per batch of whole lines
 * (regular files promise no atomicity, but whole lines in one write is the best
 * there is), and
 * never truncate or rewrite: other writers own lines in it. Our lines form a
 * hash chain (seq, prev_hash) and, with the audit key, each carries a proof
 * (line-proof.ts) that only a holder of the key can make: any process may
 * append to the log, but only our proven lines reach the index, so a line
 * another writer appends never decides anything (verifyAudit checks both).
 *
 * What the daemon needs from its lines is kept in `index` (see AuditIndex),
 * updated on every append and checkpointed, so a start reads only the lines
 * written since the checkpoint.
 *
 * After a failed write or fsync the batch rejects and the next append first
 * re-reads the file from the last indexed line to find the real chain head
 * (the failed line may or may not have landed), then starts on a fresh line
 * so nothing glues onto a half-written one.
 */
export class AuditLog {
  private readonly queue = new GroupCommit<Encoded>((items) => this.commit(items));
  private needsRescan = false;
  private closed = false;
  private sinceCheckpoint = 0;
  private checkpointQueued = false;
  /** The checkpoint file's writes, in turn (made at the first): close waits for the one under way. */
  private writes: CheckpointWrites | null = null;
  /** Our lines since the last scan: a catch-up after only those reads nothing (own-lines.ts). */
  private readonly ours = new OwnLinesSinceScan(false);

  private constructor(
    private readonly path: string,
    /** Our `source` field. */
    readonly source: string,
    private readonly now: () => number,
    private readonly log: StoreLog,
    private readonly fh: FileHandle,
    /** What the daemon knows from its own lines. */
    readonly index: AuditIndex,
    /** Bytes after the last newline when last looked (someone's unfinished line). */
    private tailBytes: number,
    /** A lower bound of the file's size: where our next line starts at the earliest. */
    private floor: number,
    private readonly checkpointPath: string | undefined,
    private readonly checkpointEvery: number,
    /** How the open went: from a checkpoint or not, and how many bytes it read. */
    readonly opened: { readonly fromCheckpoint: boolean; readonly bytesRead: number },
    /** The audit key: our lines are proven with it (null: no proofs). */
    private readonly key: AuditKey | null,
    /** When this log was opened (ms, on `now`): a halt the log shows as lasting ended before it. */
    private readonly startedAt: number,
  ) {}

  /** Opens (creating it, mode 0600, if missing) and brings the index up to date from the checkpoint or the whole file. */
  static async open(opts: OpenAuditOptions): Promise<AuditLog> {
    const source = opts.source ?? DEFAULT_AUDIT_SOURCE;
    const fh = await openAppendLog(opts.path);
    try {
      const { key, index, scan, fromCheckpoint, anchorOwed } = await startAudit(fh, { ...opts, source });
      reportScan(opts.log, opts.path, scan);
      const now = opts.now ?? Date.now;
      const audit = new AuditLog(
        opts.path,
        source,
        now,
        opts.log,
        fh,
        index,
        scan.tailBytes,
        scan.size,
        opts.checkpointPath,
        opts.checkpointEvery ?? 1000,
        {
          fromCheckpoint,
          bytesRead: scan.bytesRead,
        },
        key,
        now(),
      );
      audit.ours.scanned(scan.tailBytes === 0 && index.scannedTo === scan.size);
      // The key is new (or its anchor never made it): our lines from before it are vouched for first.
      if (anchorOwed) await audit.append([keyAnchorEntry(index, source)]);
      // A long read (no usable checkpoint, or a crash long after the last one) is saved at once;
      // a short one waits for the next checkpoint (every checkpointEvery lines, and at close).
      audit.sinceCheckpoint = scan.bytesRead > 0 ? 1 : 0;
      // A checkpoint that cannot be written (a full disk, a directory at its path) never stops the start.
      if (opts.checkpointPath !== undefined && scan.bytesRead > CHECKPOINT_AT_OPEN_BYTES)
        await audit.writeCheckpoint().catch((err: unknown) => audit.checkpointFailed(err));
      return audit;
    } catch (err) {
      await fh.close().catch(() => undefined);
      throw err;
    }
  }

  /** The seq of our last line; 0 before the first. */
  get lastSeq(): number {
    return this.index.lastSeq;
  }

  /** The audit log's path. */
  get file(): string {
    return this.path;
  }

  /**
   * The last moment the log's proven lines show an owner's halt (the daemon's or the CLI's) in force,
   * or null: with halt_record.json, what voids an approval made before it (see halt-watch.ts).
   */
  loggedHalt(): { at: number; reason: string } | null {
    return this.index.loggedHalt(this.startedAt);
  }

  /**
   * True when the log's proven lines show an owner's halt still lasting (no resume after it), read
   * up to the end of the file first: another program's line (the CLI's halt or resume) counts as soon
   * as it is there. What ends a halt whose HALT file was removed by hand (owner/halt-removed.ts).
   */
  async ownerHaltLasting(): Promise<boolean> {
    if (!this.closed) await this.queue.exclusive(() => this.catchUp());
    return this.index.ownerHaltLasting();
  }

  /**
   * Our proven transition line of `draftId` at `version`, or null: read from where the index saw the
   * draft's last transition line (a lower bound of its offset) to the end. What a start restores a
   * change from that the store lost (src/app/store-restore.ts).
   */
  async transitionAt(draftId: string, version: number): Promise<TransitionEntry | null> {
    const needle = sourceNeedle(this.source);
    let found: TransitionEntry | null = null;
    const onLine = (buf: Buffer, start: number, end: number) => {
      const line = buf.subarray(start, end);
      if (line.indexOf(needle) < 0) return;
      if (this.key !== null && lineProof(this.key, line, 0, line.length) !== "valid") return;
      const entry = parseAuditLine(buf.toString("utf8", start, end), this.source)?.entry;
      if (entry?.kind !== "transition" || entry.draft_id !== draftId || entry.version !== version) return;
      found = entry;
      throw FOUND;
    };
    await readLines(this.fh, onLine, { startOffset: this.index.transitionLine(draftId) ?? 0, chunkBytes: 64 << 10 }).catch(
      (err: unknown) => {
        if (err !== FOUND) throw err;
      },
    );
    return found;
  }

  /**
   * True when a line naming our source, at byte `offset`, is ours: its proof verifies, or it has none and
   * comes before the key anchor (written before the key existed). Without a key, every line is (no proofs).
   * What readers of the log that act on it (the feed, the weekly report) use to skip another writer's lines.
   */
  proves(line: Uint8Array, offset: number): boolean {
    if (this.key === null) return true;
    const proof = lineProof(this.key, line, 0, line.length);
    if (proof === "valid") return true;
    return proof === "none" && this.index.anchor !== null && offset < this.index.anchor.offset;
  }

  /** Whose lines a scan takes as ours. */
  private get trust(): ScanTrust {
    return { key: this.key, own: this.source };
  }

  /** Appends entries, one line each; resolves once they are written and fsync'd (and in the index). */
  append(entries: readonly AuditEntry[]): Promise<void> {
    if (this.closed) return Promise.reject(new Error(`${this.path} is closed; this is a bug in the caller`));
    if (entries.length === 0) return Promise.resolve();
    let items: Encoded[];
    try {
      items = entries.map(encodeEntry);
    } catch (err) {
      return Promise.reject(err);
    }
    return this.queue.submit(items);
  }

  /** Brings the index level with the file and writes the checkpoint now (no-op without a checkpoint path). */
  checkpoint(): Promise<void> {
    if (this.closed) return Promise.resolve();
    return this.queue.exclusive(() => this.writeCheckpoint());
  }

  /** Waits for queued appends, writes the checkpoint, then closes the file. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.queue.exclusive(async () => {
      await this.writes?.idle();
      // Lines since the checkpoint, or drafts forgotten (archived) that the checkpoint still holds.
      if ((this.sinceCheckpoint > 0 || this.index.pruned) && !this.needsRescan) {
        await this.writeCheckpoint().catch((err: unknown) => this.checkpointFailed(err));
      }
      await this.fh.close();
    });
  }

  private async commit(items: readonly Encoded[]): Promise<void> {
    if (this.needsRescan) await this.rescan();
    const ts = new Date(this.now()).toISOString();
    const head = `{"ts":${JSON.stringify(ts)},"source":${JSON.stringify(this.source)},"seq":`;
    let seq = this.index.lastSeq;
    let hash = this.index.lastHash;
    const added: Array<{ seq: number; prev_hash: string; hash: string; entry: AuditEntry; offset: number }> = [];
    let offset = this.floor;
    try {
      if (this.tailBytes === 0 && (await this.endsMidLine())) {
        // Another writer left a line without its newline since we last looked: never glue onto it.
        this.log.warn(
          { path: this.path },
          "another writer left an incomplete line at the end of the audit log; it is left as is and our next line starts on a new line",
        );
        this.tailBytes = 1;
      }
      // A newline ends another writer's line first: a line not ours follows the scan.
      if (this.tailBytes > 0) this.ours.lost();
      // The batch's lines go out in one write(2): whole lines, appended together (O_APPEND), one
      // system call and one trip to the thread pool instead of one per line.
      const parts: string[] = [];
      if (this.tailBytes > 0) {
        parts.push("\n");
        offset += 1;
      }
      for (const { json, entry } of items) {
        seq++;
        const unproven = `${head}${seq},"prev_hash":"${hash}",${json.slice(1)}`;
        const line = this.key === null ? unproven : signLine(this.key, unproven);
        parts.push(line, "\n");
        added.push({ seq, prev_hash: hash, hash: lineHash(line), entry, offset });
        offset += Buffer.byteLength(line) + 1;
        hash = added[added.length - 1]!.hash;
      }
      await writeAll(this.fh, Buffer.from(parts.join("")));
      this.tailBytes = 0;
      await this.fh.datasync();
    } catch (err) {
      this.needsRescan = true;
      this.ours.lost();
      throw new Error(
        `could not write ${items.length} audit line(s) to ${this.path}: ${errMessage(err)}. They are not acknowledged. Check disk space and permissions.`,
        { cause: err },
      );
    }
    this.floor = offset;
    const last = added.at(-1);
    if (last !== undefined) this.ours.appended(added.length, [last.offset, offset - 1]);
    for (const a of added) this.index.add({ ts, source: this.source, seq: a.seq, prev_hash: a.prev_hash }, a.entry, a.hash, a.offset);
    this.sinceCheckpoint += added.length;
    this.checkpointWhenDue();
  }

  /** Every checkpointEvery lines: only the index's snapshot waits for a turn between batches; the file is written beside the next appends. */
  private checkpointWhenDue(): void {
    if (this.checkpointPath === undefined || this.sinceCheckpoint < this.checkpointEvery || this.checkpointQueued) return;
    this.checkpointQueued = true;
    // The write starts inside the turn (close, which comes later, waits for it) and is not waited for there.
    let saved: Promise<void> = Promise.resolve();
    this.queue
      .exclusive(async () => {
        saved = this.save(await this.checkpointLine());
        saved.catch(() => {}); // its failure is handled below, once the turn has ended
      })
      .then(() => saved)
      .catch((err: unknown) => this.checkpointFailed(err))
      .finally(() => (this.checkpointQueued = false));
  }

  /** Catches the index up with the file (other writers' lines, exact offsets), then saves it. Runs between batches. */
  private async writeCheckpoint(): Promise<void> {
    await this.save(await this.checkpointLine());
  }

  /** The checkpoint of the index caught up with the file, as it stands between two batches; null without a checkpoint path. */
  private async checkpointLine(): Promise<{ line: string; covers: number } | null> {
    if (this.checkpointPath === undefined) return null;
    await this.catchUp();
    this.index.pruneUpdates(this.now());
    return { line: encodeCheckpoint(this.index.snapshot(this.source), this.key), covers: this.sinceCheckpoint };
  }

  /** Writes a checkpoint after the one being written, if any; the lines it covers no longer count toward the next. */
  private async save(checkpoint: { line: string; covers: number } | null): Promise<void> {
    if (checkpoint === null || this.checkpointPath === undefined) return;
    this.writes ??= new CheckpointWrites(this.checkpointPath);
    await this.writes.write(checkpoint.line);
    this.sinceCheckpoint = Math.max(0, this.sinceCheckpoint - checkpoint.covers);
  }

  /** Logs a checkpoint that could not be written: the daemon goes on, the next start reads more of the log. */
  private checkpointFailed(err: unknown): void {
    this.log.warn(
      { path: this.checkpointPath, err: errMessage(err) },
      "could not write the audit index checkpoint; the next start reads more of the audit log",
    );
  }

  /** True when the file does not end with a newline (another writer's torn or unfinished line). */
  private async endsMidLine(): Promise<boolean> {
    // Usually nothing was written since our last line: one read at `floor` (a lower bound of the size, at a line end
    // while tailBytes is 0) reaches the end of the file. Synchronous: on the way of every change, it must not queue in
    // libuv's thread pool behind the fsyncs of other files.
    const probe = Buffer.allocUnsafe(4096);
    const bytesNear = readSync(this.fh.fd, probe, 0, probe.length, this.floor);
    if (bytesNear < probe.length) return bytesNear > 0 && probe[bytesNear - 1] !== 0x0a;
    const { size } = await this.fh.stat();
    if (size === 0) return false;
    const last = Buffer.alloc(1);
    const { bytesRead } = await this.fh.read(last, 0, 1, size - 1);
    return bytesRead === 1 && last[0] !== 0x0a;
  }

  private async rescan(): Promise<void> {
    await this.catchUp();
    this.log.warn({ path: this.path, lastSeq: this.index.lastSeq }, "re-read the audit log after a failed write to continue its chain");
    this.needsRescan = false;
  }

  /** Reads the lines after the last scan into the index (ours again, skipped; the CLI's; others', reported). Runs between batches. */
  private async catchUp(): Promise<void> {
    if (this.tailBytes === 0 && (await this.ours.skipRead(this.index, this.fh, this.floor))) return;
    const scan = await scanHandle(this.index, this.fh, this.trust);
    reportScan(this.log, this.path, { ...scan, unparseableCount: 0, tailBytes: 0 });
    this.tailBytes = scan.tailBytes;
    this.floor = Math.max(this.floor, scan.size);
    this.ours.scanned(scan.tailBytes === 0);
  }
}
