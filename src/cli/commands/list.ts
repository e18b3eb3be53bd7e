import type { DraftRecord } from "../../drafts/record.js";
import { STATUSES } from "../../drafts/status.js";
import { apiTarget } from "../api-target.js";
import { askDaemonOrReadStore } from "../store-fallback.js";
import type { CliCommand } from "../command.js";
import { draftLines } from "../draft-text.js";
import { EXIT } from "../io.js";
import { explainStatus, printJsonLine, printProblem } from "../output.js";

/** `draft-review list [--status S]`: the drafts, one line each, or `{"drafts":[...]}` with --json (`GET /drafts?status=S`). */
export const listCommand: CliCommand = {
  name: "list",
  summary: "list drafts, optionally only those in one status",
  usage: [
    "draft-review list [--status STATUS] [--json]",
    "",
    "Asks the running daemon for every draft, or those in STATUS, and prints one line",
    "each: id, status, role, destination, age, the start of the text. When the daemon",
    "is not running, reads HARNESS_DIR's store (read-only) and says so on stderr.",
    "Lists the store: drafts awaiting a decision and final ones younger than",
    "DRAFT_RETENTION. Older final drafts are in archive/: `draft-review get <id>` finds them.",
    `STATUS is one of: ${STATUSES.join(", ")}.`,
    "",
    "  -s, --status STATUS   only drafts in this status (an unknown one exits 2)",
    '  --json                print {"drafts":[...]} (the whole records) as one JSON line',
  ].join("\n"),
  options: { status: { type: "string", short: "s" }, json: { type: "boolean" } },
  positionals: { min: 0, max: 0 },
  async run(args, io) {
    const status = args.values.status;
    const query = typeof status === "string" ? `?status=${encodeURIComponent(status)}` : "";
    const json = args.values.json === true;
    if (typeof status === "string" && !(STATUSES as readonly string[]).includes(status)) {
      const error = `status: unknown status ${JSON.stringify(status)}; use one of ${STATUSES.join(", ")}`;
      if (json) printJsonLine(io, { error, field: "status" });
      else printProblem(io, error);
      return EXIT.refused;
    }
    const answer = await askDaemonOrReadStore(io, `/drafts${query}`);
    if (answer.kind === "store") {
      const drafts = answer.drafts.filter((d) => status === undefined || d.status === status);
      if (json) printJsonLine(io, { drafts });
      else io.stdout.write(`${draftLines(drafts, Date.now())}\n`);
      return EXIT.ok;
    }
    if (json) printJsonLine(io, answer.body);
    if (answer.status === 200) {
      if (!json) io.stdout.write(`${draftLines((answer.body as { drafts: DraftRecord[] }).drafts, Date.now())}\n`);
      return EXIT.ok;
    }
    if (answer.status === 400) {
      if (!json) printProblem(io, (answer.body as { error?: string }).error ?? "refused");
      return EXIT.refused;
    }
    printProblem(io, explainStatus(answer.status, apiTarget(io.env).url));
    return EXIT.failed;
  },
};
