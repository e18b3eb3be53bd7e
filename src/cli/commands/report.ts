import { DEFAULT_AUDIT_SOURCE } from "../../audit/verify-chain.js";
import { readDuration } from "../../config/duration.js";
import { readPeriod } from "../../report/read-period.js";
import { reportTable } from "../../report/report-text.js";
import type { CliCommand } from "../command.js";
import { cliHarness } from "../harness.js";
import { EXIT } from "../io.js";
import { printJsonLine, printProblem } from "../output.js";

/** A time for --since/--until: a duration back from now (`7d`) or an ISO-8601 date or time; else why not. */
function readTime(text: string, nowMs: number, allowDuration: boolean): { ms: number } | { error: string } {
  if (/^\d{4}-\d{2}-\d{2}/.test(text)) {
    const ms = Date.parse(text);
    return Number.isFinite(ms) ? { ms } : { error: `"${text}" is not an ISO-8601 time such as 2030-01-31T09:00:00Z` };
  }
  if (!allowDuration) return { error: `"${text}" is not an ISO-8601 time such as 2030-01-31T09:00:00Z` };
  const back = readDuration(text);
  if (back.ok) return { ms: nowMs - back.ms };
  // A number with a unit (signed, zero or too long) is a duration out of range: its error names the range.
  if (/^\s*-?\s*\d+(?:\.\d+)?\s*(ms|s|m|h|d)\s*$/.test(text)) return { error: back.error };
  return { error: `"${text}" is neither a duration such as 7d or 24h nor an ISO-8601 time` };
}

/**
 * `draft-review report`: decisions per role and per destination over a
 * period, read from HARNESS_DIR's files (read-only, daemon running or not):
 * the audit log from where the period starts, the store, and the archive
 * months of the period. `--edits` lists what reviewers changed before approving.
 */
export const reportCommand: CliCommand = {
  name: "report",
  summary: "decisions per role and destination over a period (default the last 7 days)",
  usage: [
    "draft-review report [--since 7d] [--until ISO] [--json] [--edits]",
    "",
    "Counts the drafts created in the period, as they stand at its end, per role and per",
    "destination: drafts, sent, revise (sent back by a reviewer), deferred (at least once),",
    "expired, edited (edited by a reviewer, then approved), undone (decisions undone within",
    "UNDO_WINDOW), and the median and 90th percentile of the time from the review post to",
    "the decision that stood. Reads HARNESS_DIR's audit log from where the period before starts,",
    "the store and the archive months of the period, read-only, whether or not the daemon runs.",
    "",
    "  --since WHEN   a duration back from now (7d, 24h) or an ISO-8601 time; default 7d",
    "  --until WHEN   an ISO-8601 time; default now",
    '  --json         print {"since","until","roles":{...},"destinations":{...},"previous":{...}} as one',
    "                 JSON line; per role also notes (the revision notes given in the period, newest",
    "                 first, at most 10) and restored (drafts whose only edit restored redacted items,",
    "                 not counted in edited); previous: the period of equal length before",
    "  --edits        with --json: per role, the (as drafted, as sent) texts of drafts a reviewer",
    "                 edited before approving them",
    "Drafts made in test mode count only with TAO_DRAFT_REVIEW_TEST=1 (and then only they).",
  ].join("\n"),
  options: { since: { type: "string" }, until: { type: "string" }, json: { type: "boolean" }, edits: { type: "boolean" } },
  positionals: { min: 0, max: 0 },
  async run(args, io) {
    const json = args.values.json === true;
    const now = Date.now();
    const refuse = (field: string, error: string) => {
      if (json) printJsonLine(io, { error, field });
      else printProblem(io, error);
      return EXIT.refused;
    };
    const sinceText = typeof args.values.since === "string" ? args.values.since : "7d";
    const untilText = typeof args.values.until === "string" ? args.values.until : null;
    const since = readTime(sinceText, now, true);
    if ("error" in since) return refuse("since", `since: ${since.error}`);
    const until = untilText === null ? { ms: now } : readTime(untilText, now, false);
    if ("error" in until) return refuse("until", `until: ${until.error}`);
    const sinceMs = since.ms;
    const untilMs = until.ms;
    if (untilMs <= sinceMs) return refuse("since", "since: the period is empty: --since must be before --until (or now)");
    if (args.values.edits === true && !json) return refuse("edits", "edits: --edits prints JSON only: add --json");
    const h = cliHarness(io);
    const data = await readPeriod(
      { audit: h.audit, drafts: h.drafts, archive: h.archive, source: DEFAULT_AUDIT_SOURCE },
      { sinceMs, untilMs },
      now,
      io.env.TAO_DRAFT_REVIEW_TEST === "1",
    );
    if (args.values.edits === true) printJsonLine(io, { since: data.report.since, until: data.report.until, roles: data.edits });
    else if (json) printJsonLine(io, data.report);
    else io.stdout.write(`${reportTable(data.report, data.names)}\n`);
    return EXIT.ok;
  },
};
