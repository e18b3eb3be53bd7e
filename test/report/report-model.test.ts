import { describe, expect, it } from "vitest";
import type { TransitionEntry } from "../../src/audit/audit-schema.js";
import { buildReport, PeriodFold, percentile } from "../../src/report/report-model.js";

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

    const report = buildReport({ sinceMs: T0, untilMs: T0 + 600 * MIN }, fold.drafts.values());
    expect(report.roles.Scribe).toEqual({
      drafts: 4,
      sent: 1,
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
    expect(Object.keys(report.roles.Scribe!).sort()).toEqual(
      ["decision_p50_s", "decision_p90_s", "deferred", "drafts", "edited", "expired", "revise", "sent", "undone"].sort(),
    );
  });

  it("percentiles are nearest-rank", () => {
    expect(percentile([], 50)).toBeNull();
    expect(percentile([5], 90)).toBe(5);
    expect(percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 50)).toBe(5);
    expect(percentile([10, 1, 9, 2, 8, 3, 7, 4, 6, 5], 90)).toBe(9);
  });
});
