import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SimulatedClock } from "../../src/clock/simulated-clock.js";
import { TEST_MODE_REVIEW_CHAT_ID } from "../../src/config/config.js";
import type { DraftRecord } from "../../src/drafts/record.js";
import type { TelegramReviewChat } from "../../src/telegram/review-chat.js";
import { openTestCore, REVIEWER, submitPosted, type TestCore } from "../support/core.js";
import { wallClockNow } from "../support/drafts.js";
import { reviewChatOnDouble } from "../support/review-chat.js";
import { startTelegramDouble, type ShownVersion, type TelegramDouble } from "../telegram-double/index.js";

// Issue 25, point 1 (contract v4, "The undo window is what the chat shows"): a post that cannot be
// edited (the owner deleted it) shows an approval's ↩️ Undo in a new message, an `undo` surface.
// Once the draft is sent, that message loses its Undo too, within 2 s of the send, across a restart
// as well. The real core on real files, the real TelegramReviewChat over the Bot API double, a
// simulated clock; the review chat is not paced here (the pace is status-edits.test.ts's).

const CHAT = Number(TEST_MODE_REVIEW_CHAT_ID);
const UNPACED = { gapMs: 0, perMinute: 1_000_000, reservedForAnswers: 0 };

let double: TelegramDouble;
let t: TestCore | undefined;
const chats: TelegramReviewChat[] = [];

beforeEach(async () => {
  double = await startTelegramDouble({ chats: [{ id: CHAT, type: "private" }] });
});

afterEach(async () => {
  await t?.close();
  t = undefined;
  for (const chat of chats.splice(0)) await chat.stop();
  await double.stop();
});

/** A core whose review chat is a TelegramReviewChat over the double; each (re)open makes a new one (its memory gone). */
async function openCore(clock: SimulatedClock): Promise<TestCore> {
  const reviewChat = () => {
    const chat = reviewChatOnDouble(double, TEST_MODE_REVIEW_CHAT_ID, clock, { limits: UNPACED });
    chats.push(chat);
    return chat;
  };
  return openTestCore(undefined, { clock, env: { UNDO_WINDOW: "10s" }, reviewChat });
}

const undoButton = (v: ShownVersion | undefined) => JSON.stringify(v?.replyMarkup ?? null).includes("↩️ Undo");

/** The posted draft approved on its (deleted) post: its ↩️ Undo shows in a new message; resolves with that message's id. */
async function approvedOnDeletedPost(core: TestCore, d: DraftRecord): Promise<number> {
  double.deleteMessage(CHAT, d.review_message_id!);
  const outcome = await core.core.desk.decide({
    reviewChatId: d.review_chat_id!,
    reviewMessageId: d.review_message_id!,
    decision: "send",
    actor: { user_id: REVIEWER, channel: "test", emoji: "👍", update_id: null },
  });
  expect(outcome.ok).toBe(true);
  await core.core.desk.settle();
  expect(core.core.desk.get(d.draft_id)).toMatchObject({ status: "approved", undo_shown_at: expect.any(String) });
  const undo = double.messages(CHAT).at(-1)!;
  expect(undoButton(double.history(CHAT, undo.messageId).at(-1))).toBe(true);
  return undo.messageId;
}

/** Audit lines of the core's directory. */
async function auditLines(dir: string): Promise<Array<Record<string, unknown>>> {
  const text = await readFile(join(dir, "swarm.jsonl"), "utf8");
  return text
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe("an ↩️ Undo shown in a new message because the post could not be edited", () => {
  it("after a restart within the window, loses its Undo in the send's own turn (every edit of the post fails), and is used up", async () => {
    const clock = new SimulatedClock(wallClockNow());
    t = await openCore(clock);
    const d = await submitPosted(t, "Shown on a deleted post");
    const undoId = await approvedOnDeletedPost(t, d);
    // A restart: the new review chat knows the Undo message only from its surface.
    t = await t.reopen();
    const ends: number[] = [];
    double.onCall((call) => {
      if (call.method === "editMessageText" && Number(call.params["message_id"]) === undoId) ends.push(clock.now());
    });
    await clock.advance(12_000, () => t!.core.desk.settle());
    await t.core.desk.settle();
    const sent = t.core.desk.get(d.draft_id)!;
    expect(sent.status).toBe("sent");
    const last = double.history(CHAT, undoId).at(-1)!;
    expect(undoButton(last)).toBe(false);
    expect(last.text).toMatch(/^✅ Sent/);
    expect(ends[0]! - Date.parse(sent.sent_at!)).toBeLessThanOrEqual(2_000);
    const used = (await auditLines(t.dir)).filter((l) => l.kind === "surface_used" && l.message_id === undoId);
    expect(used).toHaveLength(1);
  });

  it("sent while its edit failed, loses its Undo at the next start", async () => {
    const clock = new SimulatedClock(wallClockNow());
    t = await openCore(clock);
    const d = await submitPosted(t, "Sent while Telegram refused edits");
    const undoId = await approvedOnDeletedPost(t, d);
    double.failNext("editMessageText", { error_code: 400, description: "Bad Request: message can't be edited", times: 20 });
    await clock.advance(12_000, () => t!.core.desk.settle());
    await t.core.desk.settle();
    expect(t.core.desk.get(d.draft_id)!.status).toBe("sent");
    expect(undoButton(double.history(CHAT, undoId).at(-1))).toBe(true);
    double.clearFaults();
    t = await t.reopen();
    await t.core.desk.settle();
    const last = double.history(CHAT, undoId).at(-1)!;
    expect(undoButton(last)).toBe(false);
    expect(last.text).toMatch(/^✅ Sent/);
    const used = (await auditLines(t.dir)).filter((l) => l.kind === "surface_used" && l.message_id === undoId);
    expect(used).toHaveLength(1);
  });
});

describe("a change of mind on an ↩️ Undo shown in its own message (issue 32, B6)", () => {
  for (const [how, decision, note, emoji, channel] of [
    ["a note replied to it", "revise", "Mention the projector too", null, "reply"],
    ["a 👎 on it", "revise", null, "👎", "reaction"],
    ["a 😴 on it", "defer", null, "😴", "reaction"],
  ] as const) {
    it(`${how}, inside the window: the approval is undone and the new decision applies; nothing is sent`, async () => {
      const clock = new SimulatedClock(wallClockNow());
      t = await openCore(clock);
      const d = await submitPosted(t, "Changed my mind on a deleted post");
      const undoId = await approvedOnDeletedPost(t, d);
      const outcome = await t.core.desk.decide({
        reviewChatId: d.review_chat_id!,
        reviewMessageId: undoId,
        decision,
        ...(note === null ? {} : { note }),
        actor: { user_id: REVIEWER, channel, emoji, update_id: null },
        actedAt: clock.now(),
      });
      expect(outcome.ok).toBe(true);
      await t.core.desk.settle();
      expect(t.core.desk.get(d.draft_id)).toMatchObject({ status: decision === "defer" ? "deferred" : "revise", approval: null });
      if (note !== null) expect(t.core.desk.get(d.draft_id)?.revision_note).toBe(note);
      await clock.advance(60_000, () => t!.core.desk.settle());
      expect(t.core.desk.get(d.draft_id)?.status).not.toBe("sent");
      // The Undo message no longer offers an Undo.
      expect(undoButton(double.history(CHAT, undoId).at(-1))).toBe(false);
    });
  }

  it("once the approval was undone, a decision on the old Undo message is refused: it was never a post", async () => {
    const clock = new SimulatedClock(wallClockNow());
    t = await openCore(clock);
    const d = await submitPosted(t, "Undone, then a 👍 on the Undo message");
    const undoId = await approvedOnDeletedPost(t, d);
    const actor = { user_id: REVIEWER, channel: "reaction" as const, emoji: "👍", update_id: null };
    expect((await t.core.desk.undo({ reviewChatId: d.review_chat_id!, reviewMessageId: undoId, actor })).ok).toBe(true);
    await t.core.desk.settle();
    const again = await t.core.desk.decide({ reviewChatId: d.review_chat_id!, reviewMessageId: undoId, decision: "send", actor });
    expect(again.ok).toBe(false);
    expect(t.core.desk.get(d.draft_id)?.status).toBe("pending");
  });
});
