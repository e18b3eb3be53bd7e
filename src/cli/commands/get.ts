import { callApi } from "../api-client.js";
import { apiTarget, clientToken } from "../api-target.js";
import type { CliCommand } from "../command.js";
import { EXIT } from "../io.js";
import { explainStatus, printJsonLine, printProblem } from "../output.js";

/** `draft-review get <draft_id>`: the draft's current record, as one JSON line (`GET /drafts/<id>`). */
export const getCommand: CliCommand = {
  name: "get",
  summary: "print one draft's current record",
  usage: ["draft-review get <draft_id>", "", "Prints the draft's current record as one JSON line; exit 2 if there is no such draft."].join("\n"),
  options: {},
  positionals: { min: 1, max: 1 },
  async run(args, io) {
    const target = apiTarget(io.env);
    const token = await clientToken(io.env, io.cwd);
    const answer = await callApi(target, token, { method: "GET", path: `/drafts/${encodeURIComponent(args.positionals[0] ?? "")}` });
    printJsonLine(io, answer.body);
    if (answer.status === 200) return EXIT.ok;
    if (answer.status === 404) return EXIT.refused;
    printProblem(io, explainStatus(answer.status, target.url));
    return EXIT.failed;
  },
};
