/**
 * `draft-review report --since/--until` at their edges (issue 28 point 7): a
 * negative, zero or too long duration is refused with exit 2 (a refused input,
 * as the README's table says) and the message names the range, never a parser
 * error with exit 1.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jsonLine, runBin } from "../support/cli-process.js";

let cwd: string;
beforeAll(async () => {
  cwd = await mkdtemp(join(tmpdir(), "draft-review-report-args-"));
});
afterAll(() => rm(cwd, { recursive: true, force: true }));

const report = (args: string[]) => runBin(["report", ...args], { cwd, env: { HARNESS_DIR: join(cwd, ".harness") } });

describe("draft-review report: --since and --until out of range", () => {
  it("a negative duration exits 2 naming the range, whether written `--since -7d` or `--since=-7d`", async () => {
    for (const args of [["--since", "-7d"], ["--since=-7d"], ["--since", "-7d", "--json"]]) {
      const run = await report(args);
      expect(run.code, run.stderr).toBe(2);
      const said = args.includes("--json") ? jsonLine(run).error : run.stderr;
      expect(said).toContain('since: "-7d" is negative: a duration is more than 0 and at most 3650d');
      expect(said).not.toMatch(/ambiguous|ERR_PARSE_ARGS/);
    }
  });

  it("a duration past 3650d exits 2 naming the limit; zero names the range", async () => {
    const long = await report(["--since", "3651d"]);
    expect(long.code).toBe(2);
    expect(long.stderr).toContain('since: "3651d" is longer than the limit of 3650d');
    expect(long.stderr).not.toContain("neither a duration");
    const zero = await report(["--since", "0d", "--json"]);
    expect(zero.code).toBe(2);
    expect(jsonLine(zero)).toEqual({ field: "since", error: 'since: "0d" is zero: a duration is more than 0 and at most 3650d' });
  });

  it("a word that is no time at all still says what a time looks like; a bad --until too", async () => {
    const word = await report(["--since", "yesterday"]);
    expect(word.code).toBe(2);
    expect(word.stderr).toContain('since: "yesterday" is neither a duration such as 7d or 24h nor an ISO-8601 time');
    const until = await report(["--until", "-7d"]);
    expect(until.code).toBe(2);
    expect(until.stderr).toContain('until: "-7d" is not an ISO-8601 time');
    expect((await report(["--since", "3650d"])).code).toBe(0);
  });
});
