import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { atLocalTime, startSchedule } from "../../src/clock/schedule.js";
import { SimulatedClock } from "../../src/clock/simulated-clock.js";
import { lastLocalTime, nextLocalTime, sameLocalDay, startOfLocalDay, type LocalTime } from "../../src/clock/local-time.js";

const H = 3_600_000;
const tick = () => new Promise<void>((r) => setImmediate(r));

/** A local time on 2030-01-02 (a Wednesday), whatever the process's TZ. */
const local = (hour: number, minute = 0) => new Date(2030, 0, 2, hour, minute).getTime();

describe("local times of day and week", () => {
  it("the next one is later today when the hour is still to come, else tomorrow, at :00 local time", () => {
    expect(nextLocalTime(local(7, 30), { hour: 8 })).toBe(local(8));
    expect(nextLocalTime(local(8), { hour: 8 })).toBe(new Date(2030, 0, 3, 8).getTime());
    expect(nextLocalTime(local(23, 59), { hour: 0 })).toBe(new Date(2030, 0, 3, 0).getTime());
    expect(new Date(nextLocalTime(local(9), { hour: 8 })).getHours()).toBe(8);
    expect(lastLocalTime(local(8), { hour: 8 })).toBe(local(8));
    expect(lastLocalTime(local(7, 59), { hour: 8 })).toBe(new Date(2030, 0, 1, 8).getTime());
  });

  it("on a weekday: this week's when it has come, else the one before; the next one within seven days", () => {
    // 2030-01-02 is a Wednesday (3).
    expect(lastLocalTime(local(10), { hour: 9, weekday: 3 })).toBe(local(9));
    expect(lastLocalTime(local(8), { hour: 9, weekday: 3 })).toBe(new Date(2029, 11, 26, 9).getTime());
    expect(lastLocalTime(local(8), { hour: 9, weekday: 1 })).toBe(new Date(2029, 11, 31, 9).getTime());
    expect(nextLocalTime(local(8), { hour: 9, weekday: 3 })).toBe(local(9));
    expect(nextLocalTime(local(9), { hour: 9, weekday: 3 })).toBe(new Date(2030, 0, 9, 9).getTime());
    expect(nextLocalTime(local(9), { hour: 9, weekday: 5 })).toBe(new Date(2030, 0, 4, 9).getTime());
  });

  it("startOfLocalDay is local midnight; sameLocalDay compares calendar days", () => {
    expect(startOfLocalDay(local(15, 45))).toBe(local(0));
    expect(sameLocalDay(local(0), local(23, 59))).toBe(true);
    expect(sameLocalDay(local(23, 59), local(23, 59) + 60_000)).toBe(false);
  });
});

describe("the scheduler", () => {
  it("runs once a day at a local hour on the injected clock, and stops", async () => {
    const clock = new SimulatedClock(local(7, 30));
    const ran: number[] = [];
    const schedule = startSchedule({
      clock,
      next: atLocalTime({ hour: 8 }),
      run: async (due) => void ran.push(due),
      onError: () => {},
    });
    expect(schedule.nextAt).toBe(local(8));
    await clock.advance(29 * 60_000, tick);
    expect(ran).toEqual([]);
    await clock.advance(60_000, tick);
    expect(ran).toEqual([local(8)]);
    await clock.advance(48 * H, tick);
    expect(ran.map((t) => new Date(t).getHours())).toEqual([8, 8, 8]);
    expect(ran[2]! - ran[1]!).toBe(24 * H);
    await schedule.stop();
    await clock.advance(48 * H, tick);
    expect(ran).toHaveLength(3);
  });

  it("tells of a failed run and still runs the next day", async () => {
    const clock = new SimulatedClock(local(9));
    const errors: number[] = [];
    let calls = 0;
    const schedule = startSchedule({
      clock,
      next: atLocalTime({ hour: 8 }),
      run: async () => {
        calls++;
        if (calls === 1) throw new Error("Telegram is down");
      },
      onError: (_err, due) => void errors.push(due),
    });
    await clock.advance(48 * H, tick);
    expect(calls).toBe(2);
    expect(errors).toEqual([new Date(2030, 0, 3, 8).getTime()]);
    await schedule.stop();
  });

  it("does `first` before arming, never two runs at once, and asks `next` again on rearm", async () => {
    const clock = new SimulatedClock(local(7));
    const log: string[] = [];
    let release: () => void = () => {};
    let target: number | null = null;
    const schedule = startSchedule({
      clock,
      next: (now) => (target !== null && target > now ? target : null),
      first: () =>
        new Promise<void>((r) => {
          release = () => {
            log.push("first");
            r();
          };
        }),
      run: async (due) => void log.push(`run ${new Date(due).getHours()}`),
      onError: () => {},
    });
    expect(schedule.nextAt).toBeNull();
    target = local(8);
    schedule.rearm(); // ignored while `first` runs: it arms when it ends
    await clock.advance(2 * H, tick);
    expect(log).toEqual([]);
    release();
    await schedule.idle();
    await tick();
    expect(schedule.nextAt).toBeNull(); // 08:00 has passed on the clock (09:00)
    target = local(10);
    schedule.rearm();
    expect(schedule.nextAt).toBe(local(10));
    await clock.advance(2 * H, tick);
    expect(log).toEqual(["first", "run 10"]);
    await schedule.stop();
  });
});

describe("the scheduler across daylight-saving nights (Europe/Berlin)", () => {
  let tz: string | undefined;
  beforeEach(() => {
    tz = process.env.TZ;
    process.env.TZ = "Europe/Berlin";
  });
  afterEach(() => {
    process.env.TZ = tz;
  });

  /** Runs a daily 08:00 (and a Monday 09:00) schedule from `startIso` for `days` days; returns the runs as UTC ISO times. */
  async function runs(startIso: string, days: number, at: LocalTime): Promise<string[]> {
    const clock = new SimulatedClock(Date.parse(startIso));
    const ran: string[] = [];
    const schedule = startSchedule({
      clock,
      next: atLocalTime(at),
      run: async (due) => void ran.push(new Date(due).toISOString()),
      onError: () => {},
    });
    for (let d = 0; d < days; d++) await clock.advance(24 * H, tick);
    await schedule.stop();
    return ran;
  }

  it("spring forward (29 March 2026): 08:00 local every day, 23 hours apart across the night", async () => {
    expect(await runs("2026-03-27T12:00:00Z", 4, { hour: 8 })).toEqual([
      "2026-03-28T07:00:00.000Z", // 08:00 CET
      "2026-03-29T06:00:00.000Z", // 08:00 CEST
      "2026-03-30T06:00:00.000Z",
      "2026-03-31T06:00:00.000Z",
    ]);
  });

  it("fall back (25 October 2026): 08:00 local every day, once, 25 hours apart across the night", async () => {
    expect(await runs("2026-10-23T12:00:00Z", 4, { hour: 8 })).toEqual([
      "2026-10-24T06:00:00.000Z", // 08:00 CEST
      "2026-10-25T07:00:00.000Z", // 08:00 CET
      "2026-10-26T07:00:00.000Z",
      "2026-10-27T07:00:00.000Z",
    ]);
  });

  it("an hour the night skips comes an hour late that day, once; an hour it repeats runs once", async () => {
    expect(await runs("2026-03-28T12:00:00Z", 2, { hour: 2, minute: 30 })).toEqual([
      "2026-03-29T01:30:00.000Z", // 02:30 does not exist: 03:30 CEST
      "2026-03-30T00:30:00.000Z", // 02:30 CEST
    ]);
    const repeated = await runs("2026-10-24T12:00:00Z", 2, { hour: 2 });
    expect(repeated).toHaveLength(2);
    expect(repeated[0]).toMatch(/^2026-10-25T0[01]:00:00.000Z$/);
    expect(repeated[1]).toBe("2026-10-26T01:00:00.000Z");
  });

  it("a weekly Monday 09:00 is 167 hours after the one before across spring forward", async () => {
    const ran = await runs("2026-03-20T12:00:00Z", 14, { hour: 9, weekday: 1 });
    expect(ran).toEqual(["2026-03-23T08:00:00.000Z", "2026-03-30T07:00:00.000Z"]);
  });
});
