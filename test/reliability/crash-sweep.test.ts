/**
 * Crash sweep (issue 4): the real daemon, as a child process, against the Bot
 * API double, killed with SIGKILL at 200+ deliberate points (RELIABILITY_ITERATIONS
 * multiplies them) while 50 drafts go through every channel, and restarted on
 * the same files each time. After every kill, every restart and at the end it
 * checks: the store loads; no destination got a text twice or without a
 * reviewer's approval of exactly that text; no acknowledged intake and no
 * delivered decision is lost; a send cut short is `outcome_unknown`, never
 * resent, and the reviewer is told. Two lanes (own double, own HARNESS_DIR)
 * run at once, 25 drafts and 100+ kill points each.
 */
import { describe, expect, it } from "vitest";
import { runLane, type LaneResult } from "./support/sweep-lane.js";
import { iterations, OWNER, report, seed } from "./support/sweep-world.js";

const ITERATIONS = iterations();
const LANES = 2;
const DRAFTS_PER_LANE = 25 * ITERATIONS;

const sum = (lanes: readonly LaneResult[], f: (l: LaneResult) => number) => lanes.reduce((n, l) => n + f(l), 0);

function merge(maps: Array<ReadonlyMap<string, number> | Record<string, number>>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const m of maps) for (const [k, v] of m instanceof Map ? m : Object.entries(m)) out[k] = (out[k] ?? 0) + v;
  return Object.fromEntries(Object.entries(out).sort());
}

describe("crash sweep: SIGKILL at every step of the flow", () => {
  it(
    `keeps every decision, never double-sends and never sends unapproved, across ${200 * ITERATIONS}+ kills`,
    async () => {
      const t0 = Date.now();
      const lanes = await Promise.all(
        Array.from({ length: LANES }, (_, lane) =>
          runLane({
            lane,
            drafts: DRAFTS_PER_LANE,
            iterations: ITERATIONS,
            seed: seed() + lane,
            debug: process.env.RELIABILITY_DEBUG === "1",
          }),
        ),
      );
      try {
        const kills = merge(lanes.map((l) => l.ledger.kills));
        const total = Object.values(kills).reduce((a, b) => a + b, 0);
        const notAtEvent = Object.entries(kills)
          .filter(([k]) => /:(fallback|idle)$/.test(k))
          .reduce((a, [, n]) => a + n, 0);
        const violations = lanes.flatMap((l, i) => l.ledger.violations.map((v) => `lane ${i}: ${v}`));
        report("crash-sweep", {
          seed: seed(),
          iterations: ITERATIONS,
          drafts: LANES * DRAFTS_PER_LANE,
          kill_points: total,
          kills_at_event: total - notAtEvent,
          kills_by_point: kills,
          landed: merge(lanes.map((l) => l.ledger.landed)),
          startup_kills_before_running: sum(lanes, (l) => l.ledger.startupKillsBeforeRunning),
          mid_compaction: sum(lanes, (l) => l.ledger.midCompaction),
          torn_store_tails: sum(lanes, (l) => l.ledger.tornStoreTails),
          double_sends: sum(lanes, (l) => l.ledger.doubleSends.size),
          unapproved_sends: sum(lanes, (l) => l.ledger.unapproved.size),
          lost_intakes: sum(lanes, (l) => l.ledger.lostIntakes.size),
          lost_decisions: sum(lanes, (l) => l.ledger.lostDecisions.size),
          unresolved_sending: sum(lanes, (l) => l.ledger.unresolvedSending),
          store_load_failures: sum(lanes, (l) => l.ledger.storeLoadFailures),
          unknown_outcomes: sum(lanes, (l) => l.end.unknown),
          unknown_notices: sum(lanes, (l) => l.end.notices),
          statuses: merge(lanes.map((l) => l.end.statuses)),
          decisions_injected: sum(lanes, (l) => l.driver.injected.length),
          idempotent_replays: sum(lanes, (l) => l.driver.replays),
          journal_replayed_updates: sum(lanes, (l) => l.ledger.journalReplayed),
          audit_lines_recovered: sum(lanes, (l) => l.ledger.auditRecovered),
          orphan_review_posts: sum(lanes, (l) => l.ledger.orphanPosts(l.end.store.drafts)),
          destination_messages: sum(lanes, (l) => l.double.messages().filter((m) => m.chatId !== OWNER).length),
          start_ms_avg: Math.round(sum(lanes, (l) => l.startMsAvg) / LANES),
          violations: violations.length,
          exit_codes: lanes.map((l) => l.exitCode).join(","),
          seconds: Math.round((Date.now() - t0) / 1000),
        });
        expect(violations).toEqual([]);
        expect(total).toBeGreaterThanOrEqual(200 * ITERATIONS);
        expect(lanes.map((l) => l.exitCode)).toEqual(lanes.map(() => 0));
        expect(sum(lanes, (l) => l.end.statuses.sent ?? 0)).toBeGreaterThan(0);
      } finally {
        await Promise.all(lanes.map((l) => l.double.stop()));
      }
    },
    900_000 * ITERATIONS,
  );
});
