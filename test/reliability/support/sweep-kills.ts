/**
 * The kill points of the crash sweep. Each life of the daemon gets one kill
 * point and, to go with it, one action of the agents that makes its event
 * happen (a submission for an intake kill, an owner's 👍 for a send kill...).
 * Triggers kill synchronously from the callback that sees the event: a Bot
 * API double call, a line landing in the store or the audit log, a
 * compaction's temp file appearing, a log line, or a timer.
 */
import type { CallRecord, TelegramDouble } from "../../telegram-double/index.js";
import { isApproval, type Action, type SweepDriver } from "./sweep-driver.js";
import type { Life } from "./sweep-daemon.js";
import { watchHarness } from "./sweep-files.js";
import { mkdirSync, watch, type FSWatcher } from "node:fs";
import { join } from "node:path";
import { BLOCKED, OWNER } from "./sweep-world.js";

/** The kinds of kill point. */
export const CATEGORIES = [
  "timed",
  "startup",
  "intake-inflight",
  "review-post-accepted",
  "decision-delivered",
  "decision-confirmed",
  "store-line",
  "audit-line",
  "send-inflight",
  "send-accepted",
  "compaction",
  "recovery",
  "archiving",
] as const;
export type Category = (typeof CATEGORIES)[number];

/**
 * How many lives of each kind one lane has per iteration (100; the sweep runs
 * two lanes). Recovery lives are added when a kill leaves a send in flight.
 */
export const PER_LANE: Record<Exclude<Category, "recovery">, number> = {
  timed: 25,
  startup: 10,
  "intake-inflight": 5,
  "review-post-accepted": 6,
  "decision-delivered": 6,
  "decision-confirmed": 6,
  "store-line": 13,
  "audit-line": 13,
  "send-inflight": 6,
  "send-accepted": 5,
  compaction: 5,
  archiving: 5,
};

/** What a trigger works with. */
export interface KillContext {
  readonly life: Life;
  readonly double: TelegramDouble;
  readonly harnessDir: string;
  readonly driver: SweepDriver;
  readonly rand: () => number;
  /** The nth life of this category, to rotate targets. */
  readonly nth: number;
  readonly action: Action | null;
}

/** An armed kill point. */
export interface Armed {
  /** Facts about where the kill landed, filled in by the trigger. */
  readonly landed: string[];
  /** Called with the update id once the action is done. */
  performed(updateId: number | null): void;
  disarm(): void;
}

/** Does `action` (or none) give `category` its event? */
export function fits(category: Category, action: Action | null): boolean {
  switch (category) {
    case "timed":
    case "compaction":
      return true;
    case "startup":
    case "recovery":
    case "archiving":
      return action === null;
    case "intake-inflight":
    case "review-post-accepted":
      return action?.kind === "submit";
    case "decision-delivered":
    case "decision-confirmed":
      return action?.kind === "step";
    case "store-line":
      return action !== null && (action.kind === "submit" || (action.step.who === "owner" && !action.step.afterFinal));
    case "audit-line":
      return action !== null;
    case "send-inflight":
    case "send-accepted":
      return action !== null && isApproval(action);
  }
}

/**
 * Takes the next kill point from `queue` and the action that goes with it:
 * the first kind in the queue some available action fits (approvals are kept
 * for the send kill points). A compaction that the next append will start
 * takes precedence.
 */
export function choose(
  queue: Category[],
  options: readonly Action[],
  compactionDue: boolean,
  rand: () => number,
): { category: Category; action: Action | null } {
  const take = (i: number) => queue.splice(i, 1)[0]!;
  const pick = (c: Category): Action | null | undefined => {
    const fitting = options.filter((a) => fits(c, a));
    // Timed kills mostly land on a daemon busy with earlier work; some with an action of their own.
    if (c === "startup" || c === "archiving" || (c === "timed" && rand() >= 0.3)) return null;
    if (fitting.length === 0) return c === "timed" || c === "compaction" ? null : undefined;
    const sendKill = c === "send-inflight" || c === "send-accepted";
    const preferred = fitting.filter((a) => sendKill || !isApproval(a) || c === "store-line" || c === "audit-line");
    const from = preferred.length > 0 ? preferred : fitting;
    return from[Math.floor(rand() * from.length)]!;
  };
  const compaction = queue.indexOf("compaction");
  if (compactionDue && compaction >= 0) return { category: take(compaction), action: pick("compaction") ?? null };
  for (let i = 0; i < queue.length; i++) {
    const c = queue[i]!;
    // Start-up kills are taken before the daemon starts (see the sweep); compactions when one is due.
    if (c === "startup" || c === "archiving" || (c === "compaction" && !compactionDue)) continue;
    const action = pick(c);
    if (action !== undefined && (action !== null || c === "timed")) return { category: take(i), action };
  }
  const fallback = ["timed", "compaction"].map((c) => queue.indexOf(c as Category)).find((i) => i >= 0) ?? 0;
  return { category: take(fallback), action: null };
}

const isSend = (c: CallRecord) => c.method.toLowerCase() === "sendmessage";
const chatOf = (c: CallRecord) => Number(c.params.chat_id);
const isReviewPost = (c: CallRecord) => isSend(c) && chatOf(c) === OWNER && c.params.reply_markup !== undefined;
const isDestinationSend = (c: CallRecord) => isSend(c) && chatOf(c) !== OWNER;

/** Polls the double's calls (from about now on) every millisecond, for calls still in flight. */
function pollCalls(double: TelegramDouble, match: (c: CallRecord) => boolean, onHit: () => void, maxMs = 60_000): () => void {
  const from = Math.max(0, double.calls().length - 20);
  const started = Date.now();
  const timer = setInterval(() => {
    const all = double.calls();
    for (let i = from; i < all.length; i++) {
      if (match(all[i]!)) {
        clearInterval(timer);
        onHit();
        return;
      }
    }
    if (Date.now() - started > maxMs) clearInterval(timer);
  }, 1);
  return () => clearInterval(timer);
}

/** The store status and audit needle that `action` will write, rotating through its steps with `nth`. */
function targets(action: Action, nth: number): { status: string | null; audit: string } {
  if (action.kind === "submit")
    return nth % 2 === 0 ? { status: "queued", audit: '"to":"queued"' } : { status: "pending", audit: '"to":"pending"' };
  const { step } = action;
  if (step.who === "stranger" || step.afterFinal) return { status: null, audit: '"kind":"decision_refused"' };
  if (step.decision === "revise") return { status: "revise", audit: '"to":"revise"' };
  if (step.decision === "defer") return { status: "deferred", audit: '"to":"deferred"' };
  const end = action.t.plan.dest === BLOCKED ? "failed" : "sent";
  const chain = ["approved", "sending", end];
  const s = chain[nth % chain.length]!;
  return { status: s, audit: `"to":"${s}"` };
}

/** What one arming function sets up: how to stop it, and what to do once the action is done. */
interface Setup {
  readonly ctx: KillContext;
  readonly landed: string[];
  /** Adds a function that undoes part of the arming. */
  off(f: () => void): void;
  /** Sets what runs once the action is done (with the update id of a decision). */
  then(f: (updateId: number | null) => void): void;
}

/** Kills when a line containing `needle` and the action's draft text is appended to `file`. */
function onLine(x: Setup, file: string, needle: string, how: string): void {
  const text = x.ctx.action?.t.plan.text ?? "";
  x.off(watchHarness(x.ctx.harnessDir, file, (line) => line.includes(needle) && line.includes(text) && x.ctx.life.kill(how)));
}

function afterTimer(x: Setup, ms: number, how: string): void {
  const t = setTimeout(() => x.ctx.life.kill(how), ms);
  x.off(() => clearTimeout(t));
}

/**
 * Holds sendMessage, and kills once the draft's line is on disk and its call
 * is in flight: POST /drafts still waits for its review post (intake), or a
 * send's intent is recorded and its outcome not (send).
 */
function inFlight(x: Setup, kind: "intake" | "send"): void {
  const { double, life } = x.ctx;
  const text = x.ctx.action?.t.plan.text ?? "";
  double.delayNext("sendMessage", 1500, 4);
  const status = kind === "intake" ? '"status":"queued"' : '"status":"sending"';
  const isCall = kind === "intake" ? isReviewPost : isDestinationSend;
  x.off(
    watchHarness(x.ctx.harnessDir, "telegram_drafts.jsonl", (line) => {
      if (!line.includes(text) || !line.includes(status)) return;
      const hit = () => {
        x.landed.push(`${kind}:call-in-flight`);
        life.kill(`${kind}-inflight`);
      };
      x.off(pollCalls(double, (c) => c.outcome.kind === "pending" && isCall(c), hit, 300));
    }),
  );
}

/** Kills as the getUpdates answer carrying the decision ends (delivered), or as the next poll asks past it (confirmed). */
function onDecision(x: Setup, confirmed: boolean): void {
  const { double, life } = x.ctx;
  x.then((updateId) => {
    if (updateId === null) return;
    x.off(
      double.onCall((c) => {
        if (c.method !== "getUpdates" || c.outcome.kind !== "ok") return;
        if (!(c.outcome.result as Array<{ update_id: number }>).some((u) => u.update_id === updateId)) return;
        if (!confirmed) return life.kill("decision-delivered");
        // Telegram forgets the update the moment the runner asks past it.
        x.off(
          pollCalls(
            double,
            (p) => p.method === "getUpdates" && Number(p.params.offset ?? 0) > updateId,
            () => life.kill("decision-confirmed"),
          ),
        );
      }),
    );
  });
}

/** Kills when the store or the audit log gets the line the action leads to. */
function onWrite(x: Setup, store: boolean): void {
  const { action, nth } = x.ctx;
  if (!action) return;
  const target = targets(action, nth);
  if (store && target.status !== null) onLine(x, "telegram_drafts.jsonl", `"status":"${target.status}"`, `store-line:${target.status}`);
  if (!store) onLine(x, "swarm.jsonl", target.audit, `audit-line:${target.audit.replace(/"/g, "")}`);
}

/** Kills when a compaction's temp file appears (even lives), or once it is done (odd lives). */
function onCompaction(x: Setup): void {
  const { ctx } = x;
  if (ctx.nth % 2 === 0) {
    x.off(
      watchHarness(
        ctx.harnessDir,
        "telegram_drafts.jsonl",
        () => {},
        (name) => name.endsWith(".compact.tmp") && ctx.life.kill("compaction:temp-file"),
      ),
    );
    return;
  }
  let stop = false;
  void ctx.life.proc
    .waitForLog((l) => stop || l.msg === "compacted the draft store", 60_000)
    .then(
      () => !stop && ctx.life.kill("compaction:done"),
      () => {},
    );
  x.off(() => (stop = true));
}

const ARMING: Record<Category, (x: Setup) => void> = {
  timed: (x) => x.then(() => afterTimer(x, 20 + Math.floor(x.ctx.rand() * 700), "timed")),
  startup: (x) => afterTimer(x, Math.floor(x.ctx.rand() * 350), "startup"),
  // Kill while start-up recovery writes: a send marked unknown (before its notice goes out), an audit line recovered.
  recovery: (x) =>
    x.off(
      watchHarness(x.ctx.harnessDir, "swarm.jsonl", (l) => {
        if (!l.includes('"to":"outcome_unknown"') && !l.includes('"event":"recovered"')) return;
        x.landed.push("recovery-write");
        x.ctx.life.kill("recovery");
      }),
    ),
  "intake-inflight": (x) => inFlight(x, "intake"),
  "send-inflight": (x) => inFlight(x, "send"),
  "review-post-accepted": (x) =>
    x.off(x.ctx.double.onCall((c) => isReviewPost(c) && c.outcome.kind === "ok" && x.ctx.life.kill("review-post-accepted"))),
  "send-accepted": (x) =>
    x.off(x.ctx.double.onCall((c) => isDestinationSend(c) && c.outcome.kind === "ok" && x.ctx.life.kill("send-accepted"))),
  "decision-delivered": (x) => onDecision(x, false),
  "decision-confirmed": (x) => onDecision(x, true),
  "store-line": (x) => onWrite(x, true),
  "audit-line": (x) => onWrite(x, false),
  compaction: onCompaction,
  archiving: onArchiving,
};

/**
 * Kills while start-up moves old final drafts to archive/ (DRAFT_RETENTION is
 * short in the sweep): when a month file's temp file appears (even lives) or
 * when the catalog lands, before the store forgets the drafts (odd lives).
 * The store rewrite that follows is a compaction (see onCompaction).
 */
function onArchiving(x: Setup): void {
  const { ctx } = x;
  const dir = join(ctx.harnessDir, "archive");
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  let watcher: FSWatcher | undefined;
  try {
    watcher = watch(dir, (_event, name) => {
      const file = String(name ?? "");
      if (ctx.nth % 2 === 0 && file.startsWith(".telegram_drafts-") && file.endsWith(".tmp")) ctx.life.kill("archiving:month-file");
      if (ctx.nth % 2 === 1 && file === "catalog.bin") ctx.life.kill("archiving:catalog");
    });
  } catch {
    return;
  }
  x.off(() => watcher?.close());
}

/** Arms `category` for the life in `ctx`; call `performed` once the action is done. */
export function arm(category: Category, ctx: KillContext): Armed {
  const landed: string[] = [];
  const offs: Array<() => void> = [];
  let after: (updateId: number | null) => void = () => {};
  ARMING[category]({ ctx, landed, off: (f) => offs.push(f), then: (f) => (after = f) });
  const disarm = () => {
    for (const f of offs) f();
  };
  return { landed, performed: (updateId) => after(updateId), disarm };
}

/** Every kill point of one lane for `iterations`, shuffled with the seed. */
export function schedule(iterations: number, rand: () => number): Category[] {
  const out: Category[] = [];
  for (const [c, n] of Object.entries(PER_LANE) as Array<[Category, number]>) for (let i = 0; i < n * iterations; i++) out.push(c);
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}
