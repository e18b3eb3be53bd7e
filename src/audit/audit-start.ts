import type { FileHandle } from "node:fs/promises";
import { DataRefusalError } from "../store/data-refusal.js";
import type { StoreLog } from "../store/jsonl-store.js";
import { AuditIndex } from "./audit-index.js";
import { createAuditKey, lostKeyRemedy, readAuditKey } from "./audit-key.js";
import { lineHash, scanHandle, siblingSource, type AuditScan } from "./audit-scan.js";
import type { AuditEntryOf } from "./audit-schema.js";
import { checkpointShowsKey, loadCheckpoint } from "./checkpoint.js";
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
 * makes the key when this program may and there is none (see startWithoutKey).
 */
export async function startAudit(fh: FileHandle, opts: AuditStartOptions): Promise<AuditStart> {
  const read = opts.key ? await readAuditKey(opts.key.path) : null;
  if (opts.key && read?.kind === "missing") return startWithoutKey(fh, opts, opts.key, read.empty);
  const key = read?.kind === "key" ? read.key : null;
  if (read?.kind === "key") opts.key?.onSecret?.(read.secret);
  const index = await startingIndex(fh, opts, key);
  const fromCheckpoint = index.scannedTo > 0 || index.lastSeq > 0;
  const scan = await scanHandle(index, fh, { key, own: opts.source });
  if (key !== null && opts.key?.create === true) refuseForeignKey(opts, opts.key.path, scan, fromCheckpoint);
  // A key without its anchor (made by a start that stopped before writing it, or the log was replaced).
  const anchorOwed = opts.key?.create === true && key !== null && index.anchor === null;
  return { key, index, scan, fromCheckpoint, anchorOwed };
}

/**
 * Refuses a key that proves none of its log's own lines (B4 of issue 32): the log carries proofs, yet not one
 * verifies, not its key anchor, and no checkpoint was proven with it. That is another daemon's key (copied over,
 * or swapped with its HARNESS_DIR): with it the daemon would write a second anchor and disown its own history,
 * halts included. Refused like a missing key (78, naming the file), never started on.
 */
function refuseForeignKey(opts: AuditStartOptions, keyPath: string, scan: AuditScan, fromCheckpoint: boolean): void {
  if (fromCheckpoint || scan.firstProof === null || scan.validProofs > 0) return;
  throw new DataRefusalError(
    keyPath,
    null,
    `it proves none of ${opts.path}'s lines (line ${scan.firstProof} and every other line with a proof was written with another key)`,
    "It is not the key this log was written with. Put back the audit_key that came with this HARNESS_DIR (from a backup), " +
      "or move the log aside to start a new one with this key.",
  );
}

/**
 * A start without the key (no file, or an empty one). A new key must not
 * disown lines proven with a lost one; but the shared log alone never shows
 * that a key existed, since any writer can append a line ending in a `mac`.
 * Only HARNESS_DIR, the daemon's alone, can: the key file there but empty, or
 * an audit index checkpoint written with the key (keyEvidence). With such
 * evidence, a log holding lines with a proof refuses the start (78, naming
 * the key file). Without it, the key is made first and the log read with it:
 * a line that carries a proof is then another writer's (its proof does not
 * verify): warned, naming its line, and it decides nothing. The whole log is
 * read (no checkpoint can be checked). The CLI never makes the key: it reads
 * the log without one and warns that its own lines will not count.
 */
async function startWithoutKey(fh: FileHandle, opts: AuditStartOptions, keyOpt: AuditKeyOption, empty: boolean): Promise<AuditStart> {
  const index = new AuditIndex();
  if (!keyOpt.create) {
    const scan = await scanHandle(index, fh, { key: null, own: opts.source });
    if (scan.firstProof !== null)
      opts.log.warn(
        { path: keyOpt.path },
        "the audit key is missing: the lines written now carry no proof, and the daemon will not count them (restore the key)",
      );
    return { key: null, index, scan, fromCheckpoint: false, anchorOwed: false };
  }
  const evidence = await keyEvidence(opts, keyOpt, empty);
  if (evidence !== null) {
    const scan = await scanHandle(index, fh, { key: null, own: opts.source });
    if (scan.firstProof !== null)
      throw new DataRefusalError(
        keyOpt.path,
        null,
        `it is missing, but ${opts.path} line ${scan.firstProof} and others were proven with it (${evidence}), and a new key would disown them`,
        lostKeyRemedy(keyOpt.path),
      );
    // No line to disown (the log was moved aside): a new key, as at a first start.
    return { key: await makeKey(keyOpt, empty, opts.log), index, scan, fromCheckpoint: false, anchorOwed: index.anchor === null };
  }
  const key = await makeKey(keyOpt, empty, opts.log);
  const scan = await scanHandle(index, fh, { key, own: opts.source });
  if (scan.firstProof !== null)
    opts.log.warn(
      { path: opts.path, line: scan.firstProof },
      `${opts.path} line ${scan.firstProof} carries a proof, but nothing in HARNESS_DIR shows that an audit key existed here ` +
        "(no key file, no audit index checkpoint written with one): the key was made now, and such lines are another writer's; they decide nothing",
    );
  return { key, index, scan, fromCheckpoint: false, anchorOwed: index.anchor === null };
}

/** What in HARNESS_DIR shows that an audit key existed here (see startWithoutKey), or null. */
async function keyEvidence(opts: AuditStartOptions, keyOpt: AuditKeyOption, empty: boolean): Promise<string | null> {
  if (empty) return `${keyOpt.path} is there, but empty`;
  return opts.checkpointPath === undefined ? null : checkpointShowsKey(opts.checkpointPath);
}

/** Makes the key (replacing an empty file), hands its text to the logger's secrets, and says so. */
async function makeKey(keyOpt: AuditKeyOption, replaceEmpty: boolean, log: StoreLog): Promise<AuditKey> {
  const made = await createAuditKey(keyOpt.path, replaceEmpty);
  keyOpt.onSecret?.(made.secret);
  log.info({ path: keyOpt.path }, "made the audit key (mode 0600): from now on only lines proven with it decide");
  return made.key;
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
  // A checkpoint proven with the key covers more than the log now holds: the log lost lines the daemon wrote (D10).
  if (read.ok && (await fh.stat()).size < read.snapshot.scanned_to)
    opts.log.warn(
      { ...fields, lost_after_seq: read.snapshot.last_seq },
      `${opts.path} was cut back: the daemon's own checkpoint says it held ${read.snapshot.scanned_to} bytes, up to line seq ${read.snapshot.last_seq}, ` +
        "and it holds less now. What the lost lines recorded (decisions, halts) is gone from it: restore swarm.jsonl from a backup, " +
        "then restart; `draft-review audit verify` shows what is there",
    );
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
