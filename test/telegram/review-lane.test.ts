import { describe, expect, it } from "vitest";
import { SimulatedClock } from "../../src/clock/simulated-clock.js";
import { LANE, PRIVATE_REVIEW_CHAT_LIMITS, ReviewLane, type Lane } from "../../src/telegram/review-lane.js";
import { T0 } from "../support/drafts.js";

/** A lane at a private chat's pace (1 call a second) on a simulated clock, recording when each call is made. */
function paced() {
  const clock = new SimulatedClock(T0);
  const lane = new ReviewLane(clock, PRIVATE_REVIEW_CHAT_LIMITS);
  const calls: Array<{ name: string; at: number }> = [];
  /** A job of one call in `which` lane. */
  const call = (which: Lane, name: string) =>
    lane.run(which, async (turn) => {
      await turn();
      calls.push({ name, at: clock.now() - T0 });
    });
  /** Moves the clock, letting each call finish before the next timer (the job started last too). */
  const advance = async (ms: number) => {
    await lane.whenIdle();
    await clock.advance(ms, () => lane.whenIdle());
  };
  return { clock, lane, calls, call, advance };
}

describe("the review lane's priorities (contract v4: decisions before posts, an Undo ends before one starts)", () => {
  it("serves the end of an offer of Undo, then answers, then edits that start one, then notices, then posts; each FIFO", async () => {
    const { calls, call, advance } = paced();
    // A post goes at once (nothing waits); everything else queues behind it at one call a second.
    const jobs = [
      call(LANE.post, "post 1"),
      call(LANE.post, "post 2"),
      call(LANE.notice, "notice"),
      call(LANE.edit, "start A"),
      call(LANE.edit, "start B"),
      call(LANE.answer, "answer"),
      call(LANE.end, "end A"),
      call(LANE.end, "end B"),
    ];
    await advance(10_000);
    await Promise.all(jobs);
    expect(calls.map((c) => c.name)).toEqual(["post 1", "end A", "end B", "answer", "start A", "start B", "notice", "post 2"]);
    // One call a second, never closer.
    expect(calls.map((c) => c.at)).toEqual([0, 1000, 2000, 3000, 4000, 5000, 6000, 7000]);
  });

  it("an end of an Undo queued while starts wait overtakes them all: it waits for the call in flight and the gap only", async () => {
    const { calls, call, advance } = paced();
    const starts = Array.from({ length: 8 }, (_, i) => call(LANE.edit, `start ${i}`));
    await advance(2_500);
    const end = call(LANE.end, "end 0");
    await advance(10_000);
    await Promise.all([...starts, end]);
    const at = (name: string) => calls.find((c) => c.name === name)!.at;
    expect(calls.slice(0, 3).map((c) => c.name)).toEqual(["start 0", "start 1", "start 2"]);
    expect(at("end 0")).toBe(3000);
    expect(at("start 3")).toBe(4000);
  });

  it("a job that makes no call (its edit was shown already) costs no gap: the next call goes when it would have", async () => {
    const { calls, call, lane, advance } = paced();
    const first = call(LANE.end, "edit");
    const skipped = lane.run(LANE.end, async () => "nothing to do");
    const next = call(LANE.end, "next edit");
    // Had the empty job started a gap of its own, the next call would wait until 2000.
    await advance(1_000);
    await Promise.all([first, skipped, next]);
    expect(await skipped).toBe("nothing to do");
    expect(calls).toEqual([
      { name: "edit", at: 0 },
      { name: "next edit", at: 1000 },
    ]);
  });

  it("settlesWithin: true once the work settles, false once the time is up, whichever is first", async () => {
    const { clock, lane } = paced();
    let resolve!: () => void;
    const slow = new Promise<void>((r) => (resolve = r));
    const fast = lane.settlesWithin(Promise.reject(new Error("refused")), 2_000);
    expect(await fast).toBe(true);
    const timedOut = lane.settlesWithin(slow, 2_000);
    await clock.advance(2_000);
    expect(await timedOut).toBe(false);
    const inTime = lane.settlesWithin(slow, 2_000);
    resolve();
    expect(await inTime).toBe(true);
  });
});

describe("what the explorer and a stop read of the lane", () => {
  it("waitsOnClock once its work waits for a turn; hasWaiting by lane", async () => {
    const { lane, call, advance } = paced();
    expect(lane.waitsOnClock).toBe(false);
    const jobs = [call(LANE.post, "post"), call(LANE.answer, "answer"), call(LANE.post, "post 2")];
    await lane.whenIdle();
    expect(lane.waitsOnClock).toBe(true);
    expect(lane.hasWaiting([LANE.end, LANE.answer])).toBe(true);
    await advance(1_000);
    expect(lane.hasWaiting([LANE.end, LANE.answer])).toBe(false);
    expect(lane.hasWaiting([LANE.post])).toBe(true);
    await advance(1_000);
    await Promise.all(jobs);
    expect(lane.waitsOnClock).toBe(false);
  });

  it("hasWaiting counts the running job of a lane while a 429's retry_after holds it back", async () => {
    const { clock, lane, calls, advance } = paced();
    const answer = lane.run(LANE.answer, async (turn) => {
      await turn();
      calls.push({ name: "refused with 429", at: clock.now() - T0 });
      lane.pause(5_000); // as PacedCalls does with Telegram's retry_after
      await turn();
      calls.push({ name: "answer", at: clock.now() - T0 });
    });
    await lane.whenIdle();
    expect(lane.hasWaiting([LANE.end, LANE.answer])).toBe(true);
    expect(lane.hasWaiting([LANE.post])).toBe(false);
    await advance(5_000);
    await answer;
    expect(calls.map((c) => c.name)).toEqual(["refused with 429", "answer"]);
    expect(lane.hasWaiting([LANE.end, LANE.answer])).toBe(false);
  });
});
