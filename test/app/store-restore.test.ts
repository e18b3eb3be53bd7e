import { describe, expect, it } from "vitest";
import type { AuditedDraft } from "../../src/audit/audit-index.js";
import type { TransitionEntry } from "../../src/audit/audit-schema.js";
import { DataRefusalError } from "../../src/store/data-refusal.js";
import { restoreLostChanges, storeGaps } from "../../src/app/store-restore.js";
import type { DraftRecord } from "../../src/drafts/record.js";
import { transitionEntry } from "../../src/desk/audit-entries.js";
import { draftIn } from "../support/drafts.js";

/** An audit log that knows `lines` (the last transition line of each draft, as the daemon writes them). */
function auditOf(lines: TransitionEntry[]) {
  const byId = new Map(lines.map((l) => [l.draft_id, l]));
  return {
    draftIds: () => byId.keys(),
    audited: (id: string): AuditedDraft | undefined => {
      const l = byId.get(id);
      return l && { version: l.version, to: l.to };
    },
    transitionAt: async (id: string, version: number) => {
      const l = byId.get(id);
      return l && l.version === version ? l : null;
    },
  };
}

function deps(latest: DraftRecord[], lines: TransitionEntry[], archived: string[] = []) {
  const appended: DraftRecord[] = [];
  const warns: string[] = [];
  return {
    appended,
    warns,
    deps: {
      storePath: "/h/telegram_drafts.jsonl",
      latest: new Map(latest.map((d) => [d.draft_id, d])),
      append: async (records: readonly DraftRecord[]) => void appended.push(...records),
      archived: (id: string) => archived.includes(id),
      audit: auditOf(lines),
      log: { warn: (_o: object, msg: string) => void warns.push(msg) },
    },
  };
}

const pending = draftIn("pending", { draft_id: "d_a", version: 2 });
const approved = draftIn("approved", { draft_id: "d_a", version: 3 });

describe("the store checked against the audit log at start", () => {
  it("finds what the store lacks: a later version, a draft missing (unless archived)", () => {
    const audit = auditOf([
      transitionEntry("pending", approved, { type: "created" }),
      transitionEntry(null, draftIn("sent", { draft_id: "d_gone" }), { type: "created" }),
    ]);
    expect(storeGaps(new Map([["d_a", pending]]), audit, () => false).map((g) => g.draftId)).toEqual(["d_a", "d_gone"]);
    expect(storeGaps(new Map([["d_a", approved]]), audit, (id) => id === "d_gone")).toEqual([]);
  });

  it("restores the whole record the audit line carries, never an earlier status", async () => {
    const t = deps([pending], [transitionEntry("pending", approved, { type: "created" })]);
    expect(await restoreLostChanges(t.deps)).toEqual(["d_a"]);
    expect(t.appended).toEqual([approved]);
    expect(t.warns[0]).toMatch(/lacked changes that the audit log holds/);
  });

  it("refuses, naming the file and the draft and changing nothing, when the line predates the record", async () => {
    const { record: _r, ...old } = transitionEntry("pending", approved, { type: "created" });
    const t = deps(
      [pending, draftIn("pending", { draft_id: "d_b" })],
      [old, transitionEntry(null, draftIn("deferred", { draft_id: "d_b", version: 5 }), { type: "created" })],
    );
    const err = (await restoreLostChanges(t.deps).catch((e: unknown) => e)) as DataRefusalError;
    expect(err).toBeInstanceOf(DataRefusalError);
    expect(err.path).toBe("/h/telegram_drafts.jsonl");
    expect(err.message).toContain("draft d_a is at version 2 (pending), the audit log has version 3 (approved)");
    expect(err.message).toContain("Nothing was changed");
    expect(t.appended).toEqual([]);
  });

  it("leaves to recovery what it settles without the record: a send's outcome, a send that had begun", async () => {
    const sending = draftIn("sending", { draft_id: "d_s", version: 4 });
    const approvedOld = draftIn("approved", { draft_id: "d_p", version: 3 });
    const audit = {
      draftIds: () => ["d_s", "d_p"][Symbol.iterator](),
      audited: (id: string): AuditedDraft =>
        id === "d_s" ? { version: 5, to: "sent", sendOutcome: { sentMessageId: 9, reason: null, at: 1 } } : { version: 4, to: "sending" },
      transitionAt: async () => null,
    };
    const t = deps([sending, approvedOld], []);
    expect(await restoreLostChanges({ ...t.deps, audit })).toEqual([]);
    expect(t.appended).toEqual([]);
  });
});

describe("the store check in test mode (contract v4 'Test mode never touches live drafts')", () => {
  it("restores only test mode's own drafts: a live draft's lost change is left to the live daemon", async () => {
    const testMode = { mayChange: (d: DraftRecord) => d.test_mode };
    const live = deps([pending], [transitionEntry("pending", approved, { type: "created" })]);
    expect(await restoreLostChanges({ ...live.deps, ...testMode })).toEqual([]);
    expect(live.appended).toEqual([]);
    // Missing altogether: the record the line carries says whose it is.
    const gone = deps([], [transitionEntry("pending", approved, { type: "created" })]);
    expect(await restoreLostChanges({ ...gone.deps, ...testMode })).toEqual([]);
    const own = draftIn("approved", { draft_id: "d_t", version: 3, test_mode: true });
    const mine = deps(
      [draftIn("pending", { draft_id: "d_t", version: 2, test_mode: true })],
      [transitionEntry("pending", own, { type: "created" })],
    );
    expect(await restoreLostChanges({ ...mine.deps, ...testMode })).toEqual(["d_t"]);
    expect(mine.appended).toEqual([own]);
  });
});
