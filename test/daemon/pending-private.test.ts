import { describe, expect, it } from "vitest";
import { eventually, type DaemonProcess } from "../support/daemon-process.js";
import { OWNER, payload, STRANGER, useLiveDaemon } from "../support/live-fixture.js";

/**
 * Issue 20, point 5: /pending in a private review chat. No "message 107"
 * (Telegram shows no message numbers); each listed draft leads to its post in
 * one tap (a button that answers with a reply to the post, whose quote is
 * tappable); the rest page by page with buttons. Through the real daemon and
 * the Bot API double.
 */

const live = useLiveDaemon();

type Rec = Record<string, any>;

async function submitPosted(d: DaemonProcess, text: string): Promise<Rec> {
  const res = await d.request("POST", "/drafts", payload(text));
  expect(res.status).toBe(201);
  return eventually(async () => {
    const rec = (await d.request("GET", `/drafts/${res.body.draft_id}`)).body;
    return rec.status === "pending" ? rec : null;
  });
}

const buttons = (id: number) => (live.double.message(OWNER, id)?.reply_markup?.inline_keyboard ?? []).flat() as Rec[];

describe("/pending in a private review chat", () => {
  it("numbers the drafts without message ids; a number's button replies to that draft's post; ◀ ▶ turn the pages in place", async () => {
    await live.start({ TELEGRAM_RATE_SCALE: "50" });
    const drafts: Rec[] = [];
    for (let i = 1; i <= 10; i++) drafts.push(await submitPosted(live.daemon, `Hi team, draft number ${i}.`));
    const before = live.double.messages(OWNER).length;
    live.double.injectMessage({ chatId: OWNER, userId: OWNER, text: "/pending" });
    const list = await live.reviewChatMessage(before, /awaiting a decision/, "the /pending answer");
    expect(list.text).toContain("10 drafts awaiting a decision (oldest first, page 1 of 2):");
    expect(list.text).not.toMatch(/message \d|npx draft-review/);
    const first = buttons(list.messageId);
    expect(first.map((b) => b.text)).toEqual(["1 ↗", "2 ↗", "3 ↗", "4 ↗", "5 ↗", "6 ↗", "7 ↗", "8 ↗", "Next ▶"]);

    // One tap on "3 ↗": the bot answers with a reply to draft 3's post.
    live.double.injectCallback({ chatId: OWNER, messageId: list.messageId, userId: OWNER, data: first[2]!.callback_data });
    const pointer = await eventually(
      () => live.double.messages(OWNER).find((m) => m.replyToMessageId === drafts[2]!.review_message_id),
      10_000,
      "a reply to draft 3's post",
    );
    expect(pointer.text).toMatch(/^⬆️ Scribe → Destination \(pending\): tap the quote above/);

    // A stranger's tap leads nowhere.
    live.double.injectCallback({ chatId: OWNER, messageId: list.messageId, userId: STRANGER, data: first[3]!.callback_data });
    await eventually(
      () => live.double.lastAnsweredCallback?.text === "Only the reviewer can use this list.",
      10_000,
      "the stranger's answer",
    );

    // Next ▶ edits the same message to page 2, with ◀ back.
    live.double.injectCallback({ chatId: OWNER, messageId: list.messageId, userId: OWNER, data: first.at(-1)!.callback_data });
    await eventually(() => live.double.message(OWNER, list.messageId)?.text?.includes("page 2 of 2"), 10_000, "page 2");
    expect(live.double.message(OWNER, list.messageId)!.text).toContain("9. Scribe");
    expect(buttons(list.messageId).map((b) => b.text)).toEqual(["9 ↗", "10 ↗", "◀ Previous"]);
    expect(live.double.messages(OWNER).filter((m) => m.replyToMessageId === drafts[3]!.review_message_id)).toHaveLength(0);
  });
});
