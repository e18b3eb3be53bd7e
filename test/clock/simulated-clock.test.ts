import { describe, expect, it } from "vitest";
import { SimulatedClock } from "../../src/clock/simulated-clock.js";

describe("SimulatedClock", () => {
  it("stands still until advanced", () => {
    const clock = new SimulatedClock(1_000);
    expect(clock.now()).toBe(1_000);
    expect(clock.now()).toBe(1_000);
  });

  it("fires due timers in time order, with now() at each one's due time", async () => {
    const clock = new SimulatedClock(0);
    const fired: Array<[string, number]> = [];
    clock.setTimeout(() => fired.push(["late", clock.now()]), 300);
    clock.setTimeout(() => fired.push(["early", clock.now()]), 100);
    clock.setTimeout(() => fired.push(["same time, set later", clock.now()]), 100);
    clock.setTimeout(() => fired.push(["not yet", clock.now()]), 501);
    await clock.advance(500);
    expect(fired).toEqual([
      ["early", 100],
      ["same time, set later", 100],
      ["late", 300],
    ]);
    expect(clock.now()).toBe(500);
    await clock.advance(1);
    expect(fired.at(-1)).toEqual(["not yet", 501]);
  });

  it("fires a timer set by a timer when it falls due within the same advance", async () => {
    const clock = new SimulatedClock(0);
    const fired: number[] = [];
    clock.setTimeout(() => {
      fired.push(clock.now());
      clock.setTimeout(() => fired.push(clock.now()), 50);
    }, 100);
    await clock.advance(200);
    expect(fired).toEqual([100, 150]);
  });

  it("never fires a cleared timer; a negative delay means now", async () => {
    const clock = new SimulatedClock(0);
    const fired: string[] = [];
    const handle = clock.setTimeout(() => fired.push("cleared"), 10);
    clock.setTimeout(() => fired.push("now"), -5);
    clock.clearTimeout(handle);
    await clock.advance(0);
    expect(fired).toEqual(["now"]);
    await clock.advance(100);
    expect(fired).toEqual(["now"]);
  });

  it("awaits settle between timers, so work a timer started completes first", async () => {
    const clock = new SimulatedClock(0);
    const log: string[] = [];
    clock.setTimeout(() => void Promise.resolve().then(() => log.push("work of the first")), 10);
    clock.setTimeout(() => log.push("second"), 20);
    await clock.advance(30, async () => {
      await new Promise<void>((r) => setImmediate(r));
    });
    expect(log).toEqual(["work of the first", "second"]);
  });

  // Issue 19 row 12: a huge move is a caller's bug, refused at once, never a loop that runs for ever.
  it("refuses a move past the latest Date at once, firing nothing, and keeps working after", async () => {
    const clock = new SimulatedClock(0);
    let fired = 0;
    const daily = () => {
      fired++;
      clock.setTimeout(daily, 86_400_000);
    };
    clock.setTimeout(daily, 86_400_000);
    await expect(clock.advance(100_000_001 * 86_400_000)).rejects.toThrow(RangeError);
    await expect(clock.advance(Number.POSITIVE_INFINITY)).rejects.toThrow(RangeError);
    expect(fired).toBe(0);
    expect(clock.now()).toBe(0);
    await clock.advance(3 * 86_400_000);
    expect(fired).toBe(3);
  });
});
