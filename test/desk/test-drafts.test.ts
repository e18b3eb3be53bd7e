import { readdir } from "node:fs/promises";
import { join } from "node:path";
import pino from "pino";
import { describe, expect, it } from "vitest";
import type { ReviewChat } from "../../src/desk/ports.js";
import { planRecovery, type RecoveryFacts } from "../../src/desk/recovery.js";
import { draftRecordSchema, type DraftRecord } from "../../src/drafts/record.js";
import { FakeReviewChat } from "../../src/test-mode/fake-review-chat.js";
import { openTestCore, REVIEWER, submitPosted } from "../support/core.js";
import { draftIn, HOUR, T0 } from "../support/drafts.js";

// Issue 19 row 10 (contract v3 "Test mode is inert for a live daemon"), the parts below the daemon.

const LIVE = { TAO_DRAFT_REVIEW_TEST: "", TELEGRAM_BOT_TOKEN: "123456:ABCDEFGHIJKLMNOPQRSTUVWXYZ", REVIEW_CHAT_ID: "100000001" };

const noFacts: RecoveryFacts = {
  audited: (id) => ({ draft_id: id, version: 99, to: "pending" }) as never,
  wasNotified: () => false,
  statusEditOwed: () => true,
  supersededDone: () => false,
};

/** A review chat that records which of its methods were called, for which draft. */
function recordingChat(calls: string[]) {
  return (existing: Iterable<DraftRecord>): ReviewChat => {
    const inner = new FakeReviewChat("100000001", existing, pino({ level: "silent" }));
    return new Proxy(inner, {
      get(target, name, receiver) {
        const value = Reflect.get(target, name, receiver);
        if (typeof value !== "function" || name === "claimFreeSlot" || name === "takeId") return value;
        return (...args: unknown[]) => {
          calls.push(`${String(name)}:${(args[0] as DraftRecord | undefined)?.draft_id ?? ""}`);
          return value.apply(target, args);
        };
      },
    });
  };
}

describe("a draft's test_mode mark", () => {
  it("is false on lines written before it existed", () => {
    const { test_mode: _, ...old } = draftIn("pending");
    expect(draftRecordSchema.parse(old).test_mode).toBe(false);
  });

  it("is set on every draft made in test mode, and only there", async () => {
    const t = await openTestCore();
    expect((await submitPosted(t, "made in test mode")).test_mode).toBe(true);
    const live = await t.reopen({ env: LIVE });
    expect((await submitPosted(live, "made live")).test_mode).toBe(false);
    await live.close();
  });
});

describe("recovery in a live daemon", () => {
  it("plans nothing that posts, sends or tells about a test-mode draft; only its quiet expiry", () => {
    const tm = { test_mode: true, superseded_posts: [7] };
    const drafts = [
      draftIn("queued", { ...tm, draft_id: "q" }),
      draftIn("approved", { ...tm, draft_id: "a", send_after: new Date(T0).toISOString() }),
      draftIn("pending", { ...tm, draft_id: "old", expires_at: new Date(T0 - HOUR).toISOString() }),
      draftIn("sending", { ...tm, draft_id: "s" }),
      draftIn("outcome_unknown", { ...tm, draft_id: "u" }),
    ];
    const live = planRecovery(drafts, noFacts, T0);
    expect(live.effects).toEqual([
      { type: "arm_expiry", draftId: "q", at: T0 + 24 * HOUR },
      { type: "arm_expiry", draftId: "a", at: T0 + 24 * HOUR },
    ]);
    expect(live.events).toEqual([
      { draftId: "old", event: { type: "expire" } },
      { draftId: "s", event: { type: "send_unknown", reason: expect.any(String) } },
    ]);
    // Test mode itself resumes them as before.
    const test = planRecovery(drafts, noFacts, T0, true);
    expect(test.effects.map((e) => e.type)).toEqual(
      expect.arrayContaining(["post_review", "send", "notify", "show_status", "supersede_post"]),
    );
  });

  it("never marks a live draft revised by a test-mode draft", () => {
    const earlier = draftIn("pending", { draft_id: "live" });
    const later = draftIn("pending", { draft_id: "tm", test_mode: true, revises: "live" });
    expect(planRecovery([earlier, later], noFacts, T0, true).events).toEqual([]);
  });
});

describe("a live desk with test-mode drafts in its store", () => {
  it("does not send, list or match them; they expire quietly and are archived like any final draft", async () => {
    const t = await openTestCore(undefined, { env: { UNDO_WINDOW: "10s" } });
    const approved = await submitPosted(t, "test draft, approved");
    const pending = await submitPosted(t, "test draft, pending");
    const actor = { user_id: REVIEWER, channel: "test" as const, emoji: "👍", update_id: null };
    await t.core.desk.decide({ reviewChatId: "100000001", reviewMessageId: approved.review_message_id!, decision: "send", actor });
    await t.core.desk.settle();
    expect(t.core.desk.get(approved.draft_id)?.status).toBe("approved");
    await t.core.desk.requestEdit({ reviewChatId: "100000001", reviewMessageId: pending.review_message_id!, actor });
    const [prompt] = [...t.core.audit.index.surfaces.all()].filter((s) => s.asks === "edit").map((s) => s.message_id);
    expect(prompt).toEqual(expect.any(Number));

    const calls: string[] = [];
    const live = await t.reopen({ env: { ...LIVE, UNDO_WINDOW: "10s", DRAFT_RETENTION: "1d" }, reviewChat: recordingChat(calls) });
    await live.clock.advance(60_000, () => live.core.desk.settle());
    expect(live.sends).toEqual([]);
    expect(live.core.desk.list()).toEqual([]);
    expect(live.core.desk.draftOfMessage(pending.review_message_id!)).toBeUndefined();
    const outcome = await live.core.desk.decide({
      reviewChatId: "100000001",
      reviewMessageId: pending.review_message_id!,
      decision: "send",
      actor,
    });
    expect(outcome).toMatchObject({ ok: false, reason: "unknown_review_message" });
    const byButton = await live.core.desk.decide({
      reviewChatId: "100000001",
      reviewMessageId: 999,
      claimedDraftId: pending.draft_id,
      decision: "send",
      actor,
    });
    expect(byButton).toMatchObject({ ok: false, reason: "unknown_review_message" });
    // Nor on the edit prompt test mode sent for it.
    const onPrompt = await live.core.desk.edit({ reviewChatId: "100000001", reviewMessageId: prompt!, actor, text: "new text" });
    expect(onPrompt).toMatchObject({ ok: false, reason: "unknown_review_message" });
    expect(live.core.desk.draftOfMessage(prompt!)).toBeUndefined();

    await live.clock.advance(25 * HOUR, () => live.core.desk.settle());
    expect(live.core.desk.get(approved.draft_id)?.status).toBe("expired");
    expect(live.core.desk.get(pending.draft_id)?.status).toBe("expired");
    expect(live.sends).toEqual([]);
    // Nothing about them reached the review chat (the one answer is to the refused 👍, about no draft).
    expect(calls.filter((c) => c.endsWith(approved.draft_id) || c.endsWith(pending.draft_id))).toEqual([]);

    await live.clock.advance(2 * 24 * HOUR, () => live.core.desk.settle());
    await live.core.archiving.idle();
    expect(live.core.desk.get(pending.draft_id)).toBeUndefined();
    expect(await live.core.desk.find(pending.draft_id)).toMatchObject({ status: "expired", test_mode: true });
    expect((await readdir(join(live.dir, "archive"))).some((f) => f.startsWith("telegram_drafts-"))).toBe(true);
    await live.close();
  });
});
