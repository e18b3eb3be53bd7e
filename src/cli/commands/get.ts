import type { DraftRecord } from "../../drafts/record.js";
import { apiTarget } from "../api-target.js";
import { askDaemonOrReadStore } from "../store-fallback.js";
import { dirname, join } from "node:path";
import { draftRecordSchema } from "../../drafts/record.js";
import { findArchivedReadOnly } from "../../store/archive.js";
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
    "a line, the text last; exit 2 if there is no such draft. When the daemon is not",
    "running, reads HARNESS_DIR's store (read-only) and says so on stderr.",
    "",
    '  --json   print the record as one JSON line (an unknown id: {"error":...})',
  ].join("\n"),
  options: { json: { type: "boolean" } },
  positionals: { min: 1, max: 1 },
  async run(args, io) {
    const id = args.positionals[0] ?? "";
    const json = args.values.json === true;
    const answer = await askDaemonOrReadStore(io, `/drafts/${encodeURIComponent(id)}`);
    if (answer.kind === "store") {
      // An old final draft may have moved to archive/ (DRAFT_RETENTION): read it there, read-only.
      const draft =
        answer.drafts.find((d) => d.draft_id === id) ??
        (await findArchivedReadOnly(join(dirname(answer.path), "archive"), id, (v) => draftRecordSchema.parse(v)));
      if (draft) {
        io.stdout.write(json ? `${JSON.stringify(draft)}\n` : `${draftDetails(draft, Date.now())}\n`);
        return EXIT.ok;
      }
      const error = `no draft with id ${JSON.stringify(id)} in ${answer.path}; \`draft-review list\` lists the drafts there are`;
      if (json) printJsonLine(io, { error });
      else printProblem(io, error);
      return EXIT.refused;
    }
    if (answer.status === 200) {
      if (json) printJsonLine(io, answer.body);
      else io.stdout.write(`${draftDetails(answer.body as DraftRecord, Date.now())}\n`);
      return EXIT.ok;
    }
    if (json) printJsonLine(io, answer.body);
    if (answer.status === 404) {
      // The API's message suggests its own endpoint; a person at the terminal gets the command instead.
      if (!json) printProblem(io, `no draft with id ${JSON.stringify(id)}; \`draft-review list\` lists the drafts there are`);
      return EXIT.refused;
    }
    printProblem(io, explainStatus(answer.status, apiTarget(io.env).url, answer.body));
    return EXIT.failed;
  },
};
