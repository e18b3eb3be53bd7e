import { describe, expect, it } from "vitest";
import { slidingWindowLimiter } from "../../src/send/sliding-limiter.js";

/** Schedules `n` jobs per chat and records when each started and ended (performance.now()). */
async function run(scale: number, chats: string[], n: number, pause?: { chat: string; ms: number }) {
  const limiter = slidingWindowLimiter(scale);
  const spans: Array<{ chat: string; start: number; end: number }> = [];
  const jobs = chats.flatMap((chat) =>
    Array.from({ length: n }, (_, i) =>
      limiter.schedule(chat, async () => {
        const start = performance.now();
        if (pause && i === 0 && chat === pause.chat) limiter.pause(chat, pause.ms);
        await new Promise((r) => setTimeout(r, 1));
        spans.push({ chat, start, end: performance.now() });
      }),
    ),
  );
  await Promise.all(jobs);
  await limiter.stop();
  return spans;
}

describe("slidingWindowLimiter", () => {
  it("starts a chat's next send a full window after the previous one ended", async () => {
    const spans = await run(50, ["100"], 5); // 1 s per chat -> 20 ms
    for (let i = 1; i < spans.length; i++) expect(spans[i]!.start - spans[i - 1]!.end).toBeGreaterThanOrEqual(19);
  });

  it("lets a group burst up to 20 a minute, then waits for the window to slide", async () => {
    const spans = await run(200, ["-100"], 22); // 60 s -> 300 ms; 1 s -> 5 ms
    const first = spans[0]!;
    expect(spans[20]!.start - first.end).toBeGreaterThanOrEqual(299);
  });

  it("keeps 30 a second overall across chats", async () => {
    const chats = Array.from({ length: 40 }, (_, i) => String(1000 + i));
    const spans = await run(20, chats, 1); // 1 s -> 50 ms
    const sorted = spans.sort((a, b) => a.start - b.start);
    expect(sorted[30]!.start - sorted[0]!.end).toBeGreaterThanOrEqual(49);
  });

  it("holds every chat after a 429 (its cause is not told)", async () => {
    const spans = await run(10, ["1", "2"], 2, { chat: "1", ms: 1000 }); // pause 100 ms
    const first = spans.find((s) => s.chat === "1")!;
    for (const s of spans.filter((x) => x.start > first.start)) expect(s.start - first.start).toBeGreaterThanOrEqual(99);
  });
});
