import { describe, expect } from "vitest";
import type { SentMessage } from "../telegram-double/index.js";
import { eventually } from "../support/daemon-process.js";
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
 * Issue 25, points 3 and 4 (contract v4, "Every message that asks, acts" and
 * "Times stay true"): a question takes its buttons only (a reaction or a reply
 * on it changes nothing and is answered "tap a button"); a reviewer's reply or
 * decision reaction on any other message of the bot's that cannot take it (a
 * final post, a notice, a command's answer) is answered, with the way to the
 * live post where the draft has one, and audited; a question once used or
 * overtaken says what became of it in its own text; the post's expiry is a
 * date_time entity. On main a 👍 reaction on the "ok" question approved the
 * draft, and replies to notices were ignored. Through the real daemon and the
 * Bot API double.
 */

// Each test has a Bot API double and daemons of its own, and the tests run at once: most of each is waiting on the real clock.
const it = liveTest();

type Rec = Record<string, any>;

const get = (live: LiveDaemonFixture, id: string) => draftRecord(live.daemon, id);
const buttons = (live: LiveDaemonFixture, id: number) =>
  (live.double.message(OWNER, id)?.reply_markup?.inline_keyboard ?? []).flat() as Rec[];
const textOf = (live: LiveDaemonFixture, id: number) => live.double.message(OWNER, id)?.text ?? "";
const repliesTo = (live: LiveDaemonFixture, id: number) => live.double.messages(OWNER).filter((m) => m.replyToMessageId === id);
const refusals = async (live: LiveDaemonFixture) => (await auditLines(live.daemon.harnessDir)).filter((l) => l.kind === "decision_refused");

/** The reviewer's reply to `messageId`; resolves with the reply's own message id. */
function reply(live: LiveDaemonFixture, messageId: number, text: string): number {
  return live.double.injectMessage({ chatId: OWNER, userId: OWNER, text, replyToMessageId: messageId }).update.message!.message_id;
}

/** The first message of the bot's that replies to `id` and starts with `start`. */
function answerTo(live: LiveDaemonFixture, id: number, start: string, what: string): Promise<SentMessage> {
  return eventually(() => repliesTo(live, id).find((m) => m.text.startsWith(start)), 10_000, what);
}

/** The question a reply "ok" to the post gets. */
async function okQuestion(live: LiveDaemonFixture, post: number): Promise<SentMessage> {
  const mine = reply(live, post, "ok");
  return eventually(() => repliesTo(live, mine)[0], 10_000, "the question about “ok”");
}

const TAP_A_BUTTON = "⚠️ Not applied: that question is answered by its buttons only";

/** A daemon (UNDO_WINDOW 0) with a draft of `text`, the "ok" question its post got, and the answer to a 👍 reaction on that question. */
async function thumbsOnOkQuestion(
  live: LiveDaemonFixture,
  text: string,
): Promise<{ d: Rec; question: SentMessage; tapAnswer: SentMessage }> {
  await live.start({ UNDO_WINDOW: "0" });
  const d = await submitPending(live.daemon, payload(text));
  const question = await okQuestion(live, d.review_message_id);
  live.double.injectReaction({ chatId: OWNER, messageId: question.messageId, userId: OWNER, newEmojis: ["👍"] });
  return { d, question, tapAnswer: await answerTo(live, question.messageId, TAP_A_BUTTON, "the answer to the reaction") };
}

describe.concurrent("a question takes its buttons only", () => {
  it("a 👍 reaction and a reply 👍 on the “ok” question change nothing and are answered “tap a button”; the tap sends, and the question says so", async ({
    live,
  }) => {
    const { d, question, tapAnswer: first } = await thumbsOnOkQuestion(live, "Hi team, the bus leaves at 8.");
    expect(first.text).toMatch(/Tap a button\.$/);
    reply(live, question.messageId, "👍");
    await eventually(() => repliesTo(live, question.messageId).filter((m) => m.text.startsWith(TAP_A_BUTTON)).length === 2, 10_000, "2nd");
    expect(await get(live, d.draft_id)).toMatchObject({ status: "pending", approval: null });
    expect(live.double.messages(GROUP)).toHaveLength(0);
    expect((await refusals(live)).map((l) => [l.reason, l.channel, l.review_message_id])).toEqual([
      ["taps_only", "reaction", question.messageId],
      ["taps_only", "reply", question.messageId],
    ]);
    // Its buttons still count.
    expect(buttons(live, question.messageId)).toHaveLength(2);

    live.double.injectCallback({
      chatId: OWNER,
      messageId: question.messageId,
      userId: OWNER,
      data: buttons(live, question.messageId)[0]!.callback_data,
    });
    await eventually(() => live.double.messages(GROUP).length === 1, 10_000, "the send");
    await eventually(
      () => buttons(live, question.messageId).length === 0 && textOf(live, question.messageId).endsWith("✅ You chose: send."),
      10_000,
      "closed",
    );
    expect(textOf(live, question.messageId)).toBe(
      "You replied “ok”. Send the draft to Destination, or send it back for revision with “ok” as the note?\n\n✅ You chose: send.",
    );
  });

  it("a 👍 on the large-audience confirmation is no confirmation: answered “tap a button”; its ✅ then sends, and it says so", async ({
    live,
  }) => {
    await live.start({ UNDO_WINDOW: "0", AUDIENCE_CONFIRM_OVER: "0" });
    const d = await submitPending(live.daemon, payload("Hi all, welcome."));
    live.double.injectReaction({ chatId: OWNER, messageId: d.review_message_id, userId: OWNER, newEmojis: ["👍"] });
    const question = await eventually(
      () => repliesTo(live, d.review_message_id).find((m) => buttons(live, m.messageId)[0]?.text?.startsWith("✅")),
      10_000,
      "the confirmation question",
    );
    live.double.injectReaction({ chatId: OWNER, messageId: question.messageId, userId: OWNER, newEmojis: ["👍"] });
    await answerTo(live, question.messageId, TAP_A_BUTTON, "the answer to the reaction");
    expect(await get(live, d.draft_id)).toMatchObject({ status: "pending" });
    expect(live.double.messages(GROUP)).toHaveLength(0);
    live.double.injectCallback({
      chatId: OWNER,
      messageId: question.messageId,
      userId: OWNER,
      data: buttons(live, question.messageId)[0]!.callback_data,
    });
    await eventually(() => live.double.messages(GROUP).length === 1, 10_000, "the send");
    await eventually(
      () => textOf(live, question.messageId).endsWith("\n\n✅ You chose: send."),
      10_000,
      "the question says what was chosen",
    );
  });

  it("an “ok” question the draft left behind (decided on its post) says what became of it, without buttons", async ({ live }) => {
    await live.start({ UNDO_WINDOW: "0" });
    const d = await submitPending(live.daemon, payload("Hi team, decided elsewhere."));
    const question = await okQuestion(live, d.review_message_id);
    expect(question.text).toMatch(/Nothing happens until you choose\.$/);
    live.double.injectReaction({ chatId: OWNER, messageId: d.review_message_id, userId: OWNER, newEmojis: ["👍"] });
    await eventually(() => live.double.messages(GROUP).length === 1, 10_000, "the send");
    const text = await eventually(
      () =>
        buttons(live, question.messageId).length === 0 &&
        textOf(live, question.messageId).includes("No longer applies") &&
        textOf(live, question.messageId),
      10_000,
      "the question closed",
    );
    expect(text).toMatch(/^You replied “ok”\. .*as the note\?\n\nNo longer applies: the draft was sent at \w{3} \d+ \w{3} \d\d:\d\d\.$/);
    expect(text).not.toContain("Nothing happens until you choose");
    const time = live.double.message(OWNER, question.messageId)!.entities!.find((e) => e.type === "date_time") as Rec;
    expect(text.slice(time.offset, time.offset + time.length)).toMatch(/^\w{3} \d+ \w{3} \d\d:\d\d$/);
    expect(time.unix_time).toBe(Math.floor(Date.parse((await get(live, d.draft_id)).sent_at) / 1000));
  });
});

describe.concurrent("a reply or reaction on a message of the bot's that cannot take it is answered and audited", () => {
  it("a reply to a sent draft's post (a note, a 👍) is answered as a reply to it, and audited", async ({ live }) => {
    await live.start({ UNDO_WINDOW: "0" });
    const d = await submitPending(live.daemon, payload("Hi team, sent already."));
    live.double.injectReaction({ chatId: OWNER, messageId: d.review_message_id, userId: OWNER, newEmojis: ["👍"] });
    await eventually(() => textOf(live, d.review_message_id).startsWith("✅ Sent at"), 10_000, "the post shows the send");
    reply(live, d.review_message_id, "mention the projector too");
    await answerTo(live, d.review_message_id, "⚠️ Not applied: this draft was already sent.", "the answer to the note");
    reply(live, d.review_message_id, "👍");
    await eventually(
      () => repliesTo(live, d.review_message_id).filter((m) => m.text === "⚠️ Not applied: this draft was already sent.").length === 2,
      10_000,
      "the answer to the 👍",
    );
    expect((await refusals(live)).map((l) => [l.reason, l.channel, l.decision, l.review_message_id])).toEqual([
      ["final_state", "reply", "revise", d.review_message_id],
      ["final_state", "reply", "send", d.review_message_id],
    ]);
    expect(live.double.messages(GROUP)).toHaveLength(1);
  });

  it("a reply (a 👍, a note) and a 👎 reaction on an expired draft's post are each answered as a reply to it, and audited; nothing is sent", async ({
    live,
  }) => {
    await live.start({ DRAFT_TTL: "2s" });
    const d = await submitPending(live.daemon, payload("Hi team, nobody decided on this one."));
    await eventually(
      () => textOf(live, d.review_message_id).startsWith("⌛ Expired without a decision."),
      10_000,
      "the post shows the expiry",
    );
    const EXPIRED = "⌛ Not applied: the draft has expired.";
    const answers = () => repliesTo(live, d.review_message_id).filter((m) => m.text === EXPIRED).length;
    reply(live, d.review_message_id, "👍");
    await eventually(() => answers() === 1, 10_000, "the answer to the reply 👍");
    reply(live, d.review_message_id, "mention the projector too");
    await eventually(() => answers() === 2, 10_000, "the answer to the note");
    live.double.injectReaction({ chatId: OWNER, messageId: d.review_message_id, userId: OWNER, newEmojis: ["👎"] });
    await eventually(() => answers() === 3, 10_000, "the answer to the reaction");
    const onPost = (await refusals(live)).filter((l) => l.review_message_id === d.review_message_id);
    expect(onPost.map((l) => [l.channel, l.decision, l.draft_id])).toEqual([
      ["reply", "send", d.draft_id],
      ["reply", "revise", d.draft_id],
      ["reaction", "revise", d.draft_id],
    ]);
    expect(await get(live, d.draft_id)).toMatchObject({ status: "expired" });
    expect(live.double.messages(GROUP)).toHaveLength(0);
  });

  it("a reply and a 👍 on a notice (the “outcome unknown” notice) are answered with what became of the draft, and audited", async ({
    live,
  }) => {
    await live.start({ UNDO_WINDOW: "0" });
    const d = await submitPending(live.daemon, payload("Hi team, maybe delivered."));
    live.double.dropResponseAfterAccept("sendMessage");
    live.double.injectReaction({ chatId: OWNER, messageId: d.review_message_id, userId: OWNER, newEmojis: ["👍"] });
    const notice = await answerTo(live, d.review_message_id, "⚠️ The send of this draft may or may not have reached", "the notice");
    reply(live, notice.messageId, "did it go out?");
    const answer = await answerTo(live, d.review_message_id, "⚠️ Not applied: that message only tells", "the answer to the reply");
    expect(answer.text).toBe("⚠️ Not applied: that message only tells; it takes no decision; this draft is outcome_unknown now.");
    live.double.injectReaction({ chatId: OWNER, messageId: notice.messageId, userId: OWNER, newEmojis: ["👍"] });
    await eventually(
      () => repliesTo(live, d.review_message_id).filter((m) => m.text === answer.text).length === 2,
      10_000,
      "the answer to the reaction",
    );
    const onNotice = (await refusals(live)).filter((l) => l.review_message_id === notice.messageId);
    expect(onNotice.map((l) => [l.reason, l.channel, l.draft_id])).toEqual([
      ["wrong_surface", "reply", d.draft_id],
      ["wrong_surface", "reaction", d.draft_id],
    ]);
    expect(live.double.messages(GROUP)).toHaveLength(1);
  });

  it("a reply 👍 to an answer about a pending draft points to its live post, as a reply to it; the draft stays as it is", async ({
    live,
  }) => {
    const { d, tapAnswer } = await thumbsOnOkQuestion(live, "Hi team, still pending.");
    reply(live, tapAnswer.messageId, "👍");
    const pointer = await answerTo(live, d.review_message_id, "⚠️ Not applied: that message only tells", "the pointer");
    expect(pointer.text).toBe(
      "⚠️ Not applied: that message only tells; it takes no decision. Decide on the live post, version 1 (the message this replies to).",
    );
    expect(await get(live, d.draft_id)).toMatchObject({ status: "pending" });
    expect(live.double.messages(GROUP)).toHaveLength(0);
    expect((await refusals(live)).at(-1)).toMatchObject({
      reason: "wrong_surface",
      channel: "reply",
      review_message_id: tapAnswer.messageId,
    });
  });

  it("a reply 👍 to a long draft's header (the draft is its own message below it) points to the draft's message; nothing is sent", async ({
    live,
  }) => {
    await live.start({ UNDO_WINDOW: "0" });
    const d = await submitPending(live.daemon, payload(`Hi team, ${"a long update. ".repeat(270)}`));
    const header = live.double.message(OWNER, d.review_message_id)!.reply_to_message!.message_id;
    expect(textOf(live, header)).toMatch(/^✏️ DRAFT \(Scribe\)/);
    reply(live, header, "👍");
    const pointer = await answerTo(live, d.review_message_id, "⚠️ Not applied: that message is part of a long draft's post", "the pointer");
    expect(pointer.text).toMatch(/Decide on the live post, version 1 \(the message this replies to\)\.$/);
    expect(await get(live, d.draft_id)).toMatchObject({ status: "pending" });
    expect(live.double.messages(GROUP)).toHaveLength(0);
  });

  it("a reply to a command's answer (/help) is answered, and audited", async ({ live }) => {
    await live.start();
    const before = live.double.messages(OWNER).length;
    live.double.injectMessage({ chatId: OWNER, userId: OWNER, text: "/help" });
    const help = await live.reviewChatMessage(before, /^Commands \(reviewers only\)/, "the /help answer");
    reply(live, help.messageId, "👍");
    const answer = await answerTo(live, help.messageId, "⚠️ Not applied:", "the answer");
    expect(answer.text).toBe("⚠️ Not applied: that message of mine takes no decision. /pending lists the drafts awaiting you.");
    expect((await refusals(live)).at(-1)).toMatchObject({
      reason: "unknown_review_message",
      channel: "reply",
      review_message_id: help.messageId,
    });
    // Replies to the reviewer's own messages are conversation, not decisions: left alone.
    const mine = reply(live, help.messageId, "note to self");
    reply(live, mine, "and another");
    await eventually(() => repliesTo(live, help.messageId).length === 2, 10_000, "the second answer");
    expect(repliesTo(live, mine)).toEqual([]);
    // Reactions on it (Telegram does not say whose message it is: the daemon knows its latest ones) are answered each time.
    live.double.injectReaction({ chatId: OWNER, messageId: help.messageId, userId: OWNER, newEmojis: ["👍"] });
    live.double.injectReaction({ chatId: OWNER, messageId: help.messageId, userId: OWNER, oldEmojis: ["👍"], newEmojis: ["👎"] });
    await eventually(
      () => repliesTo(live, help.messageId).filter((m) => m.text === answer.text).length === 4,
      10_000,
      "both reactions answered",
    );
    expect((await refusals(live)).filter((l) => l.channel === "reaction").map((l) => [l.reason, l.decision])).toEqual([
      ["unknown_review_message", "send"],
      ["unknown_review_message", "revise"],
    ]);
  });
});

describe.concurrent("times stay true", () => {
  it("the post's “Expires …” is an absolute time under a date_time entity with the draft's expiry", async ({ live }) => {
    await live.start();
    const d = await submitPending(live.daemon, payload("Hi team, when does this expire?"));
    const post = live.double.message(OWNER, d.review_message_id)!;
    expect(post.text).toMatch(/\nExpires \w{3} \d+ \w{3} \d\d:\d\d, unless decided\.\n/);
    const time = post.entities!.find((e) => e.type === "date_time") as Rec;
    expect(time).toMatchObject({ unix_time: Math.floor(Date.parse(d.expires_at) / 1000), date_time_format: "r" });
    expect(post.text!.slice(time.offset - "Expires ".length, time.offset)).toBe("Expires ");
    expect(post.text).not.toMatch(/\bin \d+ (h|min|s)\b/);
  });
});
