import pino from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { TEST_MODE_REVIEW_CHAT_ID } from "../../src/config/config.js";
import type { DraftRecord } from "../../src/drafts/record.js";
import { awaitsUndoShown } from "../../src/drafts/undo-window.js";
import type { TelegramReviewChat } from "../../src/telegram/review-chat.js";
import { FakeReviewChat } from "../../src/test-mode/fake-review-chat.js";
import { openTestCore, REVIEWER, submitPosted, type TestCore } from "../support/core.js";
import type { TelegramDouble } from "../telegram-double/index.js";

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
