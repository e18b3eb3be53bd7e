import { access } from "node:fs/promises";
import { DEFAULT_AUDIT_SOURCE, verifyAuditChain, type ChainVerdict } from "../../audit/audit-log.js";
import type { CliCommand } from "../command.js";
import { cliHarness, CLI_AUDIT_SOURCE } from "../harness.js";
import { CliFailure, EXIT } from "../io.js";
import { printJsonLine } from "../output.js";

/** One source's chain and its verdict. */
type ChainReport = { readonly source: string } & ChainVerdict;

function describe(c: ChainReport): string {
  return c.ok
    ? `  ${c.source}: ${c.lines} line${c.lines === 1 ? "" : "s"}, chain intact`
    : `  ${c.source}: BROKEN at line ${c.line}: ${c.reason}`;
}

/**
 * `draft-review audit verify`: checks the hash chains of our lines in
 * swarm.jsonl (the daemon's and the CLI's, or one `--source`) and prints the
 * first broken link of each. Exit 1 if any chain is broken.
 */
export const auditVerifyCommand: CliCommand = {
  name: "audit verify",
  summary: "check the audit log's hash chains; print the first broken link",
  usage: [
    "draft-review audit verify [--source SOURCE] [--json]",
    "",
    "Reads HARNESS_DIR/swarm.jsonl and checks that our lines form unbroken chains",
    "(each prev_hash is the sha256 of the previous line of the same source, seq increases).",
    `By default both chains are checked: the daemon's (${DEFAULT_AUDIT_SOURCE}) and the`,
    `CLI's (${CLI_AUDIT_SOURCE}). Other programs' lines are skipped. A broken chain means a`,
    "line was edited, deleted or reordered; the line number is where it shows.",
    "",
    "  --source SOURCE   check only this source's chain",
    "  --json            print the result as one JSON line",
  ].join("\n"),
  exitCodes: [
    "Exit codes:",
    "  0  every chain is intact",
    "  1  a chain is broken (the first broken line is printed), the audit log is missing or",
    "     unreadable, or a usage error",
  ].join("\n"),
  options: { source: { type: "string" }, json: { type: "boolean" } },
  positionals: { min: 0, max: 0 },
  async run(args, io) {
    const { audit } = cliHarness(io);
    await access(audit).catch(() => {
      throw new CliFailure(`there is no audit log at ${audit}: check HARNESS_DIR (the daemon creates the log when it first starts)`);
    });
    const sources = typeof args.values.source === "string" ? [args.values.source] : [DEFAULT_AUDIT_SOURCE, CLI_AUDIT_SOURCE];
    const chains: ChainReport[] = [];
    for (const source of sources) {
      const verdict = await verifyAuditChain(audit, source).catch((err: unknown) => {
        throw new CliFailure(`cannot read ${audit} (${(err as Error).message}); run as the user the daemon runs as`);
      });
      chains.push({ source, ...verdict });
    }
    const ok = chains.every((c) => c.ok);
    if (args.values.json === true) printJsonLine(io, { path: audit, ok, chains });
    else io.stdout.write(`${audit}: ${ok ? "every chain is intact" : "a chain is BROKEN"}\n${chains.map(describe).join("\n")}\n`);
    return ok ? EXIT.ok : EXIT.failed;
  },
};
