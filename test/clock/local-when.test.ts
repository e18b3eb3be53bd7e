import { describe, expect, it } from "vitest";
import { absoluteTime, localWhen, localWhenRelative, timed, timeEntitiesIn, timeMark } from "../../src/clock/local-time.js";

const NOW = Date.parse("2026-11-30T22:30:00Z");

describe("times a person reads", () => {
  it("says today, tomorrow, yesterday, a weekday within a week, else the date, in the given zone", () => {
    expect(localWhen(Date.parse("2026-11-30T23:00:00Z"), NOW, "UTC")).toBe("today 23:00");
    expect(localWhen(Date.parse("2026-11-30T23:00:00Z"), NOW, "Europe/Berlin")).toBe("tomorrow 00:00");
    expect(localWhen(Date.parse("2026-11-29T08:05:00Z"), NOW, "UTC")).toBe("yesterday 08:05");
    expect(localWhen(Date.parse("2026-12-03T09:15:00Z"), NOW, "UTC")).toBe("Thu 3 Dec 09:15");
    expect(localWhen(Date.parse("2027-02-03T09:15:00Z"), NOW, "UTC")).toBe("3 Feb 2027 09:15");
  });

  it("adds how far away it is", () => {
    expect(localWhenRelative(Date.parse("2026-12-01T21:30:00Z"), NOW, "UTC")).toBe("tomorrow 21:30, in 23 h");
    expect(localWhenRelative(Date.parse("2026-11-30T22:00:00Z"), NOW, "UTC")).toBe("today 22:00, 30 min ago");
  });

  it("counts calendar days across a DST change", () => {
    const before = Date.parse("2026-03-28T12:00:00Z");
    expect(localWhen(Date.parse("2026-03-29T12:00:00Z"), before, "Europe/Berlin")).toBe("tomorrow 14:00");
  });
});

describe("times that stay true (date_time entities, issue 25)", () => {
  it("an absolute time in the zone, the year only when it is not now's; seconds for T", () => {
    expect(absoluteTime(Date.parse("2026-12-01T21:30:00Z"), "r", "UTC", NOW)).toBe("Tue 1 Dec 21:30");
    expect(absoluteTime(Date.parse("2026-11-30T23:00:00Z"), "wdt", "Europe/Berlin", NOW)).toBe("Tue 1 Dec 00:00");
    expect(absoluteTime(Date.parse("2027-02-03T09:15:00Z"), "r", "UTC", NOW)).toBe("Wed 3 Feb 2027 09:15");
    expect(absoluteTime(Date.parse("2026-11-30T22:31:07.900Z"), "T", "Asia/Kolkata")).toBe("04:01:07");
  });

  it("a mark is that text under a date_time entity of whole seconds (truncated), at its UTF-16 offset", () => {
    const mark = timeMark(Date.parse("2026-12-01T21:30:00.999Z"), "r", "UTC", NOW);
    expect(mark).toEqual({ text: "Tue 1 Dec 21:30", unixTime: Date.parse("2026-12-01T21:30:00Z") / 1000, format: "r" });
    const t = timed("⏰ due ", mark, ".");
    expect(t.text).toBe("⏰ due Tue 1 Dec 21:30.");
    expect(t.entities).toEqual([{ type: "date_time", offset: 6, length: 15, unix_time: mark.unixTime, date_time_format: "r" }]);
    expect(timeEntitiesIn(t.text, [{ mark, before: "due " }])).toEqual(t.entities);
    expect(timeEntitiesIn(t.text, [{ mark, before: "sent at " }])).toEqual([]);
  });
});
