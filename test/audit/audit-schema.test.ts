import { describe, expect, it } from "vitest";
import { auditEntrySchema, parseAuditLine } from "../../src/audit/audit-schema.js";
import { refusedEntry, transitionEntry } from "../../src/desk/audit-entries.js";
import { feedEventOf } from "../../src/desk/event-feed.js";
import { draftIn } from "../support/drafts.js";

const SOURCE = "telegram-draft-for-review";
const envelope = { ts: "2026-11-30T10:00:00.000Z", source: SOURCE, seq: 7, prev_hash: "" };

describe("the audit schema", () => {
  it("accepts every entry the desk writes", () => {
    const draft = draftIn("pending");
    expect(
      auditEntrySchema.parse(transitionEntry("queued", draft, { type: "posted", reviewChatId: "1", reviewMessageId: 42 })),
    ).toMatchObject({ kind: "transition", event: "posted" });
    expect(auditEntrySchema.parse(transitionEntry(null, draft, { type: "recovered" }))).toMatchObject({ event: "recovered" });
    const refusal = refusedEntry(
      { decision: "send", actor: { user_id: 9, channel: "reaction", emoji: "👍", update_id: 5 }, reason: "not_a_reviewer" },
      draft,
    );
    expect(auditEntrySchema.parse(refusal)).toMatchObject({ kind: "decision_refused", update_id: 5 });
  });

  it("reads back a transition line written before originating_intent_id existed", () => {
    const { originating_intent_id: _o, ...old } = transitionEntry(null, draftIn("queued"), { type: "created" });
    const parsed = parseAuditLine(JSON.stringify({ ...envelope, ...old }), SOURCE);
    expect(parsed?.entry).toMatchObject({ kind: "transition", draft_id: "d_test" });
  });

  it("keeps the chain fields of a line whose entry it does not know, and ignores other sources", () => {
    const unknown = parseAuditLine(JSON.stringify({ ...envelope, kind: "from_the_future", x: 1 }), SOURCE);
    expect(unknown).toEqual({ envelope, entry: null });
    expect(parseAuditLine(JSON.stringify({ ...envelope, source: "scribe", kind: "note" }), SOURCE)).toBeNull();
    expect(parseAuditLine('{"ts":"x","source":"telegram-draft-for-review","seq', SOURCE)).toBeNull();
  });

  it("writes both texts on an edit, and the feed reports it as `edited` with them", () => {
    const before = draftIn("pending", { draft_text: "old words" });
    const after = { ...draftIn("pending", { draft_text: "new words" }), version: 4 };
    const entry = transitionEntry("pending", after, { type: "send_retry", reason: "x" }, before.draft_text);
    expect(entry).toMatchObject({ previous_text: "old words", draft_text: "new words" });
    const edit = { ...entry, event: "edit" as const, text_version: 2 };
    expect(feedEventOf(12, envelope.ts, edit)).toMatchObject({
      seq: 12,
      kind: "edited",
      previous_text: "old words",
      draft_text: "new words",
      text_version: 2,
      drafted_by_role: "Scribe",
      originating_intent_id: "intent-1",
      notify_roles: ["Scribe"],
    });
    expect(transitionEntry("pending", after, { type: "expire" }, after.draft_text)).not.toHaveProperty("previous_text");
  });

  it("gives a feed event what an orchestrator routes by", () => {
    const revised = { ...draftIn("revise", { revision_note: "Margot: check the numbers" }), version: 5 };
    const entry = transitionEntry("pending", revised, {
      type: "decide",
      decision: "revise",
      actor: { user_id: 1, channel: "reply", emoji: null, update_id: 3 },
      note: "Margot: check the numbers",
      deferMs: 0,
    });
    expect(feedEventOf(3, envelope.ts, entry)).toEqual({
      seq: 3,
      draft_id: "d_test",
      from: "pending",
      to: "revise",
      version: 5,
      at: envelope.ts,
      kind: "transition",
      drafted_by_role: "Scribe",
      notify_roles: ["Scribe", "Margot"],
      originating_intent_id: "intent-1",
      revision_note: "Margot: check the numbers",
      reason: null,
      sent_message_id: null,
      send_as: "bot",
      sent_as: null,
    });
    expect(feedEventOf(4, envelope.ts, { ...entry, event: "undo" }).kind).toBe("undone");
  });
});
