import { describe, expect, it } from "vitest";
import { checkRevises, revisesFacts } from "../../src/desk/revises.js";
import { parseDraftPayload, type DraftPayload } from "../../src/drafts/payload.js";
import type { DraftRecord } from "../../src/drafts/record.js";
import { draftIn } from "../support/drafts.js";

// Issue 19 doubtful points (a), (b), (c): what `revises` may name, and what the new draft keeps of it.

function payloadOf(extra: Record<string, unknown>): DraftPayload {
  const p = parseDraftPayload({
    draft_text: "v2",
    destination_chat_id: "-1001234567890",
    drafted_by_role: "Scribe",
    originating_intent_id: "i",
    ...extra,
  });
  if (!p.ok) throw new Error(p.error);
  return p.payload;
}

function lookup(store: DraftRecord[], archive: DraftRecord[] = []) {
  return {
    get: (id: string) => store.find((d) => d.draft_id === id),
    find: async (id: string) => store.find((d) => d.draft_id === id) ?? archive.find((d) => d.draft_id === id),
  };
}

const LIVE = { testMode: false };

describe("checkRevises", () => {
  it("finds the earlier draft in the store, or in the archive (marked so)", async () => {
    const kept = draftIn("pending", { draft_id: "kept" });
    const gone = draftIn("revise", { draft_id: "gone" });
    expect(await checkRevises(payloadOf({ revises: "kept" }), lookup([kept], [gone]), LIVE)).toEqual({
      ok: true,
      earlier: kept,
      archived: false,
    });
    expect(await checkRevises(payloadOf({ revises: "gone" }), lookup([kept], [gone]), LIVE)).toEqual({
      ok: true,
      earlier: gone,
      archived: true,
    });
    expect(await checkRevises(payloadOf({ revises: "nope" }), lookup([kept], [gone]), LIVE)).toMatchObject({
      ok: false,
      error: expect.stringMatching(/^revises: no draft nope/),
    });
  });

  // Issue 26 point 6: the contract lets any role revise any draft (v2, again in v4); only an unknown id is refused.
  it("accepts another role's draft, whatever its revision note says", async () => {
    const cos = draftIn("pending", { draft_id: "c", drafted_by_role: "CoS" });
    expect(await checkRevises(payloadOf({ revises: "c" }), lookup([cos]), LIVE)).toEqual({ ok: true, earlier: cos, archived: false });
    const toMargot = { ...cos, status: "revise" as const, revision_note: "Margot: take this over" };
    expect(await checkRevises(payloadOf({ revises: "c" }), lookup([toMargot]), LIVE)).toMatchObject({ ok: true, earlier: toMargot });
  });

  it("never lets a test-mode draft and a live one replace each other", async () => {
    const tm = draftIn("pending", { draft_id: "tm", test_mode: true });
    const lv = draftIn("pending", { draft_id: "lv" });
    expect(await checkRevises(payloadOf({ revises: "tm" }), lookup([tm]), LIVE)).toMatchObject({
      ok: false,
      error: expect.stringMatching(/^revises: no draft tm/),
    });
    expect(await checkRevises(payloadOf({ revises: "lv" }), lookup([lv]), { testMode: true })).toMatchObject({
      ok: false,
      error: expect.stringMatching(/made by the live daemon/),
    });
  });
});

describe("revisesFacts", () => {
  it("keeps the earlier draft's role, for the post to say whose draft it revises", () => {
    const earlier = draftIn("revise", { draft_id: "e", drafted_by_role: "CoS" });
    expect(revisesFacts(earlier, payloadOf({ revises: "e", drafted_by_role: "Margot" })).role).toBe("CoS");
  });

  it("keeps the earlier destination only when the new draft goes elsewhere", () => {
    const earlier = draftIn("revise", { draft_id: "e", audience: null });
    expect(revisesFacts(earlier, payloadOf({ revises: "e" })).destination).toBeNull();
    expect(revisesFacts(earlier, payloadOf({ revises: "e", destination_thread_id: 5 })).destination).toEqual({
      chat_id: "-1001234567890",
      thread_id: null,
      title: null,
    });
  });
});
