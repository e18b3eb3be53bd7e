import { describe, expect, it } from "vitest";
import { localWhen, localWhenRelative } from "../../src/owner/local-time.js";

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
