/**
 * 2. Decision -> sendMessage latency while the limiter has free capacity:
 * each decision approves a draft to a destination nothing else is sent to,
 * one at a time, far below the global limit. Measured to the moment the
 * double has handled the sendMessage (its call listener), with
 * performance.now() on both sides (same process as the double).
 *   in-process: desk.decide() called -> sendMessage at the double.
 *   end to end: a reaction update injected into the double -> the real daemon's
 *   long poll delivers it -> ... -> sendMessage at the double.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { Api } from "grammy";
import { harnessPaths } from "../src/app/core.js";
import { systemClock } from "../src/clock/clock.js";
import { draftRecordSchema, type DraftRecord } from "../src/drafts/record.js";
import type { DestinationLimiter } from "../src/send/limiter.js";
import { bottleneckLimiter } from "./bottleneck-limiter.js";
import type { SendMessageCall } from "../src/channels/telegram/send-call.js";
import { JsonlStore } from "../src/store/jsonl-store.js";
import { startTelegramDouble, type TelegramDouble } from "../test/telegram-double/index.js";
import { acceptedSend, approve, openBenchCore, submitPending } from "./core-fixture.js";
import { startDaemon } from "./daemon.js";
import { newRecord, posted } from "./records.js";
import { slidingWindowLimiter } from "../src/send/sliding-limiter.js";
import { benchConfig, OWNER, silentLogger, sleep, tempDir } from "./support.js";

/** Gap between two decisions: 25 a second at most, under the 30/s global limit. */
const GAP_MS = 40;

/** performance.now() when the double has handled an accepted sendMessage to `chatId`. */
function nextSend(double: TelegramDouble, chatId: number, timeoutMs = 5000): Promise<number> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      off();
      reject(new Error(`no sendMessage to ${chatId} within ${timeoutMs} ms`));
    }, timeoutMs);
    const off = double.onCall((call) => {
      if (!acceptedSend(call) || String(call.params.chat_id) !== String(chatId)) return;
      const at = performance.now();
      clearTimeout(timer);
      off();
      resolve(at);
    });
  });
}

function destinations(n: number): number[] {
  return Array.from({ length: n }, (_, i) => 30_000_001 + i);
}

async function doubleFor(dests: readonly number[]): Promise<TelegramDouble> {
  return startTelegramDouble({
    chats: [{ id: OWNER, type: "private", firstName: "Owner" }, ...dests.map((id) => ({ id, type: "private" as const }))],
    users: [{ id: OWNER, firstName: "Owner" }],
    rateLimits: true,
  });
}

/** Per decision, ms from the decision to: its record durable, the limiter starting its job, the sendMessage call, the double. */
export interface Stages {
  readonly decided: number[];
  readonly limiterStart: number[];
  readonly call: number[];
  readonly total: number[];
}

/**
 * `samples` decisions after `warmup` unmeasured ones, in process, with our
 * limiter or the previous Bottleneck one; each stage of the path is timed on the way.
 */
export async function latencyInProcess(
  samples: number,
  warmup: number,
  which: "ours" | "bottleneck",
  env: Record<string, string> = {},
): Promise<Stages> {
  const dests = destinations(samples + warmup);
  const double = await doubleFor(dests);
  const tmp = await tempDir("latency");
  const marks = new Map<string, number>();
  const base = which === "ours" ? slidingWindowLimiter(systemClock()) : bottleneckLimiter();
  const limiter: DestinationLimiter = {
    schedule: (chatId, work) => base.schedule(chatId, () => (marks.set(`limiter ${chatId}`, performance.now()), work())),
    pause: (chatId, ms) => base.pause(chatId, ms),
    stop: () => base.stop(),
  };
  const wrapCall =
    (call: SendMessageCall): SendMessageCall =>
    (target) => (marks.set(`call ${target.chatId}`, performance.now()), call(target));
  try {
    const config = benchConfig(tmp.dir, double, env);
    const api = new Api(double.token, { apiRoot: double.url });
    const core = await openBenchCore(config, silentLogger(), { api, limiter, clock: systemClock(), wrapCall });
    try {
      const reviewIds = await submitPending(core, dests);
      await core.desk.settle();
      const out: Stages = { decided: [], limiterStart: [], call: [], total: [] };
      for (let i = 0; i < dests.length; i++) {
        const arrived = nextSend(double, dests[i]!);
        const t = performance.now();
        const decided = approve(core, reviewIds[i]!).then(() => performance.now());
        const at = await arrived;
        const durable = await decided;
        if (i >= warmup) {
          out.decided.push(durable - t);
          out.limiterStart.push(marks.get(`limiter ${dests[i]}`)! - t);
          out.call.push(marks.get(`call ${dests[i]}`)! - t);
          out.total.push(at - t);
        }
        await sleep(GAP_MS);
      }
      return out;
    } finally {
      await core.close();
    }
  } finally {
    await double.stop();
    await tmp.remove();
  }
}

/** Posts `n` review messages as the bot (rate limits not yet on); returns their message ids. */
async function reviewMessages(double: TelegramDouble, n: number): Promise<number[]> {
  const ids: number[] = [];
  for (let i = 0; i < n; i++) {
    const res = await fetch(`${double.url}/bot${double.token}/sendMessage`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ chat_id: OWNER, text: `Draft ${i} for review` }),
    });
    ids.push(((await res.json()) as { result: { message_id: number } }).result.message_id);
  }
  return ids;
}

/**
 * A store with one pending draft per destination, posted as `reviewIds`, as the daemon would have left it:
 * with `asPosted`, each with the audience its post read (a person's private chat, which the send call need
 * not ask again: it cannot become public); without, none (the send call asks Telegram, as for a group).
 */
async function seedStore(harnessDir: string, dests: readonly number[], reviewIds: readonly number[], asPosted: boolean): Promise<void> {
  const log = { warn() {}, info() {} };
  const store = await JsonlStore.open<DraftRecord>({
    path: harnessPaths(harnessDir).drafts,
    parse: (v) => draftRecordSchema.parse(v),
    log,
  });
  try {
    const now = Date.now();
    const records = dests.flatMap((chatId, i) => {
      const made = newRecord(i, String(chatId), now);
      const first = asPosted ? { ...made, audience: privateAudience(chatId, now) } : made;
      return [first, posted(first, reviewIds[i]!, now + 1)];
    });
    await store.append(records);
  } finally {
    await store.close();
  }
}

/**
 * Latencies (ms) of `samples` reactions after `warmup` unmeasured ones, through the real daemon, and its own
 * steps; `asPosted`: the drafts carry the audience their posts read (see seedStore).
 */
export async function latencyEndToEnd(samples: number, warmup: number, asPosted = true): Promise<{ total: number[]; steps: TracedStep[] }> {
  const dests = destinations(samples + warmup);
  const double = await doubleFor(dests);
  double.setRateLimits(false);
  const tmp = await tempDir("e2e");
  try {
    const harnessDir = join(tmp.dir, ".harness");
    const trace = join(tmp.dir, "latency-trace.tsv");
    const reviewIds = await reviewMessages(double, dests.length);
    await seedStore(harnessDir, dests, reviewIds, asPosted);
    double.setRateLimits(true);
    const daemon = await startDaemon({
      cwd: tmp.dir,
      harnessDir,
      double,
      env: { PII_REDACTION: "off", LOG_LEVEL: "info", LATENCY_TRACE: trace },
    });
    const out: number[] = [];
    try {
      // A reaction made before the bot asked for reactions (allowed_updates) is never delivered.
      for (let waited = 0; !double.allowedUpdates?.includes("message_reaction"); waited += 10) {
        if (waited > 10_000) throw new Error("the daemon never asked for message_reaction updates");
        await sleep(10);
      }
      for (let i = 0; i < dests.length; i++) {
        const arrived = nextSend(double, dests[i]!);
        const t = performance.now();
        double.injectReaction({ chatId: OWNER, messageId: reviewIds[i]!, userId: OWNER, newEmojis: ["👍"] });
        const at = await arrived.catch((err: Error) => {
          throw new Error(`${err.message}; the daemon's log ends:\n${daemon.stderr().slice(-3000)}`);
        });
        if (i >= warmup) out.push(at - t);
        await sleep(GAP_MS);
      }
    } finally {
      // A clean stop, so that the daemon writes its trace (it stops in about 5 s: its review chat's edits owed).
      await daemon.stop(30_000);
    }
    // The daemon writes its trace when it exits (src/log/latency-trace.ts).
    return { total: out, steps: tracedSteps(await readFile(trace, "utf8").catch(() => ""), warmup) };
  } finally {
    await double.stop();
    await tmp.remove();
  }
}

/** One step of the daemon's path, as LATENCY_TRACE recorded it (src/log/latency-trace.ts): its name and its ms per reaction. */
export interface TracedStep {
  readonly step: string;
  readonly ms: number[];
}

/**
 * The daemon's own steps per reaction, from its trace file: each reaction's steps begin with
 * "1 fetched"; a step's cost is the time from the step before it. The first `warmup` are left out.
 */
export function tracedSteps(text: string, warmup: number): TracedStep[] {
  const samples: Map<string, number>[] = [];
  for (const line of text.trim().split("\n")) {
    const [step, at] = line.split("\t");
    if (step === undefined || at === undefined) continue;
    if (step === "1 fetched") samples.push(new Map());
    const current = samples.at(-1);
    if (current && !current.has(step)) current.set(step, Number(at));
  }
  const steps = [...new Set(samples.flatMap((s) => [...s.keys()]))].sort((a, b) => Number.parseFloat(a) - Number.parseFloat(b));
  const whole = samples.slice(warmup).filter((s) => steps.every((k) => s.has(k)));
  return steps.slice(1).map((step, i) => ({ step: `${steps[i]} -> ${step}`, ms: whole.map((s) => s.get(step)! - s.get(steps[i]!)!) }));
}

/** The audience intake reads for a person's private chat (the bench's destinations are such chats in the double). */
function privateAudience(chatId: number, now: number): DraftRecord["audience"] {
  return {
    chat_id: String(chatId),
    kind: "private",
    title: null,
    username: null,
    member_count: null,
    can_post: true,
    problem: null,
    checked_at: new Date(now).toISOString(),
  };
}
