/**
 * 1. Drain efficiency: N approved drafts on disk, M destinations (private
 * chats and groups), drained through the real send path (SendPath, the
 * limiter, telegramSendCall, grammY) against the double with Telegram's
 * limits on. Telegram's clock and ours run `scale` times faster together.
 * The drain starts as a restart would start it (resumeDrafts) and ends when
 * the double has accepted the last message.
 */
import { apiThrottler } from "@grammyjs/transformer-throttler";
import { Api } from "grammy";
import { resumeDrafts } from "../src/desk/recovery.js";
import { systemClock } from "../src/clock/clock.js";
import { unlimited, type DestinationLimiter } from "../src/send/limiter.js";
import { bottleneckLimiter, TELEGRAM_LIMITS } from "./bottleneck-limiter.js";
import { startTelegramDouble, type ChatConfig, type TelegramDouble } from "../test/telegram-double/index.js";
import { approve, holdEverything, openBenchCore, submitPending, waitForSends } from "./core-fixture.js";
import { permittedSpanMs, type Destination } from "./permitted.js";
import { slidingWindowLimiter } from "../src/send/sliding-limiter.js";
import { benchConfig, OWNER, scaledClock, silentLogger, tempDir } from "./support.js";

/** Which limiting runs in front of sendMessage. */
export type DrainVariant = "ours" | "throttler" | "bottleneck";

/** A named set of destinations with how many drafts each gets. */
export interface Workload {
  readonly name: string;
  readonly destinations: readonly Destination[];
}

/** What one drain came to, in Telegram time. */
export interface DrainResult {
  readonly drafts: number;
  /** Accepted by the double; fewer than `drafts` when the drain did not finish in time. */
  readonly sent: number;
  readonly complete: boolean;
  readonly spanMs: number;
  readonly permittedSpanMs: number;
  readonly tooManyRequests: number;
}

/** Achieved send rate over the rate the limits permit for this workload (sent/elapsed vs drafts/permitted span). */
export function efficiency(r: DrainResult): number {
  return r.sent / r.spanMs / (r.drafts / r.permittedSpanMs);
}

/** `privates` private chats and `groups` supergroups, `each` drafts per destination. */
export function workload(name: string, privates: number, groups: number, each: number): Workload {
  const destinations: Destination[] = [];
  for (let i = 0; i < privates; i++) destinations.push({ chatId: 10_000_001 + i, count: each });
  for (let i = 0; i < groups; i++) destinations.push({ chatId: -1_001_000_000_001 - i, count: each });
  return { name, destinations };
}

/**
 * @grammyjs/transformer-throttler's defaults (its source, v1.2.1), every
 * interval divided by `scale`, Bottleneck's 250 ms reservoir heartbeat too.
 */
export function throttlerDefaults(scale: number) {
  const heartbeatInterval = Math.max(1, Math.round(250 / scale));
  return {
    global: { reservoir: 30, reservoirRefreshAmount: 30, reservoirRefreshInterval: 1000 / scale, heartbeatInterval },
    group: {
      maxConcurrent: 1,
      minTime: 1000 / scale,
      reservoir: 20,
      reservoirRefreshAmount: 20,
      reservoirRefreshInterval: 60_000 / scale,
      heartbeatInterval,
    },
    out: { maxConcurrent: 1, minTime: 1000 / scale },
  };
}

/** The drafts of a workload, interleaved across destinations as they would arrive. */
function interleaved(w: Workload): number[] {
  const out: number[] = [];
  const max = Math.max(...w.destinations.map((d) => d.count));
  for (let k = 0; k < max; k++) for (const d of w.destinations) if (k < d.count) out.push(d.chatId);
  return out;
}

function chatsOf(w: Workload): ChatConfig[] {
  return [
    { id: OWNER, type: "private", firstName: "Owner" },
    ...w.destinations.map((d): ChatConfig => (d.chatId < 0 ? { id: d.chatId, type: "supergroup" } : { id: d.chatId, type: "private" })),
  ];
}

function limiterFor(variant: DrainVariant, scale: number): DestinationLimiter {
  if (variant === "ours") return slidingWindowLimiter(systemClock(), scale);
  if (variant === "bottleneck") return bottleneckLimiter(TELEGRAM_LIMITS, scale);
  return unlimited();
}

/** Phase 1: every draft of the workload submitted, posted and approved, none sent (held). */
async function prepareApproved(harnessDir: string, double: TelegramDouble, chatIds: readonly number[]): Promise<void> {
  const config = benchConfig(harnessDir, double);
  const api = new Api(double.token, { apiRoot: double.url });
  const core = await openBenchCore(config, silentLogger(), { api, limiter: holdEverything, clock: scaledClock(1) });
  try {
    const reviewIds = await submitPending(core, chatIds);
    for (let from = 0; from < reviewIds.length; from += 200) {
      await Promise.all(reviewIds.slice(from, from + 200).map((id) => approve(core, id)));
    }
    await core.desk.settle();
  } finally {
    await core.close();
  }
}

/** Clean-ups of runs that did not finish, still closing in the background. */
const closing = new Set<Promise<void>>();

/** Waits (at most `ms`) for unfinished runs to close and remove their temp dirs. */
export async function drainCleanups(ms: number): Promise<void> {
  await Promise.race([Promise.allSettled([...closing]), new Promise((r) => setTimeout(r, ms).unref())]);
}

/** One drain of `w` through `variant` at `scale`. */
export async function drainOnce(w: Workload, variant: DrainVariant, scale: number): Promise<DrainResult> {
  const chatIds = interleaved(w);
  const double = await startTelegramDouble({ chats: chatsOf(w), users: [{ id: OWNER, firstName: "Owner" }] });
  const tmp = await tempDir("drain");
  await prepareApproved(tmp.dir, double, chatIds);
  double.setRateLimits({ timeScale: 1 / scale });
  const api = new Api(double.token, { apiRoot: double.url });
  // Innermost: once the run is over, calls still queued (in a throttler) fail at once instead of going out.
  let over = false;
  api.config.use((prev, method, payload, signal) =>
    over ? Promise.reject(new Error("the benchmark run is over")) : prev(method, payload, signal),
  );
  if (variant === "throttler") api.config.use(apiThrottler(throttlerDefaults(scale)));
  const config = benchConfig(tmp.dir, double);
  const core = await openBenchCore(config, silentLogger(), { api, limiter: limiterFor(variant, scale), clock: scaledClock(scale) });
  const permitted = permittedSpanMs(w.destinations);
  const done = waitForSends(double, new Set(chatIds.map(String)), chatIds.length, (permitted / scale) * 1.5 + 5_000);
  const t0 = Date.now();
  await resumeDrafts(core.desk);
  const seen = await done;
  over = true;
  const result: DrainResult = {
    drafts: chatIds.length,
    sent: seen.sent,
    complete: seen.complete,
    spanMs: (seen.at - t0) * scale,
    permittedSpanMs: permitted,
    tooManyRequests: double.tooManyRequestsCount,
  };
  // A run that did not finish has drafts queued in limiters; closing waits for them, so it is left to finish alone.
  // biome-ignore lint/nursery/noMisusedPromises: finally() waits for the promise its callback returns.
  const closed = core.close().finally(async () => {
    await double.stop();
    await tmp.remove();
  });
  if (seen.complete) await closed;
  else {
    closing.add(closed);
    void closed.catch(() => {}).finally(() => closing.delete(closed));
  }
  return result;
}
