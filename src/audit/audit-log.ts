import { mkdir, type FileHandle } from "node:fs/promises";
import { dirname } from "node:path";
import { errMessage, fsyncDir, openAppend, writeAll } from "../store/fs-util.js";
import { GroupCommit } from "../store/group-commit.js";
import type { StoreLog } from "../store/jsonl-store.js";
import { lineHash, scanAudit, toAuditLine, type AuditLine, type AuditScan } from "./audit-scan.js";
import { auditEntrySchema, parseAuditLine, RESERVED_FIELDS, type AuditEntry } from "./audit-schema.js";
import { DEFAULT_AUDIT_SOURCE } from "./verify-chain.js";

export { verifyAuditChain, DEFAULT_AUDIT_SOURCE, type ChainVerdict } from "./verify-chain.js";
export type { AuditLine } from "./audit-scan.js";

export type { AuditEntry } from "./audit-schema.js";

interface Encoded {
  /** The entry's JSON. */
  json: string;
}

/** How to open the audit log. */
export interface OpenAuditOptions {
  path: string;
  log: StoreLog;
  /** Our `source` field; default "telegram-draft-for-review". */
  source?: string;
  /** Milliseconds since the epoch for `ts` (pass the daemon's Clock.now); default Date.now. */
  now?: () => number;
}

/**
 * The audit log `swarm.jsonl`, shared with other programs that append to it.
 * We only ever append, with O_APPEND and one write(2) per line (regular files
 * promise no atomicity, but one write per line is the best there is), and
 * never truncate or rewrite: other writers own lines in it. Our lines form a
 * hash chain (seq, prev_hash) that verifyAuditChain checks.
 *
 * After a failed write or fsync the batch rejects and the next append first
 * re-reads the file to find the real chain head (the failed line may or may
 * not have landed), then starts on a fresh line so nothing glues onto a
 * half-written one.
 */
export class AuditLog {
  private readonly queue = new GroupCommit<Encoded>((items) => this.commit(items));
  private needsRescan = false;
  private closed = false;

  private constructor(
    private readonly path: string,
    private readonly source: string,
    private readonly now: () => number,
    private readonly log: StoreLog,
    private readonly fh: FileHandle,
    private state: AuditScan,
  ) {}

  /** Opens (creating it, mode 0600, if missing) and reads our lines back. */
  static async open(opts: OpenAuditOptions): Promise<AuditLog> {
    const source = opts.source ?? DEFAULT_AUDIT_SOURCE;
    const dir = dirname(opts.path);
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const { fh, created } = await openAppend(opts.path, 0o600);
    try {
      if (created) await fsyncDir(dir);
      const state = await scanAudit(opts.path, source);
      reportScan(opts.log, opts.path, state);
      return new AuditLog(opts.path, source, opts.now ?? Date.now, opts.log, fh, state);
    } catch (err) {
      await fh.close().catch(() => undefined);
      throw err;
    }
  }

  /** Our own lines, read back at open and appended since, oldest first. */
  get ours(): readonly AuditLine[] {
    return this.state.ours;
  }

  /** The seq of our last line; 0 before the first. */
  get lastSeq(): number {
    return this.state.lastSeq;
  }

  /** Appends entries, one line each; resolves once they are written and fsync'd. */
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

  /** Waits for queued appends, then closes the file. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.queue.exclusive(() => this.fh.close());
  }

  private async commit(items: readonly Encoded[]): Promise<void> {
    if (this.needsRescan) await this.rescan();
    const ts = new Date(this.now()).toISOString();
    const head = `{"ts":${JSON.stringify(ts)},"source":${JSON.stringify(this.source)},"seq":`;
    let { lastSeq: seq, lastHash: hash } = this.state;
    const added: AuditLine[] = [];
    try {
      if (this.state.tailBytes === 0 && (await this.endsMidLine())) {
        // Another writer left a line without its newline since we last looked: never glue onto it.
        this.log.warn({ path: this.path }, "another writer left an incomplete line at the end of the audit log; it is left as is and our next line starts on a new line");
        this.state.tailBytes = 1;
      }
      for (const { json } of items) {
        seq++;
        const line = `${head}${seq},"prev_hash":"${hash}",${json.slice(1)}`;
        await writeAll(this.fh, Buffer.from(`${this.state.tailBytes > 0 ? "\n" : ""}${line}\n`));
        this.state.tailBytes = 0;
        hash = lineHash(line);
        const parsed = parseAuditLine(line, this.source);
        if (parsed) added.push(toAuditLine(parsed));
      }
      await this.fh.datasync();
    } catch (err) {
      this.needsRescan = true;
      throw new Error(
        `could not write ${items.length} audit line(s) to ${this.path}: ${errMessage(err)}. They are not acknowledged. Check disk space and permissions.`,
        { cause: err },
      );
    }
    this.state.lastSeq = seq;
    this.state.lastHash = hash;
    for (const line of added) this.state.ours.push(line);
  }

  /** True when the file does not end with a newline (another writer's torn or unfinished line). */
  private async endsMidLine(): Promise<boolean> {
    const { size } = await this.fh.stat();
    if (size === 0) return false;
    const last = Buffer.alloc(1);
    const { bytesRead } = await this.fh.read(last, 0, 1, size - 1);
    return bytesRead === 1 && last[0] !== 0x0a;
  }

  private async rescan(): Promise<void> {
    const state = await scanAudit(this.path, this.source);
    this.log.warn({ path: this.path, lastSeq: state.lastSeq }, "re-read the audit log after a failed write to continue its chain");
    this.state = state;
    this.needsRescan = false;
  }
}

/** Validates (against the audit schema) and serialises one entry; throws a TypeError (a caller's bug) for a bad one. */
function encodeEntry(entry: AuditEntry): Encoded {
  for (const key of RESERVED_FIELDS) {
    if (Object.hasOwn(entry, key)) throw new TypeError(`an audit entry cannot set "${key}": the audit log writes it`);
  }
  const checked = auditEntrySchema.safeParse(entry);
  if (!checked.success) {
    throw new TypeError(`an audit entry of kind "${String((entry as { kind?: unknown }).kind)}" does not match the audit schema (src/audit/audit-schema.ts): ${checked.error.message}`);
  }
  const json = JSON.stringify(entry);
  if (json === undefined || json[0] !== "{") throw new TypeError("an audit entry must be a JSON object");
  return { json };
}

function reportScan(log: StoreLog, path: string, s: AuditScan): void {
  if (s.unparseableCount > 0) {
    log.warn(
      { path, count: s.unparseableCount, lines: s.unparseable },
      "skipped audit lines of ours that do not parse (interrupted writes?); the chain continues from the last good one",
    );
  }
  if (s.tailBytes > 0) {
    log.warn({ path, bytes: s.tailBytes }, "the audit log ends with an incomplete line (an interrupted write); it is left as is and our next line starts on a new line");
  }
}
