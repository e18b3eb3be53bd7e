import { describe, expect, it } from "vitest";
import { digestCounts, digestText } from "../../src/owner/digest-text.js";
import type { DraftStatus } from "../../src/drafts/status.js";

const NOW = Date.parse("2030-01-02T08:00:00Z");
const H = 3_600_000;
const at = (hoursAgo: number) => new Date(NOW - hoursAgo * H).toISOString();
const d = (role: "Scribe" | "CoS" | "Margot", status: DraftStatus, hoursAgo: number) => ({
  drafted_by_role: role,
  status,
  updated_at: at(hoursAgo),
});

describe("digestCounts", () => {
  it("counts per role what became final in the last 24h, and what waits now", () => {
    const rows = digestCounts(
      [
        d("Scribe", "sent", 1),
        d("Scribe", "sent", 23.9),
        d("Scribe", "sent", 24.1), // before the window
        d("Scribe", "revise", 2),
        d("Scribe", "pending", 30), // waits, however old
        d("Scribe", "queued", 0.1),
        d("CoS", "expired", 5),
        d("CoS", "failed", 6),
        d("CoS", "outcome_unknown", 7),
        d("CoS", "deferred", 8),
        d("CoS", "halted", 9),
        d("CoS", "approved", 0.1), // on its way out: neither final nor waiting for the owner
      ],
      NOW,
      24 * H,
    );
    expect(rows).toEqual([
      { role: "Scribe", sent: 2, revised: 1, expired: 0, failed: 0, outcome_unknown: 0, partly_sent: 0, waiting: 2 },
      { role: "CoS", sent: 0, revised: 0, expired: 1, failed: 1, outcome_unknown: 1, partly_sent: 0, waiting: 2 },
      { role: "Margot", sent: 0, revised: 0, expired: 0, failed: 0, outcome_unknown: 0, partly_sent: 0, waiting: 0 },
    ]);
  });
});

describe("digestText", () => {
  it("has one line per role, the total waiting, and the kill switch when it halts", () => {
    const rows = digestCounts([d("Scribe", "sent", 1), d("Scribe", "pending", 2), d("CoS", "outcome_unknown", 3)], NOW, 24 * H);
    const text = digestText(rows, NOW, { halted: true, reason: "TAO_SWARM_ENABLED=0 in .env" });
    const lines = text.split("\n");
    expect(lines[0]).toMatch(/^🗞 Daily digest: the last 24h, to \d{4}-\d\d-\d\d \d\d:\d\d$/);
    expect(lines.slice(1)).toEqual([
      "Scribe: 1 sent · 0 revised · 0 expired · 0 failed · 1 waiting",
      "CoS: 0 sent · 0 revised · 0 expired · 0 failed · 1 outcome unknown · 0 waiting",
      "Margot: nothing",
      "1 draft still waits for you: /pending lists them.",
      "An outcome_unknown draft may or may not have reached its chat: check there before drafting it again.",
      "⛔ Sends HALTED: TAO_SWARM_ENABLED=0 in .env",
    ]);
  });

  it("counts a draft sent to some of its destinations as partly sent (issue 34)", () => {
    const text = digestText(digestCounts([d("Margot", "partly_sent", 1)], NOW, 24 * H), NOW, { halted: false });
    expect(text.split("\n")[3]).toBe("Margot: 0 sent · 1 partly sent · 0 revised · 0 expired · 0 failed · 0 waiting");
  });

  it("says so when nothing waits, and leaves out an enabled kill switch", () => {
    const text = digestText(digestCounts([], NOW, 24 * H), NOW, { halted: false });
    expect(text.split("\n").slice(1)).toEqual(["Scribe: nothing", "CoS: nothing", "Margot: nothing", "Nothing waits for you."]);
  });
});
