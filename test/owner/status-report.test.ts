import { describe, expect, it } from "vitest";
import { buildStatusReport, statusMessage, statusText } from "../../src/owner/status-report.js";

const noon = new Date(2030, 0, 2, 12).getTime();
const yesterday = new Date(2030, 0, 1, 23).toISOString();
const thisMorning = new Date(2030, 0, 2, 9).toISOString();

describe("buildStatusReport", () => {
  const drafts = [
    { status: "pending" as const, updated_at: thisMorning },
    { status: "pending" as const, updated_at: yesterday },
    { status: "queued" as const, updated_at: thisMorning },
    { status: "sent" as const, updated_at: thisMorning },
    { status: "sent" as const, updated_at: yesterday },
    { status: "revise" as const, updated_at: thisMorning },
  ];

  it("counts queue depths now and today's changes since local midnight", () => {
    const report = buildStatusReport({ mode: "live", nowMs: noon, drafts, killSwitch: { halted: false }, digestHour: null });
    expect(report).toEqual({
      mode: "live",
      now: new Date(noon).toISOString(),
      kill_switch: { halted: false },
      queue: { queued: 1, pending: 2, deferred: 0, halted: 0, approved: 0, sending: 0 },
      today: { since: new Date(2030, 0, 2).toISOString(), counts: { queued: 1, pending: 1, sent: 1, revise: 1 } },
      drafts_total: 6,
      digest_hour: null,
      callbacks: null,
    });
    expect(JSON.parse(JSON.stringify(report))).toEqual(report);
  });

  it("reads as text with the kill switch's reason", () => {
    const report = buildStatusReport({
      mode: "live",
      nowMs: noon,
      drafts,
      killSwitch: { halted: true, reason: "TAO_SWARM_ENABLED=0 in .env" },
      digestHour: 7,
    });
    expect(statusText(report).split("\n")).toEqual([
      "draft-review (live mode)",
      "⛔ Sends HALTED: TAO_SWARM_ENABLED=0 in .env",
      "Awaiting a decision: 2 pending, 0 deferred, 0 halted",
      "Queued for the review chat: 1 · being sent: 0",
      "Today (since 2030-01-02 00:00): 1 queued, 1 pending, 1 sent, 1 revise",
      "Daily digest: at 07:00",
    ]);
  });
});

describe("/status in the review chat (issue 35, point 9)", () => {
  it("puts each time under a date_time entity, as every other message of the bot's does", () => {
    const drafts = [{ status: "pending" as const, updated_at: thisMorning }];
    const report = buildStatusReport({ mode: "live", nowMs: noon, drafts, killSwitch: { halted: false }, digestHour: null });
    const shown = statusMessage({ ...report, last_reaction_at: thisMorning });
    expect(shown.text).toBe(statusText({ ...report, last_reaction_at: thisMorning }));
    const times = shown.entities.map((e) => [shown.text.slice(e.offset, e.offset + e.length), e.type === "date_time" && e.unix_time]);
    expect(times).toEqual([
      ["2030-01-02 00:00", new Date(2030, 0, 2).getTime() / 1000],
      ["2030-01-02 09:00", new Date(2030, 0, 2, 9).getTime() / 1000],
    ]);
  });
});

describe("the callbacks line of the status", () => {
  const drafts = [{ status: "pending" as const, updated_at: "2030-01-02T10:00:00.000Z" }];
  const nowMs = Date.parse("2030-01-02T12:00:00.000Z");
  it("shows the backlog and the last error while callbacks are on, nothing when off", () => {
    const callbacks = {
      url: "http://127.0.0.1:9000/events",
      acked_seq: 12,
      backlog: 3,
      delivered: 12,
      failed_attempts: 4,
      last_error: "HTTP 500: down",
      last_error_at: "2030-01-02T11:59:00.000Z",
      next_attempt_at: null,
    };
    const on = buildStatusReport({ mode: "live", nowMs, drafts, killSwitch: { halted: false }, digestHour: null, callbacks });
    expect(on.callbacks).toEqual(callbacks);
    expect(statusText(on).split("\n").at(-1)).toBe(
      "Callbacks to http://127.0.0.1:9000/events: 3 waiting (acknowledged up to #12) · last error: HTTP 500: down",
    );
    const off = buildStatusReport({ mode: "live", nowMs, drafts, killSwitch: { halted: false }, digestHour: null });
    expect(off.callbacks).toBeNull();
    expect(statusText(off)).not.toContain("Callbacks");
  });
});
