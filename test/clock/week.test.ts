import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { lastDue, nextDue, parseWeekday, weekBefore } from "../../src/clock/week.js";

const HOUR = 3_600_000;

describe("the weekly report's calendar (REPORT_DAY, 09:00 local)", () => {
  let tz: string | undefined;
  beforeEach(() => {
    tz = process.env.TZ;
    process.env.TZ = "Europe/Berlin";
  });
  afterEach(() => {
    process.env.TZ = tz;
  });

  it("reads weekdays as operators write them", () => {
    expect(parseWeekday("mon")).toBe("mon");
    expect(parseWeekday("Monday")).toBe("mon");
    expect(parseWeekday("WED")).toBe("wed");
    expect(parseWeekday("thurs")).toBe("thu");
    expect(parseWeekday("mo")).toBeNull();
    expect(parseWeekday("funday")).toBeNull();
  });

  it("a week across the spring-forward night is 167 hours, from 09:00 to 09:00 on the clock", () => {
    // Europe/Berlin moved from +01:00 to +02:00 on Sunday 29 March 2026, 02:00.
    const mondayAfter = Date.parse("2026-03-30T07:00:00Z"); // 09:00 CEST
    expect(lastDue(mondayAfter, "mon")).toBe(mondayAfter);
    expect(lastDue(mondayAfter - 1, "mon")).toBe(Date.parse("2026-03-23T08:00:00Z")); // 09:00 CET
    const week = weekBefore(mondayAfter);
    expect(week.sinceMs).toBe(Date.parse("2026-03-23T08:00:00Z"));
    expect((week.untilMs - week.sinceMs) / HOUR).toBe(167);
    expect(nextDue(Date.parse("2026-03-28T12:00:00Z"), "mon")).toBe(mondayAfter);
  });

  it("a week across the fall-back night is 169 hours", () => {
    // Back from +02:00 to +01:00 on Sunday 25 October 2026, 03:00.
    const due = Date.parse("2026-10-26T08:00:00Z"); // Monday 09:00 CET
    expect(nextDue(Date.parse("2026-10-24T20:00:00Z"), "mon")).toBe(due);
    const week = weekBefore(due);
    expect(week.sinceMs).toBe(Date.parse("2026-10-19T07:00:00Z"));
    expect((week.untilMs - week.sinceMs) / HOUR).toBe(169);
  });
});
