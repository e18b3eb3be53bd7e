import pino from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { ReviewChatStopped } from "../../src/desk/ports.js";
import { TEST_MODE_REVIEW_CHAT_ID } from "../../src/config/config.js";
import { FakeReviewChat } from "../../src/test-mode/fake-review-chat.js";
import { openTestCore, REVIEWER, submitPosted, type TestCore } from "../support/core.js";

let t: TestCore | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

describe("a review chat call the stop dropped before its turn", () => {
  it("is told once, at close, as left for the next start: never logged as a failed effect", async () => {
    const lines: Array<{ level: number; msg: string; calls?: number }> = [];
    const log = pino({ level: "info" }, { write: (line: string) => void lines.push(JSON.parse(line)) });
    let stopping = false;
    t = await openTestCore(undefined, {
      log,
      reviewChat: (existing, surfaces) => {
        const chat = new FakeReviewChat(TEST_MODE_REVIEW_CHAT_ID, existing, pino({ level: "silent" }), surfaces);
        const show = chat.showStatus.bind(chat);
        // As the daemon's review lane does for the calls still waiting when it stops.
        chat.showStatus = (draft) => (stopping ? Promise.reject(new ReviewChatStopped()) : show(draft));
        return chat;
      },
    });
    const first = await submitPosted(t, "Sent while the review chat stops");
    const second = await submitPosted(t, "Also sent while it stops");
    stopping = true;
    for (const d of [first, second]) {
      await t.core.desk.decide({
        reviewChatId: d.review_chat_id!,
        reviewMessageId: d.review_message_id!,
        decision: "send",
        actor: { user_id: REVIEWER, channel: "test", emoji: null, update_id: null },
      });
    }
    await t.core.desk.settle();
    expect(t.sends).toHaveLength(2);
    await t.close();
    t = undefined;
    expect(lines.filter((l) => l.msg === "effect failed")).toEqual([]);
    const told = lines.filter((l) => l.calls !== undefined);
    expect(told).toHaveLength(1);
    expect(told[0]).toMatchObject({ level: 30, calls: expect.any(Number) });
    expect(told[0]!.msg).toMatch(
      /^stopped before \d+ review chat post\(s\) or edit\(s\) had their turn; each the records say is owed is made at the next start$/,
    );
  });
});
