/**
 * Reading HARNESS_DIR the way a restarted daemon would, without writing to it:
 * the draft store through the daemon's own replay (read-only), the audit log
 * incrementally (it is append-only), and a synchronous watcher that lets a
 * test kill the daemon the moment a given line lands on disk.
 */
import { closeSync, fstatSync, openSync, readSync, statSync, watch, type FSWatcher } from "node:fs";
import { open, readdir, readFile } from "node:fs/promises";
import { basename, join } from "node:path";
import { harnessPaths } from "../../../src/app/paths.js";
import { draftRecordSchema, type DraftRecord } from "../../../src/drafts/record.js";
import { replay } from "../../../src/store/replay.js";
import { dueForArchive } from "../../../src/desk/archiving.js";

/** The store as a restart would load it. */
export interface StoreView {
  readonly drafts: ReadonlyMap<string, DraftRecord>;
  readonly lines: number;
  /** Bytes of a torn tail the next start will cut off. */
  readonly droppedBytes: number;
}

/**
 * Replays `telegram_drafts.jsonl` read-only, with the drafts archived in
 * `archive/` under it (the store's record wins); throws (StoreCorruptError)
 * where the daemon would refuse to start, and when the archive holds a draft
 * twice (a move the crash left half done must not file it twice).
 */
export async function readStore(harnessDir: string): Promise<StoreView> {
  const path = harnessPaths(harnessDir).drafts;
  const archived = await readArchive(harnessPaths(harnessDir).archive);
  const fh = await open(path, "r").catch((err: NodeJS.ErrnoException) => {
    if (err.code === "ENOENT") return null;
    throw err;
  });
  if (fh === null) return { drafts: archived, lines: 0, droppedBytes: 0 };
  try {
    const r = await replay(fh, path, (v) => draftRecordSchema.parse(v));
    const drafts = new Map(archived);
    for (const [id, d] of r.latest) drafts.set(id, d);
    return { drafts, lines: r.lines, droppedBytes: r.droppedBytes };
  } finally {
    await fh.close();
  }
}

/**
 * How many drafts the next start will move to archive/: final drafts still in
 * `telegram_drafts.jsonl` that ended more than `retentionMs` ago (the daemon's own rule).
 */
export async function archivingDue(harnessDir: string, retentionMs: number): Promise<number> {
  const path = harnessPaths(harnessDir).drafts;
  const fh = await open(path, "r").catch(() => null);
  if (fh === null) return 0;
  try {
    const r = await replay(fh, path, (v) => draftRecordSchema.parse(v));
    // A second of margin: the start that archives comes a moment after this check.
    return dueForArchive(r.latest.values(), Date.now() - 1000, retentionMs).length;
  } finally {
    await fh.close();
  }
}

/** Every draft in archive/'s month files; throws when one is filed twice or a file is damaged. */
async function readArchive(dir: string): Promise<Map<string, DraftRecord>> {
  const out = new Map<string, DraftRecord>();
  const names = (await readdir(dir).catch(() => [] as string[])).filter((n) => /^telegram_drafts-\d{4}-\d{2}\.jsonl$/.test(n)).sort();
  for (const name of names) {
    const fh = await open(join(dir, name), "r");
    try {
      const r = await replay(fh, join(dir, name), (v) => draftRecordSchema.parse(v));
      if (r.droppedBytes > 0)
        throw new Error(`archive/${name} has a damaged end (${r.droppedReason}): a month file is only ever replaced whole`);
      if (r.lines !== r.latest.size) throw new Error(`archive/${name} holds a draft twice (${r.lines} lines, ${r.latest.size} drafts)`);
      for (const [id, d] of r.latest) {
        if (out.has(id)) throw new Error(`draft ${id} is archived twice (again in ${name})`);
        out.set(id, d);
      }
    } finally {
      await fh.close();
    }
  }
  return out;
}

/**
 * readStore while a daemon may be writing (a compaction renames a file in):
 * tries again on a failed read. After a kill use readStore: a failure there
 * is a finding.
 */
export async function readLiveStore(harnessDir: string): Promise<StoreView> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await readStore(harnessDir);
    } catch (err) {
      if (attempt >= 5) throw err;
      await new Promise((r) => setTimeout(r, 20));
    }
  }
}

/** One parsed line of swarm.jsonl. */
export type AuditRow = Record<string, any>;

/**
 * swarm.jsonl read incrementally: only the bytes appended since the last
 * refresh are read. A torn line (a kill mid-write) is skipped: the daemon
 * never completes it, it starts its next line on a new line.
 */
export class AuditTail {
  private offset = 0;
  private rest: Buffer = Buffer.alloc(0);
  private readonly all: AuditRow[] = [];
  /** update_id -> the lines that carry it. */
  readonly byUpdate = new Map<number, AuditRow[]>();
  /** Lines that did not parse (torn by a kill). */
  torn = 0;

  constructor(private readonly path: string) {}

  static of(harnessDir: string): AuditTail {
    return new AuditTail(harnessPaths(harnessDir).audit);
  }

  /** Every line so far, after reading what was appended. */
  refresh(): readonly AuditRow[] {
    let fd: number;
    try {
      fd = openSync(this.path, "r");
    } catch {
      return this.all;
    }
    try {
      const size = fstatSync(fd).size;
      if (size > this.offset) {
        const buf = Buffer.alloc(size - this.offset);
        const n = readSync(fd, buf, 0, buf.length, this.offset);
        this.offset += n;
        this.take(Buffer.concat([this.rest, buf.subarray(0, n)]));
      }
    } finally {
      closeSync(fd);
    }
    return this.all;
  }

  private take(data: Buffer): void {
    let start = 0;
    for (let nl = data.indexOf(10, start); nl >= 0; nl = data.indexOf(10, start)) {
      const text = data.toString("utf8", start, nl);
      start = nl + 1;
      if (text.trim() === "") continue;
      let row: AuditRow;
      try {
        row = JSON.parse(text) as AuditRow;
      } catch {
        this.torn++;
        continue;
      }
      this.all.push(row);
      if (typeof row.update_id === "number") {
        const list = this.byUpdate.get(row.update_id) ?? [];
        list.push(row);
        this.byUpdate.set(row.update_id, list);
      }
    }
    this.rest = data.subarray(start);
  }
}

/** Reads the whole audit log (final checks). */
export async function readAudit(harnessDir: string): Promise<AuditRow[]> {
  const text = await readFile(harnessPaths(harnessDir).audit, "utf8").catch(() => "");
  const rows: AuditRow[] = [];
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    try {
      rows.push(JSON.parse(line) as AuditRow);
    } catch {
      // a torn line: skipped, as the daemon skips it
    }
  }
  return rows;
}

/**
 * Watches HARNESS_DIR and calls `onLine` synchronously, in the inotify
 * callback, for each complete line appended to `file` (the store or the audit
 * log), and `onName` for every file event (e.g. a compaction's temp file).
 * A replaced file (compaction renames a new one in) is read from its end: its
 * lines are old records, not news. Returns a function that stops watching.
 */
export function watchHarness(
  harnessDir: string,
  file: string,
  onLine: (line: string) => void,
  onName: (name: string, event: string) => void = () => {},
): () => void {
  const path = `${harnessDir}/${file}`;
  let ino = -1;
  let offset = 0;
  let rest = "";
  const sizeNow = () => {
    try {
      const s = statSync(path);
      return { ino: s.ino, size: s.size };
    } catch {
      return { ino: -1, size: 0 };
    }
  };
  ({ ino, size: offset } = sizeNow());
  const readNew = () => {
    const now = sizeNow();
    if (now.ino !== ino) {
      ino = now.ino;
      offset = now.size;
      rest = "";
      return;
    }
    if (now.size <= offset) return;
    let fd: number;
    try {
      fd = openSync(path, "r");
    } catch {
      return;
    }
    try {
      const buf = Buffer.alloc(now.size - offset);
      const n = readSync(fd, buf, 0, buf.length, offset);
      offset += n;
      const lines = (rest + buf.toString("utf8", 0, n)).split("\n");
      rest = lines.pop() ?? "";
      for (const line of lines) if (line !== "") onLine(line);
    } finally {
      closeSync(fd);
    }
  };
  let watcher: FSWatcher | undefined;
  try {
    watcher = watch(harnessDir, (event, name) => {
      if (name === null) return;
      onName(String(name), event);
      if (String(name) === basename(path)) readNew();
    });
  } catch {
    return () => {};
  }
  return () => watcher?.close();
}
