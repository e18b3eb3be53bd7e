import { buildStatusReport, killSwitchLine, statusText, type StatusReport } from "../../owner/status-report.js";
import { apiTarget } from "../api-target.js";
import { askDaemonOrReadStore } from "../store-fallback.js";
import type { CliCommand } from "../command.js";
import { CliFailure, EXIT } from "../io.js";
import { explainStatus, printJsonLine, printProblem } from "../output.js";
import { localKillSwitch } from "./owner-switch.js";
import { stat } from "node:fs/promises";
import { cliFileLog, cliHarness } from "../harness.js";
import { savedBusinessStatus } from "../../business/saved-status.js";
import type { CliIo } from "../io.js";

/** Null when HARNESS_DIR is set or exists here; otherwise the sentence that says the CLI cannot know the kill switch. */
async function unknownHarness(io: CliIo): Promise<string | null> {
  // A HARNESS_DIR named on purpose is the daemon's, even before it made it (no drafts yet).
  if (io.env.HARNESS_DIR?.trim()) return null;
  const { dir } = cliHarness(io);
  const found = await stat(dir).then(
    (st) => st.isDirectory(),
    () => false,
  );
  return found
    ? null
    : `❔ Sends: unknown. There is no HARNESS_DIR at ${dir}: run this in the daemon's directory, or set HARNESS_DIR to its HARNESS_DIR`;
}

/**
 * `draft-review status`: the running daemon's status (`GET /status`): mode,
 * kill switch with its reason, queue depths, today's counts. When the daemon
 * does not answer, says so and what .env and HALT say about sends (exit 1).
 */
export const statusCommand: CliCommand = {
  name: "status",
  summary: "the daemon's kill switch, queue depths and today's counts",
  usage: [
    "draft-review status [--json]",
    "",
    "Asks the running daemon (GET /status) for its mode, the kill switch and its reason,",
    "how many drafts wait in each status, and today's counts per status (local time).",
    "If the daemon is not running, computes the same report from HARNESS_DIR's store",
    "(read-only) with what .env and HARNESS_DIR/HALT say, and says so on stderr.",
    "",
    "  --json   print the report as one JSON line",
  ].join("\n"),
  exitCodes: [
    "Exit codes:",
    "  0  answered: by the daemon, or from the store when the daemon is not running",
    "  1  the daemon failed or did not answer in time, a wrong API token, an unreadable store, or a usage error",
  ].join("\n"),
  options: { json: { type: "boolean" } },
  positionals: { min: 0, max: 0 },
  async run(args, io) {
    const json = args.values.json === true;
    const target = apiTarget(io.env);
    let answer;
    try {
      answer = await askDaemonOrReadStore(io, "/status");
    } catch (err) {
      if (!(err instanceof CliFailure)) throw err;
      const unknown = await unknownHarness(io);
      if (unknown !== null) {
        if (json) printJsonLine(io, { error: err.message, daemon: "not answering", kill_switch: null });
        printProblem(io, `${err.message}\n  ${unknown}`);
        return EXIT.failed;
      }
      const local = await localKillSwitch(io);
      if (json) printJsonLine(io, { error: err.message, daemon: "not answering", kill_switch: local });
      printProblem(io, `${err.message}\n  Meanwhile, as .env and HALT say: ${killSwitchLine(local)}`);
      return EXIT.failed;
    }
    if (answer.kind === "store") {
      const unknown = await unknownHarness(io);
      if (unknown !== null) {
        if (json) printJsonLine(io, { error: unknown, daemon: "not running", kill_switch: null });
        else io.stdout.write(`${unknown}.\n`);
        return EXIT.failed;
      }
      const report = buildStatusReport({
        mode: "live",
        nowMs: Date.now(),
        drafts: answer.drafts,
        killSwitch: await localKillSwitch(io),
        digestHour: null,
        business: await savedBusinessStatus(cliHarness(io), Date.now(), cliFileLog(io)),
      });
      if (json) printJsonLine(io, { ...report, daemon: "not running", read_from: answer.path });
      else io.stdout.write(`${offlineStatusText(report)}\n`);
      return EXIT.ok;
    }
    if (answer.status !== 200) {
      if (json) printJsonLine(io, answer.body);
      printProblem(
        io,
        answer.status === 404
          ? `the daemon at ${target.url} has no GET /status: is it an older version? Restart it (\`npm start\`)`
          : explainStatus(answer.status, target.url),
      );
      return EXIT.failed;
    }
    if (json) printJsonLine(io, answer.body);
    else io.stdout.write(`${statusText(answer.body as StatusReport)}\n`);
    return EXIT.ok;
  },
};

/** The status text read from the store: the daemon's lines without the ones only a running daemon knows. */
function offlineStatusText(report: StatusReport): string {
  const lines = statusText(report)
    .split("\n")
    .filter((l) => !l.startsWith("Daily digest"));
  lines[0] = "draft-review (daemon not running; read from the store)";
  return lines.join("\n");
}
