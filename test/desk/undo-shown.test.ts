import pino from "pino";
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, describe, expect, it, vi } from "vitest";
import { SimulatedClock } from "../../src/clock/simulated-clock.js";
import { TEST_MODE_REVIEW_CHAT_ID } from "../../src/config/config.js";
import type { DraftRecord } from "../../src/drafts/record.js";
import { awaitsUndoShown } from "../../src/drafts/undo-window.js";
import type { SendMessageCall } from "../../src/channels/telegram/send-call.js";
import type { TelegramReviewChat } from "../../src/telegram/review-chat.js";
import { FakeReviewChat } from "../../src/test-mode/fake-review-chat.js";
import { openTestCore, REVIEWER, submitPosted, type TestCore } from "../support/core.js";
import { wallClockNow } from "../support/drafts.js";
import { reviewChatOnDouble } from "../support/review-chat.js";
import { startTelegramDouble, type ShownVersion, type TelegramDouble } from "../telegram-double/index.js";

// Issue 25, point 1 follow-ups (contract v4, "The undo window is what the chat shows"), the real
// core on real files with a simulated clock: an approval whose version moved while its ↩️ Undo was
// being shown still gets its window (and is sent), and a send that Telegram asks to retry later
// takes the ↩️ Undo off the post while it waits.

let t: TestCore | undefined;
let double: TelegramDouble | undefined;
let chat: TelegramReviewChat | undefined;

afterEach(async () => {
  await t?.close();
  t = undefined;
  await chat?.stop();
  chat = undefined;
  await double?.stop();
  double = undefined;
});

const thumbsUp = { user_id: REVIEWER, channel: "test" as const, emoji: "👍", update_id: null };

async function approve(core: TestCore, d: DraftRecord): Promise<void> {
  const outcome = await core.core.desk.decide({
    reviewChatId: d.review_chat_id!,
    reviewMessageId: d.review_message_id!,
    decision: "send",
    actor: thumbsUp,
  });
  expect(outcome.ok).toBe(true);
  await core.core.desk.settle();
}

/** Test mode's review chat, where the first edit showing an approval's ↩️ Undo races `race` (run once, before it resolves). */
class RacingReviewChat extends FakeReviewChat {
  race: ((draft: DraftRecord) => Promise<void>) | null = null;
  readonly shown: number[] = [];

  override async showStatus(draft: DraftRecord, latest: () => DraftRecord | undefined = () => draft): Promise<undefined> {
    const current = latest() ?? draft;
    if (awaitsUndoShown(current)) this.shown.push(current.version);
    const race = this.race;
    this.race = null;
    if (race !== null && awaitsUndoShown(current)) await race(current);
    return super.showStatus(current);
  }
}

describe("an approval whose version moves while its ↩️ Undo is being shown", () => {
  it("is shown again and gets its window from that edit: never stuck approved and unsent", async () => {
    let racing: RacingReviewChat | undefined;
    t = await openTestCore(undefined, {
      env: { UNDO_WINDOW: "10s" },
      reviewChat: (existing, surfaces) => {
        racing = new RacingReviewChat(TEST_MODE_REVIEW_CHAT_ID, existing, pino({ level: "silent" }), surfaces);
        return racing;
      },
    });
    const d = await submitPosted(t, "Approved while another role revises it");
    // Between Telegram accepting the edit and undo_shown: another role's draft names this one in `revises`.
    racing!.race = async (shown) => {
      const moved = await t!.core.desk.apply(shown.draft_id, { type: "revised", byDraftId: "d_later" });
      expect(moved.ok).toBe(true);
    };
    await approve(t, d);
    const approved = t.core.desk.get(d.draft_id)!;
    expect(approved).toMatchObject({ status: "approved", revised_by: "d_later", undo_shown_at: expect.any(String) });
    expect(racing!.shown).toHaveLength(2);
    await t.clock.advance(11_000, () => t!.core.desk.settle());
    await t.core.desk.settle();
    expect(t.core.desk.get(d.draft_id)!.status).toBe("sent");
    expect(t.sends.map((s) => s.text)).toEqual(["Approved while another role revises it"]);
  });
});

describe("a send slower than the review chat's turn that Telegram asks to retry later", () => {
  it("takes the ↩️ Undo off the post while the retry waits", async () => {
    const CHAT = Number(TEST_MODE_REVIEW_CHAT_ID);
    const telegram = await startTelegramDouble({ chats: [{ id: CHAT, type: "private" }] });
    double = telegram;
    const clock = new SimulatedClock(wallClockNow());
    const unpaced = { gapMs: 0, perMinute: 1_000_000, reservedForAnswers: 0 };
    let calls = 0;
    // The destination takes 3 s (longer than the send holds the review chat's turn), then answers 429 retry after 60 s.
    const sendCall: SendMessageCall = async () => {
      calls++;
      await new Promise<void>((resolve) => clock.setTimeout(resolve, 3_000));
      return { kind: "retry_after", seconds: 60, reason: "429: Too Many Requests: retry after 60" };
    };
    t = await openTestCore(undefined, {
      clock,
      env: { UNDO_WINDOW: "10s" },
      sendCall,
      reviewChat: () => {
        chat = reviewChatOnDouble(telegram, TEST_MODE_REVIEW_CHAT_ID, clock, { limits: unpaced });
        return chat;
      },
    });
    const d = await submitPosted(t, "Sent into a rate limit");
    await approve(t, d);
    const undoButton = (v: ShownVersion | undefined) => JSON.stringify(v?.replyMarkup ?? null).includes("↩️ Undo");
    expect(undoButton(double.history(CHAT, d.review_message_id!).at(-1))).toBe(true);
    // The window ends, the send starts, its call outlasts the turn and ends in send_retry. The send call
    // waits on the simulated clock: between timers, wait for the desk to settle or a moment, whichever is first.
    await clock.advance(15_000, () => Promise.race([t!.core.desk.settle(), sleep(100)]));
    await vi.waitFor(() =>
      expect(t!.core.desk.get(d.draft_id)).toMatchObject({ status: "approved", reason: expect.stringContaining("429") }),
    );
    await t.core.desk.settle();
    expect(calls).toBe(1);
    const last = double.history(CHAT, d.review_message_id!).at(-1)!;
    expect(undoButton(last)).toBe(false);
    expect(last.text).toMatch(/^👍 Approved · 📤 Sending as soon as Telegram allows/);
  });
});
