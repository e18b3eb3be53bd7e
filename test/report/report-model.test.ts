import { describe, expect, it } from "vitest";
import type { TransitionEntry } from "../../src/audit/audit-schema.js";
import { buildReport, PeriodFold, percentile, periodNumbers, previousPeriod } from "../../src/report/report-model.js";

const T0 = Date.parse("2030-01-07T10:00:00Z");
const MIN = 60_000;

function line(
  draftId: string,
  event: TransitionEntry["event"],
  to: TransitionEntry["to"],
  extra: Partial<TransitionEntry> = {},
): TransitionEntry {
  return {
    kind: "transition",
    draft_id: draftId,
    version: 1,
    from: null,
    to,
    event,
    drafted_by_role: "Scribe",
    destination_chat_id: "-100",
    destination_thread_id: null,
    review_message_id: 1,
    decision: null,
    emoji: null,
    user_id: null,
    channel: null,
    update_id: null,
    reason: null,
    ...extra,
  };
}

describe("the report's numbers from a period's transition lines", () => {
  it("counts a change of mind as an undone decision: 👍 then 👎, 👍 then 😴, 👎 then 👍; a note after the 👎 is none", () => {
    const fold = new PeriodFold({ sinceMs: T0, untilMs: T0 + 600 * MIN });
    fold.add(T0, line("a", "created", "pending"));
    fold.add(T0 + MIN, line("a", "decide", "approved", { decision: "send" }));
    fold.add(T0 + MIN + 5000, line("a", "decide", "revise", { from: "approved", decision: "revise", note: "shorter" }));
    fold.add(T0 + MIN + 9000, line("a", "decide", "revise", { from: "revise", decision: "revise", note: "much shorter" }));
    fold.add(T0, line("b", "created", "pending"));
    fold.add(T0 + MIN, line("b", "decide", "approved", { decision: "send" }));
    fold.add(T0 + MIN + 5000, line("b", "decide", "deferred", { from: "approved", decision: "defer" }));
    fold.add(T0, line("c", "created", "pending"));
    fold.add(T0 + MIN, line("c", "decide", "revise", { decision: "revise" }));
    fold.add(T0 + MIN + 5000, line("c", "decide", "approved", { from: "revise", decision: "send" }));
    const period = { sinceMs: T0, untilMs: T0 + 600 * MIN };
    const report = buildReport(period, periodNumbers(fold.drafts.values()), periodNumbers([]));
    expect(report.roles.Scribe).toMatchObject({ drafts: 3, undone: 3 });
  });

  it("counts outcomes per draft, undone decisions, edits before approval and the time to the decision that stood", () => {
    const fold = new PeriodFold({ sinceMs: T0, untilMs: T0 + 600 * MIN });
    // a: posted, approved after 10 min, undone, approved again after 30 min, sent.
    fold.add(T0, line("a", "created", "pending"));
    fold.add(T0 + 10 * MIN, line("a", "decide", "approved", { decision: "send" }));
    fold.add(T0 + 11 * MIN, line("a", "undo", "pending"));
    fold.add(T0 + 30 * MIN, line("a", "decide", "approved", { decision: "send" }));
    fold.add(T0 + 30 * MIN, line("a", "send_ok", "sent", { draft_text: "A" }));
    // b (CoS): queued, posted later, deferred, edited, approved 60 min after its post.
    fold.add(T0, line("b", "created", "queued", { drafted_by_role: "CoS" }));
    fold.add(T0 + 5 * MIN, line("b", "posted", "pending", { drafted_by_role: "CoS" }));
    fold.add(T0 + 6 * MIN, line("b", "decide", "deferred", { drafted_by_role: "CoS", decision: "defer" }));
    fold.add(T0 + 7 * MIN, line("b", "edit", "pending", { drafted_by_role: "CoS", previous_text: "B0", draft_text: "B1" }));
    fold.add(T0 + 65 * MIN, line("b", "decide", "approved", { drafted_by_role: "CoS", decision: "send" }));
    fold.add(T0 + 65 * MIN, line("b", "send_ok", "sent", { drafted_by_role: "CoS", draft_text: "B1" }));
    // c: sent back after 2 min; d: superseded by a newer version (no reviewer decision); e: expired.
    fold.add(T0, line("c", "created", "pending"));
    fold.add(T0 + 2 * MIN, line("c", "decide", "revise", { decision: "revise" }));
    fold.add(T0, line("d", "created", "pending"));
    fold.add(T0 + 3 * MIN, line("d", "revised", "revise"));
    fold.add(T0, line("e", "created", "pending", { destination_chat_id: "@other" }));
    fold.add(T0 + 500 * MIN, line("e", "expire", "expired", { destination_chat_id: "@other" }));
    // Before the period: not counted, even when decided in it.
    fold.add(T0 - 1, line("old", "created", "pending"));
    fold.add(T0 + 1, line("old", "decide", "approved", { decision: "send" }));
    // After it: not read.
    fold.add(T0 + 600 * MIN, line("late", "created", "pending"));

    const period = { sinceMs: T0, untilMs: T0 + 600 * MIN };
    const report = buildReport(period, periodNumbers(fold.drafts.values()), periodNumbers([]));
    expect(report.roles.Scribe).toEqual({
      notes: [],
      restored: 0,
      picks: { picked: 0, recommended: 0 },
      drafts: 4,
      sent: 1,
      partly_sent: 0,
      revise: 1,
      deferred: 0,
      expired: 1,
      edited: 0,
      undone: 1,
      decision_p50_s: 120,
      decision_p90_s: 1800,
    });
    expect(report.roles.CoS).toMatchObject({ drafts: 1, sent: 1, deferred: 1, edited: 1, decision_p50_s: 3600, decision_p90_s: 3600 });
    expect(report.roles.Margot).toMatchObject({ drafts: 0, decision_p50_s: null });
    expect(Object.keys(report.destinations).sort()).toEqual(["-100", "@other"]);
    expect(report.destinations["@other"]).toMatchObject({ drafts: 1, expired: 1 });
    expect(Object.keys(report.destinations["-100"]!).sort()).toEqual(
      ["decision_p50_s", "decision_p90_s", "deferred", "drafts", "edited", "expired", "partly_sent", "revise", "sent", "undone"].sort(),
    );
    expect(Object.keys(report.roles.Scribe!)).toEqual([
      "drafts",
      "sent",
      "partly_sent",
      "revise",
      "deferred",
      "expired",
      "edited",
      "undone",
      "decision_p50_s",
      "decision_p90_s",
      "restored",
      "notes",
      "picks",
    ]);
    expect(Object.keys(report)).toEqual(["since", "until", "roles", "destinations", "picks", "previous"]);
  });

  it("picks (issue 34): per kind of the recommended destination and per role, how often the send that stands kept the recommendation", () => {
    const fold = new PeriodFold({ sinceMs: T0, untilMs: T0 + 600 * MIN });
    const email = { channel: "email" };
    const choices = (first: object | null) => [{ destination: first }, { destination: { channel: "slack" } }];
    const rec = (first: object | null, chosen: number[], extra: object = {}) => ({
      record: { choices: choices(first), choose: "one", deliveries: chosen.map((index) => ({ index })), ...extra },
    });
    // kept: 👍 on an email recommendation.
    fold.add(T0, line("kept", "created", "pending", rec(email, [])));
    fold.add(T0 + MIN, line("kept", "decide", "approved", { decision: "send", ...rec(email, [1]) }));
    fold.add(T0 + 2 * MIN, line("kept", "send_ok", "sent", rec(email, [1])));
    // other: sent to the second instead; undone first, then picked again.
    fold.add(T0, line("other", "created", "pending", rec(email, [])));
    fold.add(T0 + MIN, line("other", "decide", "approved", { decision: "send", ...rec(email, [1]) }));
    fold.add(T0 + MIN + 1000, line("other", "undo", "pending", rec(email, [])));
    fold.add(T0 + 2 * MIN, line("other", "decide", "approved", { decision: "send", ...rec(email, [2]) }));
    // telegram recommendation, sent back: no pick stands.
    fold.add(T0, line("back", "created", "pending", { ...rec(null, []), drafted_by_role: "CoS" }));
    fold.add(T0 + MIN, line("back", "decide", "revise", { decision: "revise", drafted_by_role: "CoS", ...rec(null, []) }));
    // choose any: every destination sent is the recommendation kept.
    fold.add(T0, line("all", "created", "pending", { ...rec(null, [], { choose: "any" }), drafted_by_role: "CoS" }));
    fold.add(
      T0 + MIN,
      line("all", "decide", "approved", { decision: "send", drafted_by_role: "CoS", ...rec(null, [1, 2], { choose: "any" }) }),
    );
    // one destination only: no pick.
    fold.add(T0, line("single", "created", "pending"));
    fold.add(T0 + MIN, line("single", "decide", "approved", { decision: "send" }));
    const numbers = periodNumbers(fold.drafts.values());
    expect(numbers.picks).toEqual({ email: { picked: 2, recommended: 1 }, telegram: { picked: 1, recommended: 1 } });
    expect(numbers.roles.Scribe!.picks).toEqual({ picked: 2, recommended: 1 });
    expect(numbers.roles.CoS!.picks).toEqual({ picked: 1, recommended: 1 });
    expect(numbers.roles.Margot!.picks).toEqual({ picked: 0, recommended: 0 });
  });

  it("a draft sent to several at once counts under each destination it went to, as each delivery ended (not under the last)", () => {
    const fold = new PeriodFold({ sinceMs: T0, untilMs: T0 + 600 * MIN });
    const choices = [
      { index: 1, destination_chat_id: "-101" },
      { index: 2, destination_chat_id: "email" },
      { index: 3, destination_chat_id: "-103" },
    ];
    const rec = (deliveries: Array<{ index: number; status: string }>) => ({ record: { choices, choose: "any", deliveries } });
    fold.add(T0, line("f", "created", "pending", { destination_chat_id: "-101", ...rec([]) }));
    fold.add(T0 + MIN, line("f", "decide", "approved", { decision: "send", destination_chat_id: "-101", ...rec([]) }));
    // Its fields name the delivery under way; the last line's is the third destination.
    const ended = [
      { index: 1, status: "sent" },
      { index: 2, status: "failed" },
      { index: 3, status: "sent" },
    ];
    fold.add(T0 + 2 * MIN, line("f", "send_ok", "partly_sent", { destination_chat_id: "-103", ...rec(ended) }));
    const numbers = periodNumbers(fold.drafts.values());
    expect(Object.keys(numbers.destinations).sort()).toEqual(["-101", "-103", "email"]);
    expect(numbers.destinations["-101"]).toMatchObject({ drafts: 1, sent: 1 });
    expect(numbers.destinations["-103"]).toMatchObject({ drafts: 1, sent: 1 });
    expect(numbers.destinations.email).toMatchObject({ drafts: 1, sent: 0 });
    // The role's row counts the draft once, as it ended.
    expect(numbers.roles.Scribe).toMatchObject({ drafts: 1, partly_sent: 1 });
  });

  it("notes: given in the period and standing, newest first, at most 10, per role; an undone revise takes its note back", () => {
    const period = { sinceMs: T0, untilMs: T0 + 100 * MIN };
    const fold = new PeriodFold(period);
    for (let i = 1; i <= 12; i++) {
      fold.add(T0 + i * MIN, line(`n${i}`, "created", "pending"));
      fold.add(T0 + (20 + i) * MIN, line(`n${i}`, "decide", "revise", { decision: "revise", note: `note ${i}` }));
    }
    // Taken back within the undo window: not a note that stands.
    fold.add(T0 + 40 * MIN, line("n12", "undo", "pending"));
    // A 👎 without a note gives none; a CoS note; a note on a draft made before the period counts (given in it).
    fold.add(T0 + 41 * MIN, line("plain", "created", "pending"));
    fold.add(T0 + 42 * MIN, line("plain", "decide", "revise", { decision: "revise" }));
    fold.add(T0 + 43 * MIN, line("old", "decide", "revise", { decision: "revise", note: "from before", drafted_by_role: "CoS" }));
    // After the period: not read.
    fold.add(T0 + 100 * MIN, line("n1", "undo", "pending"));
    const numbers = periodNumbers(fold.drafts.values(), fold.notes.values());
    expect(numbers.roles.Scribe!.notes).toEqual([
      "note 11",
      "note 10",
      "note 9",
      "note 8",
      "note 7",
      "note 6",
      "note 5",
      "note 4",
      "note 3",
      "note 2",
    ]);
    expect(numbers.roles.Scribe!.revise).toBe(12);
    expect(numbers.roles.CoS!.notes).toEqual(["from before"]);
    expect(numbers.roles.CoS!.drafts).toBe(0);
    expect(numbers.roles.Margot!.notes).toEqual([]);
  });

  it("a note replied after the 👎 (revise to revise) is the draft's note; the time to decision stays the 👎's", () => {
    const period = { sinceMs: T0, untilMs: T0 + 100 * MIN };
    const fold = new PeriodFold(period);
    fold.add(T0, line("late", "created", "pending"));
    fold.add(T0 + 2 * MIN, line("late", "decide", "revise", { decision: "revise" }));
    fold.add(T0 + 2 * MIN + 5_000, line("late", "decide", "revise", { from: "revise", decision: "revise", note: "mention the projector" }));
    const numbers = periodNumbers(fold.drafts.values(), fold.notes.values());
    expect(numbers.roles.Scribe).toMatchObject({ notes: ["mention the projector"], revise: 1, decision_p50_s: 120 });
  });

  it("restored: a draft whose only edits restored redacted items counts there, not in edited", () => {
    const fold = new PeriodFold({ sinceMs: T0, untilMs: T0 + 100 * MIN });
    const edit = (id: string, at: number, restored: boolean) =>
      fold.add(
        T0 + at * MIN,
        line(id, "edit", "pending", { previous_text: "x", draft_text: "y", ...(restored ? { restored: true } : {}) }),
      );
    const sent = (id: string, at: number) => {
      fold.add(T0 + at * MIN, line(id, "decide", "approved", { decision: "send" }));
      fold.add(T0 + at * MIN, line(id, "send_ok", "sent", { draft_text: "y" }));
    };
    for (const id of ["r", "e", "both", "r-waiting"]) fold.add(T0, line(id, "created", "pending"));
    edit("r", 1, true); // only restored, then sent
    sent("r", 2);
    edit("e", 1, false); // a real edit, then sent
    sent("e", 2);
    edit("both", 1, true); // restored and edited, then sent: edited
    edit("both", 2, false);
    sent("both", 3);
    edit("r-waiting", 1, true); // only restored, no decision yet
    const row = periodNumbers(fold.drafts.values()).roles.Scribe!;
    expect(row).toMatchObject({ drafts: 4, sent: 3, edited: 2, restored: 2 });
  });

  it("the previous period is the one of equal length just before", () => {
    expect(previousPeriod({ sinceMs: T0, untilMs: T0 + 7 * 24 * 60 * MIN })).toEqual({
      sinceMs: T0 - 7 * 24 * 60 * MIN,
      untilMs: T0,
    });
  });

  it("percentiles are nearest-rank", () => {
    expect(percentile([], 50)).toBeNull();
    expect(percentile([5], 90)).toBe(5);
    expect(percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 50)).toBe(5);
    expect(percentile([10, 1, 9, 2, 8, 3, 7, 4, 6, 5], 90)).toBe(9);
  });
});
