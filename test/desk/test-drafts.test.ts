import { existsSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import pino from "pino";
import { SimulatedClock } from "../../src/clock/simulated-clock.js";
import { describe, expect, it } from "vitest";
import type { ReviewChat } from "../../src/desk/ports.js";
import { planRecovery, type RecoveryFacts } from "../../src/desk/recovery.js";
import { draftRecordSchema, type DraftRecord } from "../../src/drafts/record.js";
import { FakeReviewChat } from "../../src/test-mode/fake-review-chat.js";
import { openTestCore, REVIEWER, submitPosted } from "../support/core.js";
import { draftIn, HOUR, reviewer, T0 } from "../support/drafts.js";

// Issue 19 row 10 (contract v3 "Test mode is inert for a live daemon"), the parts below the daemon.

const LIVE = { TAO_DRAFT_REVIEW_TEST: "", TELEGRAM_BOT_TOKEN: "123456:ABCDEFGHIJKLMNOPQRSTUVWXYZ", REVIEW_CHAT_ID: "100000001" };

const noFacts: RecoveryFacts = {
  audited: (id) => ({ draft_id: id, version: 99, to: "pending" }) as never,
  wasNotified: () => false,
  statusEditOwed: () => true,
  supersededDone: () => false,
  surfaces: { at: () => undefined },
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

  it("in test mode plans nothing at all for a live draft: no audit line, no change, no effect", () => {
    const drafts = [
      draftIn("queued", { draft_id: "q" }),
      draftIn("approved", { draft_id: "a", send_after: new Date(T0).toISOString() }),
      draftIn("pending", { draft_id: "old", expires_at: new Date(T0 - HOUR).toISOString(), superseded_posts: [7] }),
      draftIn("sending", { draft_id: "s" }),
      draftIn("outcome_unknown", { draft_id: "u" }),
      draftIn("revise", { draft_id: "r", revise_undo: { until: new Date(T0).toISOString() } as never }),
    ];
    // The audit index knows none of them as audited: a live start would audit each as `recovered`.
    const unknown: RecoveryFacts = { ...noFacts, audited: () => undefined };
    expect(planRecovery(drafts, unknown, T0, true)).toEqual({ unaudited: [], unheardFinal: 0, events: [], effects: [] });
    // A live start audits each unfinished one as `recovered` (the final ones no crash can have left unaudited: counted).
    expect(planRecovery(drafts, unknown, T0)).toMatchObject({ unaudited: drafts.slice(0, 4), unheardFinal: 2 });
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

/** The store's lines, by draft id, as bytes on disk. */
async function storeLines(dir: string): Promise<Map<string, string[]>> {
  const text = await readFile(join(dir, "telegram_drafts.jsonl"), "utf8");
  const byId = new Map<string, string[]>();
  for (const line of text.split("\n").filter((l) => l !== "")) {
    const id = (JSON.parse(line) as { draft_id: string }).draft_id;
    byId.set(id, [...(byId.get(id) ?? []), line]);
  }
  return byId;
}

describe("a test-mode desk on a live HARNESS_DIR (contract v4 'Test mode never touches live drafts')", () => {
  it("never changes, posts, sends, lists, expires or archives a live draft; a live desk afterwards finds each as it was", async () => {
    // The review chat fills up when told to: drafts submitted then stay queued (their post fails and is retried later).
    let full = false;
    const pacedChat = (existing: Iterable<DraftRecord>, surfaces: Iterable<{ readonly message_id: number }>): ReviewChat => {
      const inner = new FakeReviewChat("100000001", existing, pino({ level: "silent" }), surfaces);
      return new Proxy(inner, {
        get(target, name, receiver) {
          if (name === "claimFreeSlot") return () => !full;
          if (name === "post" && full) return async () => Promise.reject(new Error("the review chat's pace"));
          const value = Reflect.get(target, name, receiver);
          return typeof value === "function" ? value.bind(target) : value;
        },
      });
    };
    // Telegram answers the send of "R" with a 429 (an hour) until the restart, every other send with ok.
    const sent: string[] = [];
    let nextId = 5000;
    let busy = true;
    const sendCall = async ({ text }: { text: string }) => {
      if (busy && text === "R, waiting on a 429") return { kind: "retry_after" as const, seconds: 3600, reason: "429 Too Many Requests" };
      sent.push(text);
      return { kind: "ok" as const, messageId: nextId++ };
    };
    const env = { UNDO_WINDOW: "10s", DRAFT_RETENTION: "1d" };
    const live = await openTestCore(undefined, { live: true, env, reviewChat: pacedChat, sendCall });
    const decide = (d: DraftRecord, decision: "send" | "revise") =>
      live.core.desk.decide({ reviewChatId: "100000001", reviewMessageId: d.review_message_id!, decision, note: null, actor: reviewer() });
    const r = await submitPosted(live, "R, waiting on a 429");
    await decide(r, "send");
    await live.clock.advance(11_000, () => live.core.desk.settle());
    const a = await submitPosted(live, "A, inside its undo window");
    await decide(a, "send");
    const p = await submitPosted(live, "P, pending");
    const f = await submitPosted(live, "F, final");
    await decide(f, "revise");
    full = true;
    const q1 = await submitPosted(live, "Q1, queued");
    const q2 = await submitPosted(live, "Q2, queued");
    await live.core.desk.settle();
    const statuses = [r, a, p, f, q1, q2].map((d) => live.core.desk.get(d.draft_id)?.status);
    expect(statuses).toEqual(["approved", "approved", "pending", "revise", "queued", "queued"]);
    expect(sent).toEqual([]);
    const liveIds = new Set([r, a, p, f, q1, q2].map((d) => d.draft_id));
    const liveMessages = new Set([...live.core.audit.index.surfaces.all()].map((s) => s.message_id));
    await live.close();
    const storeBefore = await readFile(join(live.dir, "telegram_drafts.jsonl"), "utf8");
    const linesBefore = await storeLines(live.dir);
    const auditBefore = await readFile(join(live.dir, "swarm.jsonl"), "utf8");

    // Test mode two days later (every live draft past its expiry, the final one past DRAFT_RETENTION), with sends halted.
    full = false;
    const later = new SimulatedClock(live.clock.now() + 48 * HOUR);
    const test = await openTestCore(live.dir, { env: { ...env, TAO_SWARM_ENABLED: "0" }, clock: later, reviewChat: pacedChat, sendCall });
    expect(test.core.desk.list()).toEqual([]);
    const own = await submitPosted(test, "a test-mode draft");
    expect(own.test_mode).toBe(true);
    // Its made-up message id comes after every message a live surface was recorded for.
    expect(own.review_message_id).toBeGreaterThan(Math.max(...liveMessages));
    expect(test.core.desk.list().map((d) => d.draft_id)).toEqual([own.draft_id]);
    const onLive = await test.core.desk.decide({
      reviewChatId: "100000001",
      reviewMessageId: a.review_message_id!,
      decision: "revise",
      note: null,
      actor: reviewer(),
    });
    expect(onLive).toMatchObject({ ok: false, reason: "unknown_review_message" });
    await test.clock.advance(48 * HOUR, () => test.core.desk.settle());
    await test.core.archiving.idle();
    expect(test.core.desk.get(own.draft_id)?.status).toBe("expired");
    expect(sent).toEqual([]);
    await test.close();

    // Each live draft's lines are byte for byte as they were; test mode only appended lines of its own.
    const storeAfter = await readFile(join(live.dir, "telegram_drafts.jsonl"), "utf8");
    expect(storeAfter.startsWith(storeBefore)).toBe(true);
    const linesAfter = await storeLines(live.dir);
    for (const id of liveIds) expect(linesAfter.get(id), id).toEqual(linesBefore.get(id));
    expect([...linesAfter.keys()].filter((id) => !liveIds.has(id))).toEqual([own.draft_id]);
    // Its audit lines name no live draft, and the halt it saw is in its own record, not the live one.
    const auditAfter = await readFile(join(live.dir, "swarm.jsonl"), "utf8");
    expect(auditAfter.startsWith(auditBefore)).toBe(true);
    const added = auditAfter
      .slice(auditBefore.length)
      .split("\n")
      .filter((l) => l !== "")
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(added.length).toBeGreaterThan(0);
    expect(added.filter((l) => liveIds.has(l.draft_id as string))).toEqual([]);
    // (The refused decision above is audited as about no draft: history, never a decision.)
    expect(added.filter((l) => liveMessages.has(l.message_id as number))).toEqual([]);
    expect(added.filter((l) => l.kind === "decision_refused")).toMatchObject([{ draft_id: null, reason: "unknown_review_message" }]);
    expect(existsSync(join(live.dir, "halt_record.json"))).toBe(false);
    expect(existsSync(join(live.dir, "halt_record.test-mode.json"))).toBe(true);
    expect(existsSync(join(live.dir, "archive"))).toBe(false);

    // The live desk, back at the moment it stopped: the queued drafts are posted, the approvals sent once, the rest waits.
    busy = false;
    const back = await openTestCore(live.dir, { live: true, env, clock: new SimulatedClock(live.clock.now()), sendCall });
    await back.clock.advance(11_000, () => back.core.desk.settle());
    expect(sent.sort()).toEqual(["A, inside its undo window", "R, waiting on a 429"]);
    expect([q1, q2, p].map((d) => back.core.desk.get(d.draft_id)?.status)).toEqual(["pending", "pending", "pending"]);
    expect(back.core.desk.get(f.draft_id)?.status).toBe("revise");
    expect(back.core.desk.list().map((d) => d.draft_id)).not.toContain(own.draft_id);
    await back.close();
  });
});
