import type { DraftRecord } from "../../drafts/record.js";
import { callApi } from "../api-client.js";
import { apiTarget, clientToken } from "../api-target.js";
import type { CliCommand } from "../command.js";
import { draftDetails } from "../draft-text.js";
import { EXIT } from "../io.js";
import { explainStatus, printJsonLine, printProblem } from "../output.js";

/** `draft-review get <draft_id>`: the draft's current record (`GET /drafts/<id>`), for a person or as JSON. */
export const getCommand: CliCommand = {
  name: "get",
  summary: "print one draft's current record",
  usage: [
    "draft-review get <draft_id> [--json]",
    "",
    "Asks the running daemon for the draft's current record and prints it, one field",
    "a line, the text last; exit 2 if there is no such draft.",
    "",
    "  --json   print the record as one JSON line (an unknown id: {\"error\":...})",
  ].join("\n"),
  options: { json: { type: "boolean" } },
  positionals: { min: 1, max: 1 },
  async run(args, io) {
    const target = apiTarget(io.env);
    const token = await clientToken(io.env, io.cwd);
    const answer = await callApi(target, token, { method: "GET", path: `/drafts/${encodeURIComponent(args.positionals[0] ?? "")}` });
    const json = args.values.json === true;
    if (answer.status === 200) {
      if (json) printJsonLine(io, answer.body);
      else io.stdout.write(`${draftDetails(answer.body as DraftRecord)}\n`);
      return EXIT.ok;
    }
    if (json) printJsonLine(io, answer.body);
    if (answer.status === 404) {
      if (!json) printProblem(io, (answer.body as { error?: string }).error ?? "no such draft");
      return EXIT.refused;
    }
    printProblem(io, explainStatus(answer.status, target.url));
    return EXIT.failed;
  },
};
