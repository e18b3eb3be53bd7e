import { spawnSync } from "node:child_process";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { jsonLine, runBin } from "../support/cli-process.js";
import { draft, testModeSession } from "../support/test-mode-process.js";

/**
 * Issue 22: the report's numbers from a history made through test mode
 * (the real dist/main.js on its simulated clock) across Europe/Berlin's
 * spring-forward night, with a restart between sessions and the early drafts
 * archived (DRAFT_RETENTION 1h). Each session's clock starts where libfaketime
 * puts the process's start, so the sessions follow each other in time.
 */

const HOUR = 3_600_000;
const hasFaketime = spawnSync("faketime", ["--version"], { stdio: "ignore" }).status === 0;
const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

/** The next spring-forward night in Berlin: 01:00 UTC on the last Sunday of March, a year or more ahead. */
function nextSpringForward(): number {
  const year = new Date().getUTCFullYear() + 1;
  const end = new Date(Date.UTC(year, 3, 0, 1));
  return end.getTime() - end.getUTCDay() * 86_400_000;
}

/** The environment that starts a process's clock at `atMs` (libfaketime, an offset from now). */
function startingAt(atMs: number): Record<string, string> {
  const offset = Math.round((atMs - Date.now()) / 1000);
  return {
    LD_PRELOAD: "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1",
    FAKETIME: `${offset >= 0 ? "+" : ""}${offset}s`,
    FAKETIME_DONT_FAKE_MONOTONIC: "1",
    TZ: "Europe/Berlin",
  };
}

// Under scripts/test-at-dates.mjs the runner's own clock is faked already: the offsets below would not add up.
describe.skipIf((!hasFaketime && process.env.CI !== "true") || process.env.FAKETIME !== undefined)(
  "the report across a daylight-saving night, a restart and the archive",
  () => {
    it("counts what the daemon did, in real durations", async () => {
      const cwd = await mkdtemp(join(tmpdir(), "report-dst-"));
      dirs.push(cwd);
      const where = { cwd, harnessDir: join(cwd, ".harness") };
      const change = nextSpringForward(); // 02:00 CET becomes 03:00 CEST
      const start = change - 4 * HOUR; // Saturday 22:00 CET
      const env = { REVIEW_TIMEZONE: "Europe/Berlin", DRAFT_RETENTION: "1h", DRAFT_TTL: "24h", UNDO_WINDOW: "0" };
      const first = await testModeSession(
        where,
        [
          draft("Scribe one", { drafted_by_role: "Scribe" }), // 1: sent 3 h later, across the night
          draft("CoS one", { drafted_by_role: "CoS", destination_chat_id: "-100777" }), // 2: sent back after 1 h
          draft("Margot one", { drafted_by_role: "Margot" }), // 3: deferred, then expires
          { cmd: "advance", by: "1h" },
          { cmd: "react", review_message_id: 2, emoji: "👎" },
          { cmd: "react", review_message_id: 3, emoji: "😴" },
          { cmd: "advance", by: "2h" },
          { cmd: "react", review_message_id: 1, emoji: "👍" },
        ],
        { ...env, ...startingAt(start) },
      );
      expect(first.at(-1)).toMatchObject({ status: "sent" });
      // The restart, a day later: final drafts older than DRAFT_RETENTION go to archive/ at the start.
      const [two] = await testModeSession(where, [draft("Scribe two", { drafted_by_role: "Scribe" })], {
        ...env,
        ...startingAt(start + 27 * HOUR),
      });
      const second = await testModeSession(
        where,
        [{ cmd: "edit", review_message_id: two!.review_message_id, text: "Scribe two, edited" }],
        { ...env, ...startingAt(start + 27.5 * HOUR) },
      );
      const editedPost = second[0]!.review_message_id as number;
      await testModeSession(
        where,
        [
          { cmd: "react", review_message_id: editedPost, emoji: "👍" },
          { cmd: "unreact", review_message_id: editedPost, emoji: "👍" },
          { cmd: "advance", by: "1h" },
          { cmd: "react", review_message_id: editedPost, emoji: "👍" },
          { cmd: "advance", by: "72h" }, // Margot's deferred draft expires
        ],
        { ...env, UNDO_WINDOW: "10m", ...startingAt(start + 29 * HOUR) },
      );
      expect(await readdir(join(where.harnessDir, "archive"))).toContain(
        `telegram_drafts-${new Date(start).toISOString().slice(0, 7)}.jsonl`,
      );

      // The history was made in test mode: a report counts test mode's drafts only when asked in test mode.
      const cli = { cwd, env: { HARNESS_DIR: where.harnessDir, REVIEW_TIMEZONE: "Europe/Berlin", TAO_DRAFT_REVIEW_TEST: "1" } };
      const since = new Date(start - HOUR).toISOString();
      const until = new Date(start + 200 * HOUR).toISOString();
      const report = jsonLine(await runBin(["report", "--json", "--since", since, "--until", until], cli));
      // Asked as a live report, the same files count nothing: test mode's drafts are no one's work.
      const live = jsonLine(
        await runBin(["report", "--json", "--since", since, "--until", until], { cwd, env: { HARNESS_DIR: where.harnessDir } }),
      );
      expect(live.roles.Scribe).toMatchObject({ drafts: 0, sent: 0 });
      // 3 h of real time from post to 👍 across the night the clocks jumped (a local-clock difference would say 4 h).
      expect(report.roles.Scribe).toEqual({
        drafts: 2,
        sent: 2,
        partly_sent: 0,
        revise: 0,
        deferred: 0,
        expired: 0,
        edited: 1,
        undone: 1,
        decision_p50_s: expect.any(Number),
        decision_p90_s: expect.any(Number),
        restored: 0,
        notes: [],
        picks: { picked: 0, recommended: 0 },
      });
      // Within a second or two (the sessions start on the real clock, read to the millisecond): 3 h, not 4 h.
      expect(Math.abs(report.roles.Scribe.decision_p50_s - 3 * 3600)).toBeLessThan(2);
      // The second draft: posted at a session's start, 👍 (undone) and 👍 again 3 h later, plus the real seconds between sessions.
      expect(report.roles.Scribe.decision_p90_s).toBeGreaterThan(3 * 3600 - 2);
      expect(report.roles.Scribe.decision_p90_s).toBeLessThan(3 * 3600 + 30);
      expect(report.roles.CoS).toMatchObject({ drafts: 1, revise: 1, decision_p50_s: 3600, decision_p90_s: 3600 });
      expect(report.roles.Margot).toMatchObject({ drafts: 1, deferred: 1, expired: 1, decision_p50_s: null });
      expect(report.destinations["-100777"]).toMatchObject({ drafts: 1, revise: 1 });
      // The period after the first session only: the archived drafts are not counted there.
      const later = jsonLine(
        await runBin(["report", "--json", "--since", new Date(start + 26 * HOUR).toISOString(), "--until", until], cli),
      );
      expect(later.roles.Scribe).toMatchObject({ drafts: 1, sent: 1, edited: 1, undone: 1 });
      expect(later.roles.CoS.drafts).toBe(0);
    });
  },
);
