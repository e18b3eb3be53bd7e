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
 * unapproved goes out; no draft is lost. A third of the drafts carry two
 * destinations (choose one), picked by 👍 or by the post's button: the other
 * never gets anything, and `deliveries` says how the send ended. Half the
 * kills that leave a send under way are followed by one more while the
 * restart settles it. Two lanes (own doubles, own HARNESS_DIR) share the
 * kill points. RELIABILITY_ITERATIONS repeats every point (default 1: 17 kills).
 */
import { describe, expect, it } from "vitest";
import { killDaemons, removeFreshDirs } from "../support/daemon-process.js";
import { channelSchedule, runChannelLane, type ChannelLaneResult } from "./support/channel-lane.js";
import { startChannelWorld, type ChannelWorld } from "./support/channel-world.js";
import { iterations, prng, report, seed } from "./support/sweep-world.js";

const ITERATIONS = iterations();
const LANES = 2;
/** Kill points per iteration: six on Linear and Slack, five on email (it reads no audience from a server). */
const POINTS = 17;

const sum = (lanes: readonly ChannelLaneResult[], f: (l: ChannelLaneResult) => number) => lanes.reduce((n, l) => n + f(l), 0);

function merge(maps: Array<ReadonlyMap<string, number> | Record<string, number>>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const m of maps) for (const [k, v] of m instanceof Map ? m : Object.entries(m)) out[k] = (out[k] ?? 0) + v;
  return Object.fromEntries(Object.entries(out).sort());
}

/** The figures of one run, as one `[reliability]` line. */
function figures(lanes: readonly ChannelLaneResult[], t0: number): Record<string, unknown> {
  const kills = merge(lanes.map((l) => l.ledger.kills));
  const count = (match: (point: string) => boolean) => Object.entries(kills).reduce((n, [k, v]) => n + (match(k) ? v : 0), 0);
  const perChannel = (c: string) => count((k) => k.startsWith(`${c}:`));
  return {
    seed: seed(),
    iterations: ITERATIONS,
    kills_linear: perChannel("linear"),
    kills_email: perChannel("email"),
    kills_slack: perChannel("slack"),
    send_point_kills: count((k) => !k.includes(":recovery:")),
    recovery_kills: count((k) => k.includes(":recovery:")),
    kills_by_point_and_status_at_kill: kills,
    fallbacks: sum(lanes, (l) => l.ledger.fallbacks),
    double_sends: sum(lanes, (l) => l.ledger.doubles.size),
    unapproved_sends: sum(lanes, (l) => l.ledger.unapproved.size),
    lost: sum(lanes, (l) => l.ledger.lost.size),
    final_statuses: merge(lanes.map((l) => l.statuses)),
    drafts: sum(lanes, (l) => l.ledger.drafts.length),
    choose_one_drafts: sum(lanes, (l) => l.ledger.drafts.filter((d) => d.choice !== null).length),
    lives: sum(lanes, (l) => l.lives),
    violations: sum(lanes, (l) => l.ledger.violations.length),
    exit_codes: lanes.map((l) => l.exitCode).join(","),
    seconds: Math.round((Date.now() - t0) / 1000),
  };
}

describe("channel crash sweep: SIGKILL at every point of a send on Linear, email and Slack", () => {
  it(
    `never sends twice or unapproved and loses nothing, across ${POINTS * ITERATIONS} kills`,
    async () => {
      const t0 = Date.now();
      const worlds: ChannelWorld[] = [];
      try {
        for (let i = 0; i < LANES; i++) worlds.push(await startChannelWorld());
        const jobs = channelSchedule(ITERATIONS, prng(seed()));
        const lanes = await Promise.all(
          worlds.map((world, lane) =>
            runChannelLane({
              world,
              lane,
              jobs: jobs.filter((_, i) => i % LANES === lane),
              seed: seed() + lane,
              debug: process.env.RELIABILITY_DEBUG === "1",
            }),
          ),
        );
        const f = figures(lanes, t0);
        report("channel-crash-sweep", f);
        expect(lanes.flatMap((l, i) => l.ledger.violations.map((v) => `lane ${i}: ${v}`))).toEqual([]);
        expect(f.send_point_kills).toBe(POINTS * ITERATIONS);
        expect(lanes.map((l) => l.exitCode)).toEqual(lanes.map(() => 0));
      } finally {
        await killDaemons();
        await Promise.all(worlds.map((w) => w.close()));
        await removeFreshDirs();
      }
    },
    240_000 * ITERATIONS,
  );
});
