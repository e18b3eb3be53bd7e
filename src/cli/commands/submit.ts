import { callApi } from "../api-client.js";
import { apiTarget, clientToken } from "../api-target.js";
import type { CliCommand } from "../command.js";
import { CliFailure, EXIT, type CliIo } from "../io.js";
import { explainStatus, printJsonLine, printProblem } from "../output.js";
import { PayloadRefused, readPayload } from "../read-payload.js";

/** HTTP statuses that mean "the daemon refused this payload" (exit 2). */
const REFUSED = new Set([400, 409, 413]);

/**
 * `draft-review submit`: one payload from stdin or --file to `POST /drafts`;
 * prints the answer as one JSON line. Exit 0 accepted (201 new, 200 replay),
 * 2 refused payload, 1 anything else. Invalid JSON is refused without asking
 * the daemon.
 */
export const submitCommand: CliCommand = {
  name: "submit",
  summary: "submit one draft payload (JSON on stdin, or --file) for review",
  usage: [
    "draft-review submit [--file PATH]",
    "",
    "Reads one draft payload (a JSON object) from stdin, or from PATH, and submits it",
    "to the daemon. Prints the daemon's answer as one JSON line, e.g.",
    '  {"draft_id":"d_...","review_message_id":42,"status":"pending"}',
    'A refused payload prints {"error":...,"field":...}. Resubmitting the same',
    "idempotency_key returns the existing draft and posts nothing new.",
    "",
    "  -f, --file PATH   read the payload from PATH instead of stdin (- is stdin)",
    "  --json            accepted like every command's; the answer is always one JSON line",
  ].join("\n"),
  options: { file: { type: "string", short: "f" }, json: { type: "boolean" } },
  positionals: { min: 0, max: 0 },
  async run(args, io) {
    const file = args.values.file;
    let payload;
    try {
      payload = await readPayload(io, typeof file === "string" ? file : undefined);
    } catch (err) {
      if (!(err instanceof PayloadRefused)) throw err;
      printJsonLine(io, { error: err.message });
      return EXIT.refused;
    }
    return submitText(io, payload.text);
  },
};

async function submitText(io: CliIo, body: string): Promise<number> {
  const target = apiTarget(io.env);
  let answer;
  try {
    const token = await clientToken(io.env, io.cwd);
    answer = await callApi(target, token, { method: "POST", path: "/drafts", body });
  } catch (err) {
    if (!(err instanceof CliFailure)) throw err;
    // Scripts always get one JSON line; people get the message on stderr.
    printJsonLine(io, { error: err.message });
    printProblem(io, err.message);
    return err.exitCode;
  }
  printJsonLine(io, answer.body);
  if (answer.status === 200 || answer.status === 201) return EXIT.ok;
  if (REFUSED.has(answer.status)) return EXIT.refused;
  printProblem(io, explainStatus(answer.status, target.url));
  return EXIT.failed;
}
