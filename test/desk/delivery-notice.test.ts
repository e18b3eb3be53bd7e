import { readFile } from "node:fs/promises";
import { join } from "node:path";
import pino from "pino";
import { afterEach, describe, expect, it } from "vitest";
import type { CoreEdges } from "../../src/app/core.js";
import type { SendMessageCall } from "../../src/channels/telegram/send-call.js";
import { FakeReviewChat } from "../../src/test-mode/fake-review-chat.js";
import { openTestCore, REVIEWER, type TestCore } from "../support/core.js";

/**
 * Issue 34: a delivery of a fan-out whose outcome is unknown is told to the
 * owner in the review chat, durably: a notice a crash (or a failed call) kept
 * from going out goes out at the next start, once; one that went out is not
 * told again.
 */

let t: TestCore | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const A = "-1001111111111";
const B = "-1002222222222";

/** Test mode's review chat whose notices are recorded; `lose` makes each notice fail before it reaches the chat (a crash). */
function reviewChat(notices: string[], lose = false): CoreEdges["makeReviewChat"] {
  return (existing, surfaces) => {
    const chat = new FakeReviewChat(String(REVIEWER), existing, pino({ level: "silent" }), surfaces);
    const notify = chat.notify.bind(chat);
    chat.notify = async (draft, text) => {
      if (lose) throw new Error("the daemon died before the notice reached Telegram");
      notices.push(text);
      return notify(draft, text);
    };
    return chat;
  };
}

/** The send call: no answer from chat A (outcome unknown), B accepts. */
const sendCall: SendMessageCall = async ({ chatId }) =>
  chatId === A ? { kind: "unknown", reason: "the connection dropped after the request was sent" } : { kind: "ok", messageId: 77 };

async function noticeLines(dir: string): Promise<Record<string, unknown>[]> {
  const lines = (await readFile(join(dir, "swarm.jsonl"), "utf8")).split("\n").filter(Boolean);
  return lines.map((l) => JSON.parse(l)).filter((l) => l.kind === "notice");
}

/** A draft to both groups (choose any), posted and approved with one 👍; resolves once its deliveries are done: its id. */
async function approvedToBoth(tc: TestCore, text: string): Promise<string> {
  const submitted = await tc.core.intake.submit({
    draft_text: text,
    drafted_by_role: "CoS",
    originating_intent_id: `i-${text}`,
    destinations: [
      { channel: "telegram", chat_id: A, thread_id: null },
      { channel: "telegram", chat_id: B, thread_id: null },
    ],
    choose: "any",
  });
  if (!submitted.ok) throw new Error(JSON.stringify(submitted));
  await tc.core.desk.settle();
  const posted = tc.core.desk.get(submitted.answer.draft_id)!;
  const decided = await tc.core.desk.decide({
    reviewChatId: posted.review_chat_id!,
    reviewMessageId: posted.review_message_id!,
    decision: "send",
    actor: { user_id: REVIEWER, channel: "test", emoji: "👍", update_id: null },
  });
  expect(decided.ok).toBe(true);
  await tc.core.desk.settle();
  return posted.draft_id;
}

describe("a fan-out delivery whose outcome is unknown: the owner is always told", () => {
  it("a notice lost between the delivery's outcome_unknown and the review chat goes out at the next start, naming the delivery, once", async () => {
    const lost: string[] = [];
    t = await openTestCore(undefined, { sendCall, reviewChat: reviewChat(lost, true) });
    const id = await approvedToBoth(t, "To both groups.");
    expect(t.core.desk.get(id)).toMatchObject({
      status: "partly_sent",
      deliveries: [
        { index: 1, status: "outcome_unknown" },
        { index: 2, status: "sent" },
      ],
    });
    expect(lost).toEqual([]);
    expect(await noticeLines(t.dir)).toEqual([]);

    const told: string[] = [];
    t = await t.reopen({ reviewChat: reviewChat(told) });
    expect(told).toEqual([
      "⚠️ The send of this draft may or may not have reached the destination (destination 1: the connection dropped after the request was sent). It will not be sent again automatically: check the destination (the chat, the issue, the conversation or the sent mail).",
    ]);
    expect(await noticeLines(t.dir)).toEqual([expect.objectContaining({ draft_id: id, delivery: 1 })]);

    // Told once: the next start finds the notice recorded.
    const again: string[] = [];
    t = await t.reopen({ reviewChat: reviewChat(again) });
    expect(again).toEqual([]);
  });

  it("a notice that went out at the time is not told again at the next start", async () => {
    const told: string[] = [];
    t = await openTestCore(undefined, { sendCall, reviewChat: reviewChat(told) });
    await approvedToBoth(t, "To both groups, told.");
    expect(told).toEqual([expect.stringContaining("(destination 1: the connection dropped")]);
    const after: string[] = [];
    t = await t.reopen({ reviewChat: reviewChat(after) });
    expect(after).toEqual([]);
  });
});
