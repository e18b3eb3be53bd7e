import { describe, expect, it } from "vitest";
import { SimulatedClock } from "../../src/clock/simulated-clock.js";
import { scheduleDigest } from "../../src/owner/digest-schedule.js";
import { nextLocalHour, startOfLocalDay } from "../../src/owner/local-time.js";

const H = 3_600_000;

/** A local time on 2030-01-02, whatever the process's TZ. */
const local = (hour: number, minute = 0) => new Date(2030, 0, 2, hour, minute).getTime();

describe("nextLocalHour", () => {
  it("is later today when the hour is still to come, else tomorrow, at :00 local time", () => {
    expect(nextLocalHour(local(7, 30), 8)).toBe(local(8));
    expect(nextLocalHour(local(8), 8)).toBe(new Date(2030, 0, 3, 8).getTime());
    expect(nextLocalHour(local(23, 59), 0)).toBe(new Date(2030, 0, 3, 0).getTime());
    expect(new Date(nextLocalHour(local(9), 8)).getHours()).toBe(8);
  });

  it("startOfLocalDay is local midnight", () => {
    expect(startOfLocalDay(local(15, 45))).toBe(local(0));
  });
});

describe("scheduleDigest", () => {
  it("posts once a day at DIGEST_HOUR on the injected clock, and stops", async () => {
    const clock = new SimulatedClock(local(7, 30));
    const sent: number[] = [];
    const schedule = scheduleDigest({ clock, hour: 8, log: { error: () => {} }, send: async () => void sent.push(clock.now()) });
    expect(schedule.nextAt).toBe(local(8));
    await clock.advance(29 * 60_000);
    expect(sent).toEqual([]);
    await clock.advance(60_000, () => new Promise((r) => setImmediate(r)));
    expect(sent).toEqual([local(8)]);
    await clock.advance(48 * H, () => new Promise((r) => setImmediate(r)));
    expect(sent.map((t) => new Date(t).getHours())).toEqual([8, 8, 8]);
    expect(sent[2]! - sent[1]!).toBe(24 * H);
    await schedule.stop();
    await clock.advance(48 * H);
    expect(sent).toHaveLength(3);
  });

  it("logs a failed digest and still posts the next day", async () => {
    const clock = new SimulatedClock(local(9));
    const errors: string[] = [];
    let calls = 0;
    const schedule = scheduleDigest({
      clock,
      hour: 8,
      log: { error: (_o, msg) => void errors.push(msg) },
      send: async () => {
        calls++;
        if (calls === 1) throw new Error("Telegram is down");
      },
    });
    await clock.advance(48 * H, () => new Promise((r) => setImmediate(r)));
    expect(calls).toBe(2);
    expect(errors).toEqual(["could not post the daily digest; the next one is due tomorrow"]);
    await schedule.stop();
  });
});
