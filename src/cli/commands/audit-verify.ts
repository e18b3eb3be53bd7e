import { access } from "node:fs/promises";
import { DataRefusalError } from "../../store/data-refusal.js";
import { readAuditKey } from "../../audit/audit-key.js";
import { CLI_AUDIT_SOURCE, DEFAULT_AUDIT_SOURCE, PROJECT_SOURCES } from "../../audit/sources.js";
import { verifyAudit, type AuditVerdict, type ChainVerdict, type SourceReport } from "../../audit/verify-chain.js";
import type { AuditKey } from "../../audit/line-proof.js";
import type { CliCommand } from "../command.js";
import { cliHarness } from "../harness.js";
import { CliFailure, EXIT } from "../io.js";
import { printJsonLine } from "../output.js";

const KNOWN = `${DEFAULT_AUDIT_SOURCE} (the daemon) and ${CLI_AUDIT_SOURCE} (the CLI)`;

/** One source's verdict in the form the command always printed: its first problem (a line claiming it without proof, a break), or its line count. */
function chainOf(v: AuditVerdict, r: SourceReport): ChainVerdict & { source: string } {
  const problems = v.unproven
    .filter((u) => u.source === r.source)
    .map((u) => ({ line: u.line, reason: `a line claims this source without valid proof: ${u.reason}` }));
  if (r.broken !== null) problems.push(r.broken);
  if (v.anchorMismatch?.source === r.source) problems.push(v.anchorMismatch);
  problems.sort((a, b) => a.line - b.line);
  const first = problems[0];
  return first === undefined ? { source: r.source, ok: true, lines: r.lines } : { source: r.source, ok: false, ...first };
}

function describeSource(v: AuditVerdict, r: SourceReport): string {
  const c = chainOf(v, r);
  if (!c.ok) return `  ${r.source}: BROKEN at line ${c.line}: ${c.reason}`;
  const anchored = v.anchorLine === null ? "" : `, before the key anchor at line ${v.anchorLine}`;
  const pre =
    r.preKey > 0
      ? ` (${r.preKey} from before the audit key${anchored}: history the key cannot prove; none of them made a decision surface or ended a halt)`
      : "";
  return `  ${r.source}: ${r.lines} line${r.lines === 1 ? "" : "s"}, chain intact${pre}`;
}

/** What the key and the anchor say about the whole log, before the sources: another log's key, lines changed before the anchor. */
function describeKey(v: AuditVerdict, keyPath: string): string[] {
  const out: string[] = [];
  if (v.foreignKey !== null)
    out.push(
      `  ${keyPath} proves none of the log's lines (line ${v.foreignKey.firstProof} and every other line with a proof was written ` +
        "with another key): it is not the key this log was written with, and the daemon refuses to start with it (exit 78). " +
        "Put back the audit_key that came with this HARNESS_DIR (from a backup), or move the log aside to start a new one with this key.",
    );
  if (v.anchorMismatch !== null)
    out.push(
      `  BROKEN before the key anchor (line ${v.anchorMismatch.line}): ${v.anchorMismatch.reason}. ` +
        "Those lines prove nothing, and none of them made a decision surface.",
    );
  return out;
}

/** The lines that claim our sources without being ours: each named (not with another log's key: counted), those after the anchor said to be foreign. */
function describeUnproven(v: AuditVerdict): string[] {
  if (v.foreignKey !== null && v.unprovenCount > 0)
    return [`  ${v.unprovenCount} line(s) claim our sources with a proof this key does not verify`];
  const out = v.unproven.map((u) => `  line ${u.line} (byte ${u.offset}) claims ${u.source} without valid proof: ${u.reason}`);
  if (v.unprovenCount > v.unproven.length) out.push(`  ... and ${v.unprovenCount - v.unproven.length} more such lines`);
  const after = v.unprovenAfterAnchor;
  const all = after === v.unprovenCount;
  const lead = after === 1 ? (all ? "It comes" : "1 of them comes") : all ? "All of them come" : `${after} of them come`;
  if (after > 0)
    out.push(
      `  ${lead} after the key anchor (line ${v.anchorLine}) without valid proof: written by another process in our name (foreign); ` +
        "the daemon takes no such line into account, and it decides nothing",
    );
  return out;
}

function describe(path: string, keyPath: string, v: AuditVerdict, keyNote: string | null): string {
  const head = v.ok
    ? "every chain is intact, and every line claiming our sources is ours"
    : "a chain is BROKEN, or a line claims our source without valid proof";
  const out = [`${path}: ${head}`];
  if (keyNote !== null) out.push(`  ${keyNote}`);
  out.push(...describeKey(v, keyPath));
  out.push(...v.sources.map((r) => describeSource(v, r)));
  out.push(...describeUnproven(v));
  for (const o of v.others) {
    const more = o.count > o.lines.length ? ", ..." : "";
    out.push(`  another writer's lines (${o.source}): ${o.count}, at line ${o.lines.join(", ")}${more}; not ours to vouch for`);
  }
  return `${out.join("\n")}\n`;
}

/** The audit key for checking proofs, and what to say about it; an unusable key stops the command. */
async function keyFor(path: string, verdictNeeds: () => Promise<number>): Promise<{ key: AuditKey | null; note: string | null }> {
  try {
    const read = await readAuditKey(path);
    if (read.kind === "key") return { key: read.key, note: null };
  } catch (err) {
    if (err instanceof DataRefusalError) throw new CliFailure(`cannot check the proofs: ${err.message}`);
    throw err;
  }
  const proven = await verdictNeeds();
  if (proven > 0)
    throw new CliFailure(
      `cannot check the proofs: ${path} is missing, but ${proven} line(s) of the audit log carry a proof made with it. Restore it from a backup.`,
    );
  return { key: null, note: `no audit key at ${path} yet (the daemon makes it at its first start): the chains were checked, proofs not` };
}

/**
 * `draft-review audit verify`: judges every line of swarm.jsonl that claims
 * this project's sources (the daemon's and the CLI's, or one `--source`) by
 * the rule the daemon uses: its proof must verify with the audit key (or,
 * before the key existed, it must continue its source's chain), and our
 * lines must form unbroken chains. Other writers' lines are listed as such.
 * Exit 1 when a line claims our source without valid proof, or a chain is
 * broken; 2 for an unknown `--source`.
 */
export const auditVerifyCommand: CliCommand = {
  name: "audit verify",
  summary: "check that every audit line claiming our sources is ours, and the chains are intact",
  usage: [
    "draft-review audit verify [--source SOURCE] [--json]",
    "",
    "Reads HARNESS_DIR/swarm.jsonl. Each line of this project's sources must carry a proof made",
    "with HARNESS_DIR/audit_key (lines written before the key existed must continue their chain up",
    "to the key's anchor line), and our lines must form unbroken chains (each prev_hash is the",
    "sha256 of the previous line of the same source, seq increases). A line that claims one of our",
    "sources without valid proof is named by its line number: another process wrote it, and the",
    "daemon never takes it into account. Other programs' lines are listed, never judged.",
    "Lines from before the key (up to its anchor line) are history: they are counted, and none of",
    "them made a decision surface. Said as such: lines before the anchor that are not the chain the",
    "anchor recorded (one inserted, edited or deleted there), lines after the anchor without proof",
    "(another process wrote them in our name), and a key that proves none of the log's lines (another",
    "log's key: the daemon refuses to start with it).",
    `The sources are ${KNOWN}.`,
    "",
    "  --source SOURCE   judge only this source's lines",
    "  --json            print the result as one JSON line",
  ].join("\n"),
  exitCodes: [
    "Exit codes:",
    "  0  every line claiming our sources is ours and every chain is intact",
    "  1  a line claims our source without valid proof, a chain is broken (the line is named), the",
    "     lines before the key anchor are not those it recorded, the key is another log's,",
    "     the audit log or its key is missing or unreadable, or a usage error",
    "  2  an unknown --source (the known ones are named)",
  ].join("\n"),
  options: { source: { type: "string" }, json: { type: "boolean" } },
  positionals: { min: 0, max: 0 },
  async run(args, io) {
    const asked = args.values.source;
    if (typeof asked === "string" && !PROJECT_SOURCES.includes(asked))
      throw new CliFailure(`unknown --source ${JSON.stringify(asked)}: the known sources are ${KNOWN}`, EXIT.refused);
    const sources = typeof asked === "string" ? [asked] : PROJECT_SOURCES;
    const { audit, auditKey } = cliHarness(io);
    await access(audit).catch(() => {
      throw new CliFailure(`there is no audit log at ${audit}: check HARNESS_DIR (the daemon creates the log when it first starts)`);
    });
    const verify = (key: AuditKey | null) =>
      verifyAudit(audit, key, sources).catch((err: unknown) => {
        throw new CliFailure(`cannot read ${audit} (${(err as Error).message}); run as the user the daemon runs as`);
      });
    const { key, note } = await keyFor(auditKey, async () => (await verify(null)).uncheckedProofs);
    const v = await verify(key);
    const chains = v.sources.map((r) => chainOf(v, r));
    if (args.values.json === true) printJsonLine(io, { path: audit, ...(note === null ? {} : { note }), ...v, chains });
    else io.stdout.write(describe(audit, auditKey, v, note));
    return v.ok ? EXIT.ok : EXIT.failed;
  },
};
