import type { FileHandle } from "node:fs/promises";
import { DataRefusalError } from "../app/data-refusal.js";
import type { StoreLog } from "../store/jsonl-store.js";
import { AuditIndex } from "./audit-index.js";
import { createAuditKey, lostKeyRemedy, readAuditKey } from "./audit-key.js";
import { lineHash, scanHandle, siblingSource, type AuditScan } from "./audit-scan.js";
import type { AuditEntryOf } from "./audit-schema.js";
import { loadCheckpoint } from "./checkpoint.js";
import type { AuditKey } from "./line-proof.js";

/**
 * How the audit log starts: its key (read, or made at the daemon's first
 * start), the index from the checkpoint or the whole file, and what the scan
 * found, reported. See AuditLog.open.
 */

/** Where the audit key is, and whether this program makes it when missing (the daemon does; the CLI does not). */
export interface AuditKeyOption {
  readonly path: string;
  readonly create: boolean;
  /** Told the key's text once it is known, so no log line can show it (the logger's secrets). */
  readonly onSecret?: (secret: string) => void;
}

/** What the start gave: the key (null: none), the index brought up to date, what the scan found. */
export interface AuditStart {
  readonly key: AuditKey | null;
  readonly index: AuditIndex;
  readonly scan: AuditScan;
  readonly fromCheckpoint: boolean;
  /** True when the key was made by this start: the key anchor must be written. */
  readonly anchorOwed: boolean;
}

/** What the start needs to know besides the file. */
export interface AuditStartOptions {
  readonly path: string;
  readonly log: StoreLog;
  readonly source: string;
  readonly checkpointPath?: string;
  readonly key?: AuditKeyOption;
}

/**
 * Reads the key (refusing one that cannot be trusted), builds the index from
 * the checkpoint (only one proven with the key) or from the whole file, and
 * makes the key when this program may and there is none. A missing key while
 * the log holds lines proven with one is refused: a new key would disown them.
 */
export async function startAudit(fh: FileHandle, opts: AuditStartOptions): Promise<AuditStart> {
  const read = opts.key ? await readAuditKey(opts.key.path) : null;
  let key = read?.kind === "key" ? read.key : null;
  if (read?.kind === "key") opts.key?.onSecret?.(read.secret);
  // Without the key (when one is expected) no checkpoint can be checked: the whole log is read.
  const index = read === null || key !== null ? await startingIndex(fh, opts, key) : new AuditIndex();
  const fromCheckpoint = index.scannedTo > 0 || index.lastSeq > 0;
  const scan = await scanHandle(index, fh, { key, own: opts.source });
  let anchorOwed = false;
  if (opts.key && read?.kind === "missing") {
    if (scan.firstProof !== null && opts.key.create)
      throw new DataRefusalError(
        opts.key.path,
        null,
        `it is missing, but ${opts.path} line ${scan.firstProof} and others were proven with it, and a new key would disown them`,
        lostKeyRemedy(opts.key.path),
      );
    if (opts.key.create) {
      const made = await createAuditKey(opts.key.path, read.empty);
      opts.key.onSecret?.(made.secret);
      key = made.key;
      opts.log.info({ path: opts.key.path }, "made the audit key (mode 0600): from now on only lines proven with it decide");
    } else if (scan.firstProof !== null) {
      opts.log.warn(
        { path: opts.key.path },
        "the audit key is missing: the lines written now carry no proof, and the daemon will not count them (restore the key)",
      );
    }
  }
  // A key without its anchor (made just now, or by a start that stopped before writing it, or the log was replaced).
  if (opts.key?.create && key !== null && index.anchor === null) anchorOwed = true;
  return { key, index, scan, fromCheckpoint, anchorOwed };
}

/** The key anchor's entry: the chain heads of our sources as they stand before the first proven line. */
export function keyAnchorEntry(index: AuditIndex, source: string): AuditEntryOf<"key_anchor"> {
  return {
    kind: "key_anchor",
    chains: [
      { source, seq: index.lastSeq, hash: index.lastHash },
      { source: siblingSource(source), seq: index.sibling.seq, hash: index.sibling.hash },
    ],
    note:
      "The audit key starts here. Lines of these sources up to these heads were written before it and count as this project's; " +
      "a line of these sources without a valid proof after this one is another writer's and decides nothing.",
  };
}

/**
 * The index to start from: the checkpoint's, when it is whole, proven (with
 * a key) and matches the file (our last line where it says, with the hash it
 * says), else an empty one (the whole file is read), with a log line saying why.
 */
async function startingIndex(fh: FileHandle, opts: AuditStartOptions, key: AuditKey | null): Promise<AuditIndex> {
  if (opts.checkpointPath === undefined) return new AuditIndex();
  const read = await loadCheckpoint(opts.checkpointPath, key);
  let problem: string;
  if (read.ok) {
    const mismatch = await checkpointMismatch(fh, read.snapshot, opts.source);
    if (mismatch === null) return AuditIndex.fromSnapshot(read.snapshot);
    problem = `it does not match the audit log (${mismatch}): a stale checkpoint, or the log was replaced`;
  } else {
    problem = read.problem;
  }
  const fields = { path: opts.checkpointPath, audit: opts.path, problem };
  if (read.ok || !read.missing) opts.log.warn(fields, "the audit index checkpoint cannot be used; reading the whole audit log instead");
  else opts.log.info(fields, "no audit index checkpoint; reading the whole audit log");
  return new AuditIndex();
}

/** Why a checkpoint does not describe this file, or null when it does. */
async function checkpointMismatch(
  fh: FileHandle,
  s: { source: string; scanned_to: number; last_seq: number; last_hash: string; head: [number, number] | null },
  source: string,
): Promise<string | null> {
  if (s.source !== source) return `it is for source ${JSON.stringify(s.source)}`;
  const { size } = await fh.stat();
  if (size < s.scanned_to) return `the log is ${size} bytes, the checkpoint covers ${s.scanned_to}`;
  if (s.scanned_to > 0) {
    const nl = Buffer.alloc(1);
    await fh.read(nl, 0, 1, s.scanned_to - 1);
    if (nl[0] !== 0x0a) return `byte ${s.scanned_to - 1} is not the end of a line`;
  }
  if (s.head === null) return s.last_seq === 0 ? null : "it names a last line but not where it is";
  const [start, end] = s.head;
  if (end < start || end > size || end - start > 64 << 20) return "its last line lies outside the log";
  const line = Buffer.alloc(end - start);
  await fh.read(line, 0, line.length, start);
  return lineHash(line) === s.last_hash ? null : `our line at byte ${start} is not the one it recorded`;
}

/** Logs what a scan found that an operator should know: our torn lines, another writer's unfinished line, lines claiming our source. */
export function reportScan(log: StoreLog, path: string, s: AuditScan): void {
  if (s.unparseableCount > 0) {
    log.warn(
      { path, count: s.unparseableCount, lines: s.unparseable },
      "skipped audit lines of ours that do not parse (interrupted writes?); the chain continues from the last good one",
    );
  }
  if (s.tailBytes > 0) {
    log.warn(
      { path, bytes: s.tailBytes },
      "the audit log ends with an incomplete line (an interrupted write); it is left as is and our next line starts on a new line",
    );
  }
  for (const u of s.unproven) {
    log.warn(
      { path, line: u.line, offset: u.offset, source: u.source, reason: u.reason },
      `${path} line ${u.line} (byte ${u.offset}) claims the source "${u.source}" without valid proof (${u.reason}): ` +
        "it is another writer's line, kept as history; it decides nothing",
    );
  }
  if (s.unprovenCount > s.unproven.length)
    log.warn(
      { path, count: s.unprovenCount },
      `${s.unprovenCount - s.unproven.length} more audit lines claim our source without valid proof`,
    );
  if (s.anchorMismatch !== null)
    log.warn(
      { path, line: s.anchorMismatch },
      `the audit key anchor at ${path} line ${s.anchorMismatch} vouches for other lines than the ones before it (they were edited); ` +
        "run `draft-review audit verify`",
    );
}
