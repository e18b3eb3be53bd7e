/**
 * One lane of the crash sweep: its own Bot API double and HARNESS_DIR, a
 * share of the workload, and a queue of kill points, each taken by one life
 * of the real daemon. The sweep runs two lanes at once: a daemon spends most
 * of a life waiting on fsync and the network, so two share two cores well.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { isFinal } from "../../../src/drafts/status.js";
import { eventually, freshDirs } from "../../support/daemon-process.js";
import type { TelegramDouble } from "../../telegram-double/index.js";
import { startLife, type Life } from "./sweep-daemon.js";
import { SweepDriver, type Action } from "./sweep-driver.js";
import { archivingDue, AuditTail, readLiveStore, type StoreView } from "./sweep-files.js";
import { arm, choose, fits, schedule, type Armed, type Category } from "./sweep-kills.js";
import { SweepLedger, type KillSnapshot } from "./sweep-ledger.js";
import { buildPlans } from "./sweep-plan.js";
import { daemonEnv, prng, sweepDouble } from "./sweep-world.js";

/** DRAFT_STORE_COMPACT_AFTER_LINES for the sweep: the store compacts every few dozen changes. */
export const COMPACT_AFTER_LINES = 40;
/** After this long a life whose kill point did not come is killed anyway (counted as a fallback). */
const LIFE_BUDGET_MS = 700;
/** DRAFT_RETENTION in the sweep: final drafts move to archive/ at a start a minute after they ended. */
const RETENTION_MS = 60_000;

/** What a lane is asked to do. */
export interface LaneOptions {
  readonly lane: number;
  readonly drafts: number;
  readonly iterations: number;
  readonly seed: number;
  /** Print one line per life. */
  readonly debug: boolean;
}

/** What a lane found. */
export interface LaneResult {
  readonly double: TelegramDouble;
  readonly driver: SweepDriver;
  readonly ledger: SweepLedger;
  readonly end: Awaited<ReturnType<SweepLedger["final"]>>;
  readonly exitCode: number | null;
  readonly lives: number;
  readonly startMsAvg: number;
}

interface Lane {
  readonly o: LaneOptions;
  readonly double: TelegramDouble;
  readonly dirs: { cwd: string; harnessDir: string };
  readonly env: Record<string, string>;
  readonly driver: SweepDriver;
  readonly audit: AuditTail;
  readonly ledger: SweepLedger;
  readonly rand: () => number;
  readonly nth: Map<Category, number>;
  startMs: number;
}

/** The next change to the store starts a compaction (JsonlStore: more lines than max(limit, 2 x drafts)). */
function compactionDue(store: StoreView): boolean {
  return store.lines + 3 > Math.max(COMPACT_AFTER_LINES, 2 * store.drafts.size);
}

/** Waits until the life is killed, or kills it once `untilMs` has passed. */
async function until(life: Life, untilMs: number, fallback: string): Promise<void> {
  while (life.killedBy === null && Date.now() < untilMs) await sleep(5);
  life.kill(fallback);
  await life.proc.exited;
}

function describeAction(a: Action | null): string {
  if (a === null) return "-";
  return a.kind === "submit"
    ? `submit#${a.t.plan.n}`
    : `${a.step.who}-${a.step.via}-${a.step.decision}${a.step.afterFinal ? "-late" : ""}#${a.t.plan.n}`;
}

/**
 * Takes the archiving kill point at the head of `queue` for this life when the
 * start will have drafts to move (else the kill would find no archiving to
 * cut): otherwise it goes to the back of the queue, or, when only archiving is
 * left, the lane waits (at most 90 s) until a final draft is past DRAFT_RETENTION.
 */
async function archivingLife(l: Lane, queue: Category[]): Promise<Category | null> {
  const due = () => archivingDue(l.dirs.harnessDir, RETENTION_MS);
  if ((await due()) === 0) {
    if (queue.some((c) => c !== "archiving")) {
      queue.push(queue.shift()!);
      return null;
    }
    await eventually(due, 90_000, "a draft past DRAFT_RETENTION").catch(() => {});
  }
  return queue.shift()!;
}

/**
 * One life: start (a start-up or recovery kill is armed before), check the
 * restart, choose the kill point and the action that goes with it, act, kill,
 * check the files.
 */
async function runLife(l: Lane, queue: Category[], lifeNo: number, last: KillSnapshot | null): Promise<KillSnapshot> {
  const lives = queue.length + lifeNo;
  const early: Category | null =
    last !== null && last.sending.length > 0 && l.rand() < 0.6
      ? "recovery"
      : queue[0] === "startup"
        ? queue.shift()!
        : queue[0] === "archiving"
          ? await archivingLife(l, queue)
          : null;
  const t0 = Date.now();
  const life = await startLife(l.dirs, l.env);
  const ctxOf = (category: Category, action: Action | null) => {
    const n = l.nth.get(category) ?? 0;
    l.nth.set(category, n + 1);
    return { life, double: l.double, harnessDir: l.dirs.harnessDir, driver: l.driver, rand: l.rand, nth: n, action };
  };
  let category = early;
  let action: Action | null = null;
  let armed: Armed | null = early ? arm(early, ctxOf(early, null)) : null;
  const url = await Promise.race([life.running, life.proc.exited.then(() => null)]);
  const startMs = Date.now() - t0;
  if (url !== null) {
    l.startMs += startMs;
    await l.ledger.afterRestart(life, lifeNo, last);
    if (armed === null) {
      const store = await readLiveStore(l.dirs.harnessDir);
      l.audit.refresh();
      const allowed = Math.min(l.o.drafts, Math.ceil((l.o.drafts * (lifeNo + 1)) / (0.75 * lives)) + 1);
      const options = l.double.allowedUpdates !== undefined ? l.driver.options(store, l.audit, allowed) : [];
      ({ category, action } = choose(queue, options, compactionDue(store), l.rand));
      armed = arm(category, ctxOf(category, action));
    }
    l.driver.retry(life);
    armed.performed(action ? l.driver.perform(life, action, lifeNo) : null);
    // A kill point left without its event kills an idle daemon soon, at a random moment.
    const idle = category !== null && !fits(category, action) && !early;
    const budget = idle ? 20 + Math.floor(l.rand() * 300) : LIFE_BUDGET_MS;
    await until(life, Date.now() + budget, `${category}:${idle ? "idle" : "fallback"}`);
  } else {
    if (life.killedBy === null)
      l.ledger.violation(
        `start-${l.o.lane}-${lifeNo}`,
        `life ${lifeNo}: the daemon exited on its own: ${life.proc.rawStderr().slice(-2000)}`,
      );
    else if (category === "startup") l.ledger.startupKillsBeforeRunning++;
    await until(life, 0, `${category}:fallback`);
  }
  armed?.disarm();
  for (const x of armed?.landed ?? []) l.ledger.count(l.ledger.landed, x);
  l.double.clearFaults();
  await l.driver.settle();
  if (l.o.debug)
    console.log(
      `lane ${l.o.lane} life ${lifeNo} ${category} ${describeAction(action)} -> ${life.killedBy} start=${startMs}ms life=${Date.now() - t0}ms`,
    );
  return l.ledger.afterKill(lifeNo, life.killedBy ?? "?");
}

/** The last life, without kills: the agents finish, every draft reaches a final status, the daemon stops cleanly. */
async function drain(l: Lane, last: KillSnapshot | null): Promise<number | null> {
  const life = await startLife(l.dirs, l.env);
  const url = await Promise.race([life.running, life.proc.exited.then(() => null)]);
  if (url === null) {
    l.ledger.violation("drain-start", `the final daemon did not start: ${life.proc.rawStderr().slice(-2000)}`);
    return null;
  }
  await l.ledger.afterRestart(life, -1, last);
  const deadline = Date.now() + 120_000;
  for (;;) {
    const store = await readLiveStore(l.dirs.harnessDir);
    l.audit.refresh();
    const options = l.driver.options(store, l.audit, l.o.drafts);
    if (options.length === 0 && l.driver.done() && [...store.drafts.values()].every((d) => isFinal(d.status))) break;
    if (Date.now() > deadline) {
      const open = [...store.drafts.values()].filter((d) => !isFinal(d.status)).map((d) => `${d.draft_id}:${d.status}`);
      const waiting = l.driver.tracked
        .filter((t) => !t.acked || t.waitingFor !== null || (t.step < t.plan.steps.length && t.cut === null))
        .map(
          (t) =>
            `#${t.plan.n} acked=${t.acked} step=${t.step}/${t.plan.steps.length} waitingFor=${t.waitingFor} status=${t.draftId && store.drafts.get(t.draftId)?.status}`,
        );
      l.ledger.violation(
        "drain",
        `the drafts did not all reach a final status within 120 s of the last kill: open ${open.join(", ")}; agents waiting: ${waiting.join(", ")}`,
      );
      break;
    }
    l.driver.retry(life);
    for (const a of options) l.driver.perform(life, a, -1);
    await sleep(100);
  }
  // The last notices and edits go out before the stop.
  await eventually(() => l.ledger.noticesOut(), 15_000).catch(() => {});
  const code = await life.proc.stop("SIGTERM");
  await l.driver.settle();
  return code;
}

/** Runs one lane: every kill point of its queue, then the drain and the final checks. */
export async function runLane(o: LaneOptions): Promise<LaneResult> {
  const rand = prng(o.seed);
  const double = await sweepDouble();
  const dirs = await freshDirs();
  const env = daemonEnv(double, {
    DRAFT_TTL: "20s",
    DEFER_FOR: "10s",
    TELEGRAM_RATE_SCALE: "50",
    DRAFT_STORE_COMPACT_AFTER_LINES: String(COMPACT_AFTER_LINES),
    // Final drafts move to archive/ at a start a minute after they ended: archiving is swept too
    // (readStore reads both). Not shorter: the agents still reply to drafts that just ended.
    DRAFT_RETENTION: `${RETENTION_MS / 1000}s`,
  });
  const driver = new SweepDriver(buildPlans(o.drafts, rand, `${o.seed.toString(36)}-${o.lane}`), double);
  const audit = AuditTail.of(dirs.harnessDir);
  const ledger = new SweepLedger(double, dirs.harnessDir, driver, audit);
  const l: Lane = { o, double, dirs, env, driver, audit, ledger, rand, nth: new Map(), startMs: 0 };
  const queue = schedule(o.iterations, rand);
  let last: KillSnapshot | null = null;
  let lives = 0;
  for (; queue.length > 0; lives++) last = await runLife(l, queue, lives, last);
  const exitCode = await drain(l, last);
  const end = await ledger.final();
  return { double, driver, ledger, end, exitCode, lives, startMsAvg: Math.round(l.startMs / Math.max(1, lives)) };
}
