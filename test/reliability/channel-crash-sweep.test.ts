/**
 * Crash sweep on Linear, email and Slack (issue 33): the real daemon, as a
 * child process, with every channel pointed at its double, killed with
 * SIGKILL at every point of a send on each (before the intent, with the
 * audience read held, right after the intent, with the call held at the
 * service, after the service stored the message and lost the answer, after
 * the answer before the outcome line), restarted on the same files each
 * time. Never two comments or messages for one draft; Linear and Slack end
 * `sent`, found by the comment id or the metadata; email ends `sent`, or
 * `outcome_unknown` with its Message-ID told and never resent; nothing
 * unapproved goes out; no draft is lost. RELIABILITY_ITERATIONS repeats every
 * point (default 1: 17 kills).
 */
import { describe, expect, it } from "vitest";
import { killDaemons, removeFreshDirs } from "../support/daemon-process.js";
import { runChannelLane } from "./support/channel-lane.js";
import { startChannelWorld } from "./support/channel-world.js";
import { iterations, report, seed } from "./support/sweep-world.js";

const ITERATIONS = iterations();

describe("channel crash sweep: SIGKILL at every point of a send on Linear, email and Slack", () => {
  it(
    `never sends twice or unapproved and loses nothing, across ${17 * ITERATIONS} kills`,
    async () => {
      const t0 = Date.now();
      const world = await startChannelWorld();
      try {
        const lane = await runChannelLane({
          world,
          lane: 0,
          iterations: ITERATIONS,
          seed: seed(),
          debug: process.env.RELIABILITY_DEBUG === "1",
        });
        const { ledger } = lane;
        const kills = Object.fromEntries([...ledger.kills].sort());
        const perChannel = (c: string) => [...ledger.kills].filter(([k]) => k.startsWith(`${c}:`)).reduce((n, [, v]) => n + v, 0);
        report("channel-crash-sweep", {
          seed: seed(),
          iterations: ITERATIONS,
          kills_linear: perChannel("linear"),
          kills_email: perChannel("email"),
          kills_slack: perChannel("slack"),
          kills_by_point: kills,
          fallbacks: ledger.fallbacks,
          double_sends: ledger.doubles.size,
          unapproved_sends: ledger.unapproved.size,
          lost: ledger.lost.size,
          statuses: lane.statuses,
          drafts: ledger.drafts.length,
          lives: lane.lives,
          violations: ledger.violations.length,
          exit_code: lane.exitCode,
          seconds: Math.round((Date.now() - t0) / 1000),
        });
        expect(ledger.violations).toEqual([]);
        expect(ledger.kills.size).toBeGreaterThan(0);
        expect(perChannel("linear") + perChannel("email") + perChannel("slack")).toBe(17 * ITERATIONS);
        expect(lane.exitCode).toBe(0);
      } finally {
        await killDaemons();
        await world.close();
        await removeFreshDirs();
      }
    },
    240_000 * ITERATIONS,
  );
});
