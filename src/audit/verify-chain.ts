import { open } from "node:fs/promises";
import { readLines } from "../store/line-reader.js";
import { lineHash, sourceNeedle, whyNotOurs } from "./audit-scan.js";
import { parseAuditLine } from "./audit-schema.js";
import { lineProof, type AuditKey } from "./line-proof.js";
import { DEFAULT_AUDIT_SOURCE, PROJECT_SOURCES } from "./sources.js";

export { DEFAULT_AUDIT_SOURCE } from "./sources.js";

/** The result of verifyAuditChain: one source's chain, or its first problem. */
export type ChainVerdict = { ok: true; lines: number } | { ok: false; line: number; reason: string };

/** One of our sources as verifyAudit found it. */
export interface SourceReport {
  readonly source: string;
  /** Its lines that are ours (proven, or from before the key and on its chain). */
  readonly lines: number;
  /** Of those, the lines written before the audit key existed. */
  readonly preKey: number;
  /** The first place its chain breaks (a line of ours edited, deleted or reordered), if it does. */
  readonly broken: { readonly line: number; readonly reason: string } | null;
}

/** A line that claims one of our sources without being ours. */
export interface ClaimedLine {
  readonly line: number;
  readonly offset: number;
  readonly source: string;
  readonly reason: string;
}

/** Another writer's lines, by their `source` ("(none)": not JSON, or no source). */
export interface OtherWriter {
  readonly source: string;
  readonly count: number;
  /** Their first line numbers (at most 10). */
  readonly lines: number[];
}

/** What `verifyAudit` found in the whole log. */
export interface AuditVerdict {
  /** True when every line claiming our sources is ours and every chain is intact. */
  readonly ok: boolean;
  readonly sources: SourceReport[];
  /** Lines claiming our sources without valid proof (the first 100), and how many in all. */
  readonly unproven: ClaimedLine[];
  readonly unprovenCount: number;
  readonly others: OtherWriter[];
  /** The line of the key anchor, if the log has one. */
  readonly anchorLine: number | null;
  /**
   * The lines of our sources before the key anchor are not the chain it recorded (a line inserted, edited or
   * deleted there since the key was made): where, and why. Null when they are, or there is no anchor.
   */
  readonly anchorMismatch: { readonly line: number; readonly source: string; readonly reason: string } | null;
  /** Of `unprovenCount`, the lines after the key anchor: another writer's lines in our name (foreign). */
  readonly unprovenAfterAnchor: number;
  /** The key given proves none of the log's lines that carry a proof: the first of them. Null when it proves one, or none carries any. */
  readonly foreignKey: { readonly firstProof: number } | null;
  /** Lines carrying a proof that could not be checked (no key given). */
  readonly uncheckedProofs: number;
}

interface SourceState {
  seq: number;
  hash: string;
  lines: number;
  preKey: number;
  broken: { line: number; reason: string } | null;
}

/**
 * Reads the whole log and judges every line that names one of `sources` by
 * the rule the daemon uses (whyNotOurs): proven with `key` (or, before the key
 * anchor, on its source's chain). The lines that are ours must also form
 * unbroken chains: each `prev_hash` is the sha256 of the previous line of
 * that source ("" for the first) and `seq` increases. Other writers' lines
 * are counted by source, never judged. Without a key, proofs cannot be
 * checked: every line is judged by the chain alone.
 */
export async function verifyAudit(path: string, key: AuditKey | null, sources: readonly string[] = PROJECT_SOURCES): Promise<AuditVerdict> {
  const judge = new LogJudge(key, sources);
  const fh = await open(path, "r");
  try {
    await readLines(fh, (buf, start, end, lineNo, offset) => judge.line(buf, start, end, lineNo, offset));
  } finally {
    await fh.close();
  }
  return judge.verdict();
}

/** What verifyAudit knows as it reads the log line by line: each source's chain, the lines not ours, the anchor. */
class LogJudge {
  /** Every project source is judged (the key anchor is the daemon's line); only `sources` are reported. */
  private readonly judged: string[];
  private readonly state: Map<string, SourceState>;
  private readonly needles: (readonly [string, Buffer])[];
  private readonly unproven: ClaimedLine[] = [];
  private unprovenCount = 0;
  private readonly others = new Map<string, { count: number; lines: number[] }>();
  private anchorLine: number | null = null;
  private anchorMismatch: { line: number; source: string; reason: string } | null = null;
  private unprovenAfterAnchor = 0;
  private uncheckedProofs = 0;
  private readonly proofs = { first: null as number | null, valid: 0 };

  constructor(
    private readonly key: AuditKey | null,
    private readonly sources: readonly string[],
  ) {
    this.judged = [...new Set([...PROJECT_SOURCES, ...sources])];
    this.state = new Map<string, SourceState>(this.judged.map((s) => [s, { seq: 0, hash: "", lines: 0, preKey: 0, broken: null }]));
    this.needles = this.judged.map((s) => [s, sourceNeedle(s)] as const);
  }

  /** One line of the log: another writer's is counted; one naming our source is judged, then taken into its chain. */
  line(buf: Buffer, start: number, end: number, lineNo: number, offset: number): void {
    const line = buf.subarray(start, end);
    const text = buf.toString("utf8", start, end);
    const match = this.needles.find(([s, needle]) => line.indexOf(needle) >= 0 && parseAuditLine(text, s) !== null);
    if (match === undefined) {
      if (end > start) noteOther(this.others, text, lineNo, this.judged);
      return;
    }
    const [source] = match;
    const parsed = parseAuditLine(text, source)!;
    const s = this.state.get(source)!;
    const { key } = this;
    const proof = lineProof(key, line, 0, line.length);
    if (proof !== "none" && key === null) this.uncheckedProofs++;
    if (proof !== "none") this.proofs.first ??= lineNo;
    if (proof === "valid") this.proofs.valid++;
    const reason = whyNotOurs(proof, key !== null, this.anchorLine !== null, s, parsed.envelope);
    if (reason !== null) {
      this.notOurs(source, lineNo, offset, reason);
      return;
    }
    if (parsed.entry?.kind === "key_anchor" && this.anchorLine === null) {
      this.anchorLine = lineNo;
      this.anchorMismatch = mismatchAt(parsed.entry.chains, this.state, lineNo, this.sources);
    }
    if (s.broken === null) s.broken = chainBreak(parsed.envelope, s, lineNo);
    s.seq = parsed.envelope.seq;
    s.hash = lineHash(line);
    s.lines++;
    if (proof === "none" || key === null) s.preKey++;
  }

  /** A line that names a source of ours but is not ours: reported (the first 100) when its source is. */
  private notOurs(source: string, lineNo: number, offset: number, reason: string): void {
    if (!this.sources.includes(source)) return;
    if (this.anchorLine !== null) this.unprovenAfterAnchor++;
    if (this.unprovenCount++ < 100) this.unproven.push({ line: lineNo, offset, source, reason });
  }

  /** The verdict once every line was read. */
  verdict(): AuditVerdict {
    const reports = this.sources.map((source) => {
      const { lines, preKey, broken } = this.state.get(source)!;
      return { source, lines, preKey, broken };
    });
    const ok = this.unprovenCount === 0 && this.anchorMismatch === null && reports.every((r) => r.broken === null);
    const otherList = [...this.others].map(([source, o]) => ({ source, count: o.count, lines: o.lines }));
    const { proofs } = this;
    const foreignKey = this.key !== null && proofs.first !== null && proofs.valid === 0 ? { firstProof: proofs.first } : null;
    return {
      ok,
      sources: reports,
      unproven: this.unproven,
      unprovenCount: this.unprovenCount,
      others: otherList,
      anchorLine: this.anchorLine,
      anchorMismatch: this.anchorMismatch,
      unprovenAfterAnchor: this.unprovenAfterAnchor,
      foreignKey,
      uncheckedProofs: this.uncheckedProofs,
    };
  }
}

/**
 * The key anchor at `lineNo` records where each of our chains stood when the key was made. When the lines
 * before it end elsewhere, one was inserted, edited or deleted since: said once, and each chain goes on from
 * the head the anchor recorded (so the anchor itself, and what follows it, are judged as written).
 */
function mismatchAt(
  chains: readonly { readonly source: string; readonly seq: number; readonly hash: string }[],
  state: Map<string, SourceState>,
  lineNo: number,
  asked: readonly string[],
): { line: number; source: string; reason: string } | null {
  let mismatch: { line: number; source: string; reason: string } | null = null;
  for (const head of chains) {
    const s = state.get(head.source);
    if (s === undefined || (s.seq === head.seq && s.hash === head.hash)) continue;
    if (asked.includes(head.source))
      mismatch ??= {
        line: lineNo,
        source: head.source,
        reason:
          `the key anchor records ${head.source}'s lines before it as ending at seq ${head.seq}, but they end at seq ${s.seq}: ` +
          "a line before the anchor was inserted, edited or deleted since the key was made",
      };
    s.seq = head.seq;
    s.hash = head.hash;
  }
  return mismatch;
}

/** Counts a line of another writer (a line of one of our sources not asked about counts as such too). */
function noteOther(others: Map<string, { count: number; lines: number[] }>, text: string, lineNo: number, asked: readonly string[]): void {
  let source = "(none)";
  try {
    const v = JSON.parse(text) as { source?: unknown };
    if (typeof v.source === "string") source = v.source;
  } catch {
    // not JSON: an interrupted write, or another program's format
  }
  if (asked.includes(source)) return; // ours, torn or not in our format: not another writer's
  const o = others.get(source) ?? { count: 0, lines: [] };
  o.count++;
  if (o.lines.length < 10) o.lines.push(lineNo);
  others.set(source, o);
}

function chainBreak(fields: { seq: number; prev_hash: string }, s: SourceState, lineNo: number): { line: number; reason: string } | null {
  if (fields.prev_hash !== s.hash) {
    const reason =
      s.lines === 0
        ? `the first line of this source has prev_hash "${fields.prev_hash.slice(0, 16)}...", not "": earlier lines were deleted`
        : "prev_hash is not the sha256 of the previous line of this source: a line before it was edited or deleted";
    return { line: lineNo, reason };
  }
  if (s.lines > 0 && fields.seq <= s.seq)
    return { line: lineNo, reason: `seq ${fields.seq} does not increase (previous ${s.seq}): lines were reordered or copied` };
  return null;
}

/**
 * One source's verdict, as before the audit key: its first problem (a line
 * that claims it without being ours, or a break in its chain), or how many
 * lines of it are ours. See verifyAudit.
 */
export async function verifyAuditChain(
  path: string,
  source: string = DEFAULT_AUDIT_SOURCE,
  key: AuditKey | null = null,
): Promise<ChainVerdict> {
  const v = await verifyAudit(path, key, [source]);
  const report = v.sources[0]!;
  const first = [...v.unproven.map((u) => ({ line: u.line, reason: `a line claims this source without valid proof: ${u.reason}` }))];
  if (report.broken !== null) first.push(report.broken);
  if (v.anchorMismatch !== null) first.push(v.anchorMismatch);
  first.sort((a, b) => a.line - b.line);
  return first.length > 0 ? { ok: false, line: first[0]!.line, reason: first[0]!.reason } : { ok: true, lines: report.lines };
}
