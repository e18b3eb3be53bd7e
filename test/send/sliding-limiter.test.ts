import { describe, expect, it } from "vitest";
import { SimulatedClock } from "../../src/clock/simulated-clock.js";
import { GLOBAL_PAUSE_CAP_MS, keyedWindowLimiter, slidingWindowLimiter } from "../../src/send/sliding-limiter.js";

/** Lets promise callbacks (a job's end, the limiter's next pump) run. */
const flush = () => new Promise<void>((r) => setImmediate(r));

/**
 * Schedules `n` jobs per chat on a simulated clock; each job takes `jobMs`
 * of simulated time. Records when each started and ended, in clock ms.
 */
async function run(chats: string[], n: number, opts: { jobMs?: number; pause?: { chat: string; ms: number } } = {}) {
  const clock = new SimulatedClock(0);
  const limiter = slidingWindowLimiter(clock);
  const jobMs = opts.jobMs ?? 10;
  const spans: Array<{ chat: string; start: number; end: number }> = [];
  const jobs = chats.flatMap((chat) =>
    Array.from({ length: n }, (_, i) =>
      limiter.schedule(chat, async () => {
        const start = clock.now();
        if (opts.pause && i === 0 && chat === opts.pause.chat) limiter.pause(chat, opts.pause.ms);
        await new Promise<void>((r) => clock.setTimeout(r, jobMs));
        spans.push({ chat, start, end: clock.now() });
      }),
    ),
  );
  let done = false;
  void Promise.all(jobs).then(() => (done = true));
  for (let step = 0; !done; step++) {
    if (step > 100_000) throw new Error("the limiter never finished");
    await clock.advance(jobMs, flush);
    await flush();
  }
  await limiter.stop();
  return spans;
}

describe("slidingWindowLimiter", () => {
  it("starts a chat's next send a full second after the previous one ended", async () => {
    const spans = await run(["100"], 5);
    for (let i = 1; i < spans.length; i++) expect(spans[i]!.start - spans[i - 1]!.end).toBeGreaterThanOrEqual(1000);
    // ...and not much later: the window, not a slower pace, is what holds it.
    expect(spans[4]!.start - spans[3]!.end).toBeLessThanOrEqual(1000 + 10);
  });

  it("lets a group burst up to 20 a minute, then waits for the window to slide", async () => {
    const spans = await run(["-100"], 22);
    const first = spans[0]!;
    expect(spans[19]!.start - first.end).toBeLessThan(60_000);
    expect(spans[20]!.start - first.end).toBeGreaterThanOrEqual(60_000);
  });

  it("keeps 30 a second overall across chats", async () => {
    const chats = Array.from({ length: 40 }, (_, i) => String(1000 + i));
    const spans = await run(chats, 1);
    const sorted = spans.sort((a, b) => a.start - b.start);
    expect(sorted[29]!.start - sorted[0]!.start).toBeLessThan(1000);
    expect(sorted[30]!.start - sorted[0]!.end).toBeGreaterThanOrEqual(1000);
  });

  it("holds every chat after a 429 (its cause is not told)", async () => {
    const spans = await run(["1", "2"], 2, { pause: { chat: "1", ms: 5000 } });
    const first = spans.find((s) => s.chat === "1")!;
    const later = spans.filter((x) => x.start > first.start);
    expect(later.length).toBeGreaterThan(0);
    for (const s of later) expect(s.start - first.start).toBeGreaterThanOrEqual(5000);
  });

  it("drops waiting jobs when stopped", async () => {
    const clock = new SimulatedClock(0);
    const limiter = slidingWindowLimiter(clock);
    const first = limiter.schedule("1", async () => "sent");
    const second = limiter.schedule("1", async () => "sent");
    await expect(first).resolves.toBe("sent");
    await limiter.stop();
    await expect(second).rejects.toThrow(/stopped/);
  });

  it("a long retry_after on one chat holds it back the whole time, the other chats only GLOBAL_PAUSE_CAP_MS (issue 32, D7)", async () => {
    const spans = await run(["-1001", "-1002"], 2, { pause: { chat: "-1001", ms: 599_000 } });
    const first = spans.filter((s) => s.chat === "-1001");
    const other = spans.filter((s) => s.chat === "-1002");
    expect(first[1]!.start - first[0]!.start).toBeGreaterThanOrEqual(599_000);
    expect(Math.max(...other.map((s) => s.start))).toBeLessThanOrEqual(GLOBAL_PAUSE_CAP_MS + 2_000);
  });
});

describe("keyedWindowLimiter: a job that says its call was answered", () => {
  /** Two jobs on `key`: each answers after `callMs`, then works on for `afterMs` (its fsync). Clock ms of their starts and answers. */
  async function twoJobs(windows: { max: number; lengthMs: number }[], opts: { callMs: number; afterMs: number; answer: boolean }) {
    const clock = new SimulatedClock(0);
    const limiter = keyedWindowLimiter(clock, { global: null, windowsFor: () => windows, pauseCapMs: 0 });
    const wait = (ms: number) => new Promise<void>((r) => clock.setTimeout(r, ms));
    const spans: Array<{ start: number; answered: number }> = [];
    const job = () =>
      limiter.schedule("slack:C1", async (answered) => {
        const start = clock.now();
        await wait(opts.callMs);
        if (opts.answer) answered?.();
        spans.push({ start, answered: clock.now() });
        await wait(opts.afterMs);
      });
    let done = false;
    void Promise.all([job(), job()]).then(() => (done = true));
    for (let step = 0; !done; step++) {
      if (step > 10_000) throw new Error("the limiter never finished");
      await clock.advance(5, flush);
      await flush();
    }
    await limiter.stop();
    return spans;
  }

  it("counts the window from the answer, not from the work done after it", async () => {
    const [first, second] = await twoJobs([{ max: 1, lengthMs: 1000 }], { callMs: 20, afterMs: 300, answer: true });
    expect(second!.start - first!.answered).toBeGreaterThanOrEqual(1000);
    // Not 300 ms later: the outcome's fsync after the answer no longer holds the next send back.
    expect(second!.start - first!.answered).toBeLessThan(1000 + 50);
  });

  it("counts from the job's end when the work never says its call was answered (a lost answer)", async () => {
    const [first, second] = await twoJobs([{ max: 1, lengthMs: 1000 }], { callMs: 20, afterMs: 300, answer: false });
    expect(second!.start - (first!.answered + 300)).toBeGreaterThanOrEqual(1000);
  });
});
