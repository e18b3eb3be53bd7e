import { STATUSES } from "../../drafts/status.js";
import { callApi } from "../api-client.js";
import { apiTarget, clientToken } from "../api-target.js";
import type { CliCommand } from "../command.js";
import { EXIT } from "../io.js";
import { explainStatus, printJsonLine, printProblem } from "../output.js";

/** `draft-review list [--status S]`: `{"drafts":[...]}` as one JSON line (`GET /drafts?status=S`). */
export const listCommand: CliCommand = {
  name: "list",
  summary: "list drafts, optionally only those in one status",
  usage: [
    "draft-review list [--status STATUS]",
    "",
    'Prints {"drafts":[...]} as one JSON line: every draft, or those in STATUS.',
    `STATUS is one of: ${STATUSES.join(", ")}.`,
    "",
    "  -s, --status STATUS   only drafts in this status (an unknown one exits 2)",
  ].join("\n"),
  options: { status: { type: "string", short: "s" } },
  positionals: { min: 0, max: 0 },
  async run(args, io) {
    const target = apiTarget(io.env);
    const token = await clientToken(io.env, io.cwd);
    const status = args.values.status;
    const query = typeof status === "string" ? `?status=${encodeURIComponent(status)}` : "";
    const answer = await callApi(target, token, { method: "GET", path: `/drafts${query}` });
    printJsonLine(io, answer.body);
    if (answer.status === 200) return EXIT.ok;
    if (answer.status === 400) return EXIT.refused;
    printProblem(io, explainStatus(answer.status, target.url));
    return EXIT.failed;
  },
};
