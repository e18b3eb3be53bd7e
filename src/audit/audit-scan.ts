import { createHash } from "node:crypto";
import type { FileHandle } from "node:fs/promises";
import { readLines } from "../store/line-reader.js";
import type { AuditIndex } from "./audit-index.js";
import { parseAuditLine, type ParsedAuditLine } from "./audit-schema.js";
import { lineProof, type AuditKey, type ProofState } from "./line-proof.js";
import { CLI_AUDIT_SOURCE, DEFAULT_AUDIT_SOURCE } from "./sources.js";

/**
 * Reads our lines back from the shared audit log into the index, from a
 * given offset (0, or where the checkpoint ends). Only lines this project
 * wrote reach the index: a line of our sources (the daemon's and the CLI's)
 * whose proof verifies, or, before the key anchor (a log written before the
 * key existed), one that continues that source's chain. Any other line
 * naming our sources is another writer's: it is reported (line number and
 * byte offset) and never read as ours, whatever its `seq` or `prev_hash`.
 * Other writers' lines and lines that do not parse are skipped, never touched.
 */

/** A line that claims one of our sources without valid proof. */
export interface UnprovenLine {
  /** 1-based line number in the file (when the index knows the lines before the scan; else from where it began). */
  readonly line: number;
  /** Byte offset of the line. */
  readonly offset: number;
  readonly source: string;
  readonly reason: string;
}

/** What a scan found besides what it put in the index. */
export interface AuditScan {
  /** Lines naming our source that do not parse (1-based line numbers from where the scan began, the first 20). */
  unparseable: number[];
  unparseableCount: number;
  /** Lines claiming our sources without valid proof (the first 20). */
  unproven: UnprovenLine[];
  unprovenCount: number;
  /** The line number of the first line of ours with a proof, if any (a scan without the key cannot check it). */
  firstProof: number | null;
  /** How many lines of our sources carry a proof the key verifies (none, with a key that carries proofs: another daemon's key). */
  validProofs: number;
  /** The key anchor's line number, when what it vouches for is not what the lines before it say (they were edited). */
  anchorMismatch: number | null;
  /** Bytes after the file's last newline (someone's interrupted write); our next line must start on a new line. */
  tailBytes: number;
  /** Bytes read. */
  bytesRead: number;
  /** The file's size when read. */
  size: number;
}

/** Whose lines a scan reads as ours: `own` continues the index's chain; `sibling` (the other project source) adds its halts. */
export interface ScanTrust {
  /** The audit key; null: no key (yet), so only the chain rule applies. */
  readonly key: AuditKey | null;
  readonly own: string;
}

/** The other project source: the CLI's for the daemon, the daemon's for anyone else. */
export function siblingSource(own: string): string {
  return own === DEFAULT_AUDIT_SOURCE ? CLI_AUDIT_SOURCE : DEFAULT_AUDIT_SOURCE;
}

/** The `"source":"<source>"` bytes that every line of ours contains. */
export function sourceNeedle(source: string): Buffer {
  return Buffer.from(`"source":${JSON.stringify(source)}`);
}

/** sha256 hex of a line's exact text (without its newline). */
export function lineHash(line: string | Uint8Array): string {
  return createHash("sha256").update(line).digest("hex");
}

function emptyScan(): AuditScan {
  return {
    unparseable: [],
    unparseableCount: 0,
    unproven: [],
    unprovenCount: 0,
    firstProof: null,
    validProofs: 0,
    anchorMismatch: null,
    tailBytes: 0,
    bytesRead: 0,
    size: 0,
  };
}

/** Reads the open log from `index.scannedTo` on, adding our lines to `index`; says what else it found. */
export async function scanHandle(index: AuditIndex, fh: FileHandle, trust: ScanTrust): Promise<AuditScan> {
  const scan = emptyScan();
  const sibling = siblingSource(trust.own);
  const needles: Array<[string, Buffer]> = [
    [trust.own, sourceNeedle(trust.own)],
    [sibling, sourceNeedle(sibling)],
  ];
  const from = index.scannedTo;
  const linesBefore = index.linesBefore;
  const read = await readLines(
    fh,
    (buf, start, end, lineNo, offset) => {
      const line = buf.subarray(start, end);
      for (const [source, needle] of needles) {
        if (line.indexOf(needle) < 0) continue;
        const parsed = parseAuditLine(buf.toString("utf8", start, end), source);
        if (!parsed) {
          if (source === trust.own && scan.unparseableCount++ < 20) scan.unparseable.push(lineNo);
          continue;
        }
        const { reason, proven } = trustLine(index, trust, source, parsed, line, scan, linesBefore + lineNo);
        if (reason === null) takeLine(index, { own: trust.own, source, proven }, parsed, line, offset, scan, linesBefore + lineNo);
        else if (scan.unprovenCount++ < 20) scan.unproven.push({ line: linesBefore + lineNo, offset, source, reason });
        return;
      }
    },
    { startOffset: from, chunkBytes: 1 << 20 },
  );
  scan.tailBytes = read.tailBytes;
  scan.size = read.size;
  scan.bytesRead = read.size - from;
  index.scannedTo = read.size - read.tailBytes;
  index.linesBefore = linesBefore + read.lines;
  return scan;
}

/** Why a line of `source` is not ours, or null when it is (see the file comment). */
function trustLine(
  index: AuditIndex,
  trust: ScanTrust,
  source: string,
  parsed: ParsedAuditLine,
  line: Buffer,
  scan: AuditScan,
  lineNo: number,
): { readonly reason: string | null; readonly proven: boolean } {
  const head = source === trust.own ? { seq: index.lastSeq, hash: index.lastHash } : index.sibling;
  const proof = lineProof(trust.key, line, 0, line.length);
  if (proof !== "none" && scan.firstProof === null) scan.firstProof = lineNo;
  if (proof === "valid") scan.validProofs++;
  // Without a key nothing is proven, and the chain is all there is (the CLI before the daemon's first start).
  const proven = proof === "valid" || trust.key === null;
  const chainOnly = trust.key === null || (proof === "none" && index.anchor === null);
  // Judged by the chain alone, a line at or below the head is one the index already has (our own, read again
  // after its append) or a stale copy: either way it adds nothing (index.add skips it), so it is not reported.
  if (chainOnly && head.seq > 0 && parsed.envelope.seq <= head.seq) return { reason: null, proven };
  return { reason: whyNotOurs(proof, trust.key !== null, index.anchor !== null, head, parsed.envelope), proven };
}

/**
 * The one rule for a line that names one of our sources: ours when its proof verifies; without the
 * key, or before the key anchor, ours when it continues that source's chain (`head`: its last line of
 * ours so far). Returns why it is not ours, or null.
 */
export function whyNotOurs(
  proof: ProofState,
  haveKey: boolean,
  anchored: boolean,
  head: { readonly seq: number; readonly hash: string },
  envelope: { readonly seq: number; readonly prev_hash: string },
): string | null {
  if (proof === "valid") return null;
  if (proof === "invalid" && haveKey) return "its proof does not verify (forged, or edited)";
  if (haveKey && anchored) return "it has no proof, and it comes after the audit key was made";
  if (envelope.prev_hash !== head.hash) {
    return head.seq === 0
      ? `it has no proof, and as the first line of its source its prev_hash is "${envelope.prev_hash.slice(0, 16)}...", not "": earlier lines were deleted, or it is not ours`
      : "it has no proof, and its prev_hash is not the sha256 of our previous line: a line before it was edited or deleted, or it is not ours";
  }
  if (head.seq > 0 && envelope.seq <= head.seq)
    return `it has no proof, and its seq ${envelope.seq} does not increase (previous ${head.seq}): lines were reordered or copied`;
  return null;
}

/** Adds a line that is ours to the index (and checks what a key anchor vouches for). */
function takeLine(
  index: AuditIndex,
  from: { readonly own: string; readonly source: string; readonly proven: boolean },
  parsed: ParsedAuditLine,
  line: Buffer,
  offset: number,
  scan: AuditScan,
  lineNo: number,
): void {
  const { own, source, proven } = from;
  const { envelope, entry } = parsed;
  if (entry?.kind === "key_anchor" && proven && index.anchor === null) {
    const heads = new Map(entry.chains.map((c) => [c.source, c]));
    const ownHead = source === own ? { seq: index.lastSeq, hash: index.lastHash } : index.sibling;
    const otherHead = source === own ? index.sibling : { seq: index.lastSeq, hash: index.lastHash };
    const mine = heads.get(source);
    const theirs = heads.get(source === own ? siblingSource(own) : own);
    if (mine?.hash !== ownHead.hash || (theirs !== undefined && theirs.hash !== otherHead.hash)) scan.anchorMismatch = lineNo;
    // The anchor is never skipped (a line before it may claim its seq): from here on, only proven lines are ours.
    index.anchor = { offset, seq: envelope.seq };
  }
  if (source === own) {
    index.add(envelope, entry, lineHash(line), offset, proven);
    if (envelope.seq === index.lastSeq) index.head = [offset, offset + line.length];
  } else {
    index.addSibling(envelope, entry, lineHash(line), offset, proven);
  }
}
