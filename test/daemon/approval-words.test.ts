import { describe, expect } from "vitest";
import { eventually, type DaemonProcess } from "../support/daemon-process.js";
import {
  auditLines,
  GROUP,
  OWNER,
  payload,
  draftRecord,
  submitPending,
  liveTest,
  type LiveDaemonFixture,
} from "../support/live-fixture.js";

/**
 * Issue 20, point 1 (contract v3, "Replies that are not notes"): a reply that
 * is only an approval word is answered with a question and two buttons, and
 * nothing changes until one is tapped; the question counts once and loses its
 * buttons; a revise can be undone within UNDO_WINDOW like an approval, after
 * which a 👍 works. Through the real daemon and the Bot API double.
 */

// Each test has a Bot API double and daemons of its own, and the tests run at once: most of each is waiting on the real clock.
const it = liveTest();

type Rec = Record<string, any>;

const get = draftRecord;
const submitPosted = (d: DaemonProcess, text: string) => submitPending(d, payload(text));

const repliesTo = (live: LiveDaemonFixture, id: number) => live.double.messages(OWNER).filter((m) => m.replyToMessageId === id);
const buttons = (live: LiveDaemonFixture, id: number) =>
  (live.double.message(OWNER, id)?.reply_markup?.inline_keyboard ?? []).flat() as Rec[];

/** The reviewer replies `text` to the post; resolves with the bot's question, a reply to that reply. */
async function replyAndQuestion(live: LiveDaemonFixture, postId: number, text: string): Promise<Rec> {
  const { update } = live.double.injectMessage({ chatId: OWNER, userId: OWNER, text, replyToMessageId: postId });
  const replyId = update.message!.message_id;
  return eventually(() => repliesTo(live, replyId)[0], 10_000, `the question about "${text}"`);
}

describe.concurrent("a reply that is only an approval word", () => {
  it("is no revision note: the bot asks with buttons, nothing changes, and the revise button uses that reply as the note, once", async ({
    live,
  }) => {
    await live.start({ UNDO_WINDOW: "0" });
    const d = await submitPosted(live.daemon, "Hi team, the meeting moves to 10:00.");
    const question = await replyAndQuestion(live, d.review_message_id, "ok");
    expect(question.text).toContain("You replied “ok”.");
    const labels = buttons(live, question.messageId);
    expect(labels.map((b) => b.text)).toEqual(["👍 Send to Destination", "✍️ Revise: “ok”"]);
    expect(labels.map((b) => b.style)).toEqual(["success", "danger"]);
    expect((await get(live.daemon, d.draft_id)).status).toBe("pending");

    live.double.injectCallback({ chatId: OWNER, messageId: question.messageId, userId: OWNER, data: labels[1]!.callback_data });
    const revised = await eventually(async () => {
      const rec = await get(live.daemon, d.draft_id);
      return rec.status === "revise" ? rec : null;
    });
    expect(revised.revision_note).toBe("ok");
    await eventually(() => buttons(live, question.messageId).length === 0, 10_000, "the used question loses its buttons");

    // A second tap on it counts for nothing.
    live.double.injectCallback({ chatId: OWNER, messageId: question.messageId, userId: OWNER, data: labels[0]!.callback_data });
    await eventually(() => live.double.lastAnsweredCallback?.text?.startsWith("Not applied"), 10_000, "the refusal of the second tap");
    expect(live.double.messages(GROUP)).toHaveLength(0);
  });

  it("reads ok, okay, yes, y, send, send it, go and ✅ in any case with a trailing . or ! as a question; the send button sends", async ({
    live,
  }) => {
    await live.start({ UNDO_WINDOW: "0", TELEGRAM_RATE_SCALE: "20" });
    const d = await submitPosted(live.daemon, "Hi team, lunch is at 12.");
    let last: Rec = {};
    for (const word of ["OK.", "Okay!", "yes", "Y", "send", "Send it!", "go", "✅"]) {
      last = await replyAndQuestion(live, d.review_message_id, word);
      expect(last.text).toContain(`You replied “${word}”.`);
    }
    expect((await get(live.daemon, d.draft_id)).status).toBe("pending");
    live.double.injectCallback({
      chatId: OWNER,
      messageId: last.messageId,
      userId: OWNER,
      data: buttons(live, last.messageId)[0]!.callback_data,
    });
    await eventually(() => live.double.messages(GROUP).length === 1, 10_000, "the draft is sent");
    expect(live.double.messages(GROUP)[0]!.text).toBe("Hi team, lunch is at 12.");
  });

  it("a reply 👍 stays a send decision", async ({ live }) => {
    await live.start({ UNDO_WINDOW: "0" });
    const d = await submitPosted(live.daemon, "Hi team, all set.");
    live.double.injectMessage({ chatId: OWNER, userId: OWNER, text: "👍", replyToMessageId: d.review_message_id });
    await eventually(() => live.double.messages(GROUP).length === 1, 10_000, "the draft is sent");
  });
});

describe.concurrent("a revise within UNDO_WINDOW", () => {
  it("is undone by a reply `undo`: the draft awaits a decision again, the feed has an `undone` event, and a 👍 then sends", async ({
    live,
  }) => {
    await live.start({ UNDO_WINDOW: "1m" });
    const d = await submitPosted(live.daemon, "Hi team, the offsite is on.");
    live.double.injectMessage({ chatId: OWNER, userId: OWNER, text: "shorter please", replyToMessageId: d.review_message_id });
    await eventually(async () => (await get(live.daemon, d.draft_id)).status === "revise", 10_000, "revise");
    await eventually(() => buttons(live, d.review_message_id).some((b) => b.text === "↩️ Undo"), 10_000, "↩️ Undo on the post");
    expect(live.double.message(OWNER, d.review_message_id)!.text).toMatch(/^✍️ Revise: shorter please\n↩️ Undo until /);

    live.double.injectMessage({ chatId: OWNER, userId: OWNER, text: "undo", replyToMessageId: d.review_message_id });
    const back = await eventually(async () => {
      const rec = await get(live.daemon, d.draft_id);
      return rec.status === "pending" ? rec : null;
    });
    expect(back.revision_note).toBeNull();
    await eventually(() => live.double.message(OWNER, d.review_message_id)?.text?.startsWith("↩️ Undone"), 10_000, "↩️ Undone on the post");
    const events = (await live.daemon.request("GET", "/events?after=0")).body.events as Rec[];
    expect(events.filter((e) => e.draft_id === d.draft_id).map((e) => [e.kind, e.from, e.to])).toEqual([
      ["transition", null, "queued"],
      ["transition", "queued", "pending"],
      ["transition", "pending", "revise"],
      ["undone", "revise", "pending"],
    ]);

    // The 👍 after the undo works, and the post says so (its countdown).
    live.double.injectReaction({ chatId: OWNER, messageId: d.review_message_id, userId: OWNER, newEmojis: ["👍"] });
    await eventually(async () => (await get(live.daemon, d.draft_id)).status === "approved", 10_000, "approved");
    await eventually(
      () => live.double.message(OWNER, d.review_message_id)?.text?.startsWith("👍 Approved · Sending at"),
      10_000,
      "countdown",
    );
  });

  it("is undone by removing the 👎 and by ↩️ Undo; once the window is over, its dated ↩️ Undo on the post is answered too late", async ({
    live,
  }) => {
    await live.start({ UNDO_WINDOW: "3s" });
    const d = await submitPosted(live.daemon, "Hi team, a draft to send back.");
    live.double.injectReaction({ chatId: OWNER, messageId: d.review_message_id, userId: OWNER, newEmojis: ["👎"] });
    await eventually(async () => (await get(live.daemon, d.draft_id)).status === "revise", 10_000, "revise");
    live.double.injectReaction({ chatId: OWNER, messageId: d.review_message_id, userId: OWNER, oldEmojis: ["👎"], newEmojis: [] });
    await eventually(async () => (await get(live.daemon, d.draft_id)).status === "pending", 10_000, "undone by removing 👎");

    const revise = await eventually(
      () => buttons(live, d.review_message_id).find((b) => b.text === "❌ Revise"),
      10_000,
      "the buttons back",
    );
    live.double.injectCallback({ chatId: OWNER, messageId: d.review_message_id, userId: OWNER, data: revise.callback_data });
    await eventually(() => buttons(live, d.review_message_id).some((b) => b.text === "↩️ Undo"), 10_000, "↩️ Undo on the post");
    const undo = buttons(live, d.review_message_id).find((b) => b.text === "↩️ Undo")!;
    live.double.injectCallback({ chatId: OWNER, messageId: d.review_message_id, userId: OWNER, data: undo.callback_data });
    await eventually(async () => (await get(live.daemon, d.draft_id)).status === "pending", 10_000, "undone by ↩️ Undo");

    live.double.injectReaction({ chatId: OWNER, messageId: d.review_message_id, userId: OWNER, newEmojis: ["👎"] });
    const again = await eventually(
      async () => {
        const rec = await get(live.daemon, d.draft_id);
        return rec.status === "revise" ? rec : null;
      },
      10_000,
      "revise again",
    );
    const windowEnd = Date.parse(again.revise_undo.until);
    // The post dates its offer ("↩️ Undo until <time>"); no edit takes it off when the window ends (the machine's
    // revise has no show_status_at: test/drafts/machine.test.ts), so a tap after it is answered in words.
    await eventually(
      () => /^✍️ Sent back for revision\.\n↩️ Undo until \d\d:\d\d:\d\d\n/.test(live.double.message(OWNER, d.review_message_id)?.text ?? ""),
      10_000,
      "the post shows the revise with its dated ↩️ Undo",
    );
    await eventually(() => Date.now() > windowEnd + 100, 10_000, "the window over");
    // A tap of a stale ↩️ Undo (Telegram does not date taps: it counts when it arrives) is too late now.
    live.double.injectCallback({ chatId: OWNER, messageId: d.review_message_id, userId: OWNER, data: undo.callback_data });
    await eventually(
      () =>
        repliesTo(live, d.review_message_id).some(
          (m) => m.text === "↩️ Too late to undo: the undo window is over and the draft went back to Scribe for revision.",
        ),
      10_000,
      "too late",
    );
    expect((await get(live.daemon, d.draft_id)).status).toBe("revise");
    // A 👍 on it now is answered, not silent. Telegram dates a reaction in whole seconds, and a 👎 changed to 👍 dated
    // inside the window is a change of mind (D2): the 👍 is given a full second after the window (a precondition).
    await eventually(() => Date.now() > windowEnd + 1_100, 10_000, "a second past the window");
    live.double.injectReaction({ chatId: OWNER, messageId: d.review_message_id, userId: OWNER, oldEmojis: ["👎"], newEmojis: ["👍"] });
    await eventually(
      () => repliesTo(live, d.review_message_id).some((m) => m.text.startsWith("⚠️ Not applied: this draft was sent back for revision")),
      10_000,
      "the 👍 answered",
    );
    const undone = (await auditLines(live.daemon.harnessDir)).filter((l) => l.kind === "transition" && l.event === "undo");
    expect(undone.map((l) => [l.from, l.to])).toEqual([
      ["revise", "pending"],
      ["revise", "pending"],
    ]);
  });
});
