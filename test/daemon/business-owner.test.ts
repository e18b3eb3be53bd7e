/**
 * One owner, and nothing the post does not say (contract v4: "One owner",
 * "What cannot happen is said before the tap", "What a draft answers is
 * shown"), through the real daemon and the Bot API double: only
 * OWNER_USER_ID's business connection sends as the owner; a draft that cannot
 * go as him says so on its post and offers only the bot; a reply is shown as
 * the send makes it.
 */
import { join } from "node:path";
import type { Message } from "grammy/types";
import { describe, expect } from "vitest";
import type { SentMessage } from "../telegram-double/index.js";
import { eventually, pathExists, type DaemonProcess } from "../support/daemon-process.js";
import { auditLines, FRIEND, GROUP, OWNER, STRANGER, liveTest, type LiveDaemonFixture } from "../support/live-fixture.js";

// Each test has a Bot API double and daemons of its own, and the tests run at once: most of each is waiting on the real clock.
const it = liveTest();
/** A second reviewer, who has a Telegram account of his own. */
const BOB = 2_220_002;
const TWO_REVIEWERS = { REVIEWER_USER_IDS: `${OWNER},${BOB}` };
const BOT = "@draft_review_test_bot";

function answer(text: string, extra: Record<string, unknown> = {}) {
  return { draft_text: text, destination_chat_id: String(FRIEND), drafted_by_role: "Scribe", originating_intent_id: "intent-o", ...extra };
}

/** Submits, and waits for the post when the review chat's pace queued it (a notice may have taken the slot). */
async function submit(d: DaemonProcess, payload: Record<string, unknown>) {
  const res = await d.request("POST", "/drafts", payload);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const answer = res.body as { draft_id: string; review_message_id: number | null; status: string; warnings?: string[] };
  if (answer.review_message_id !== null) return { ...answer, review_message_id: answer.review_message_id };
  const posted = await eventually(async () => (await record(d, answer.draft_id)).review_message_id as number | null, 10_000, "posted");
  return { ...answer, status: "pending", review_message_id: posted };
}

const record = async (d: DaemonProcess, id: string) => (await d.request("GET", `/drafts/${id}`)).body;
const statusIs = (d: DaemonProcess, id: string, status: string, ms = 15_000) =>
  eventually(async () => (await record(d, id)).status === status, ms, `draft ${status}`);
const post = (live: LiveDaemonFixture, messageId: number): SentMessage =>
  live.double.messages(OWNER).find((m) => m.messageId === messageId)!;
const buttons = (m: Pick<Message, "reply_markup"> | undefined) =>
  ((m?.reply_markup?.inline_keyboard ?? []) as Array<Array<{ text: string; callback_data?: string }>>).flat().map((b) => b.text);
const tap = (live: LiveDaemonFixture, messageId: number, data: string) =>
  live.double.injectCallback({ chatId: OWNER, messageId, userId: OWNER, data });
const sendCalls = (live: LiveDaemonFixture) => live.double.calls("sendMessage").map((c) => c.params as Record<string, unknown>);
const sendTo = (live: LiveDaemonFixture, chatId: number) => sendCalls(live).find((c) => String(c.chat_id) === String(chatId));
const toFriend = (live: LiveDaemonFixture) => live.double.messages(FRIEND);
const connectionLines = async (d: DaemonProcess) => (await auditLines(d.harnessDir)).filter((l) => l.kind === "business_connection");
const notices = (live: LiveDaemonFixture) => live.double.messages(OWNER).filter((m) => m.text.startsWith("⚠️ Telegram Business"));

/** Bob, the second reviewer, as Telegram knows him. */
function bobExists(live: LiveDaemonFixture): void {
  live.double.addUser({ id: BOB, firstName: "Bob", username: "bob_r" });
}

/** The owner connects the bot and Anna (FRIEND) writes to him; the daemon has seen both. */
async function annaWrote(live: LiveDaemonFixture, d: DaemonProcess, ageSeconds = 600) {
  const { id } = live.double.connectBusiness({ userId: OWNER });
  live.double.addUser({ id: FRIEND, firstName: "Anna", username: "anna_k" });
  const m = live.double.injectBusinessMessage({ connectionId: id, fromId: FRIEND, text: "Lunch today?", ageSeconds });
  await eventually(async () => (await d.request("GET", "/status")).body.business?.open_chats === 1, 10_000, "the daemon saw Anna write");
  return { connectionId: id, messageId: m.messageId };
}

describe.concurrent("one owner: only OWNER_USER_ID's business connection sends as the owner", () => {
  it("another reviewer's connection is ignored, audited and told once naming his account; drafts still go from the owner's", async ({
    live,
  }) => {
    const d = await live.start(TWO_REVIEWERS);
    bobExists(live);
    const { connectionId } = await annaWrote(live, d);
    const bob = live.double.connectBusiness({ userId: BOB });
    const told = await live.reviewChatMessage(0, /^⚠️ Telegram Business/, "Bob's connection told");
    expect(told.text).toBe(
      "⚠️ Telegram Business: Bob (@bob_r, user 2220002) connected this bot to their account. Ignored: drafts speak only as the owner " +
        "(Owner (@owner, user 5550001); OWNER_USER_ID), and nothing is sent from Bob's account. To make Bob the owner instead, " +
        "set OWNER_USER_ID=2220002 and restart.",
    );
    // Telegram tells of it again (a settings change, or a redelivery), and people write to Bob: audited, never told twice, never logged.
    live.double.changeBusiness(bob.id, { canReply: true });
    live.double.injectBusinessMessage({ connectionId: bob.id, fromId: STRANGER, text: "Hi Bob" });
    await eventually(async () => (await connectionLines(d)).filter((l) => l.outcome === "ignored").length === 2, 10_000, "audited twice");
    expect((await connectionLines(d)).map((l) => [l.outcome, l.user_id, l.reason])).toEqual([
      ["kept", OWNER, "connected"],
      ["ignored", BOB, "not_the_owner"],
      ["ignored", BOB, "not_the_owner"],
    ]);
    expect((await d.request("GET", "/status")).body.business).toMatchObject({ connection_id: connectionId, user_id: OWNER, open_chats: 1 });

    const a = await submit(d, answer("Yes, 12:30 at the usual place.", { send_as: "owner" }));
    expect(post(live, a.review_message_id).text).toMatch(
      /🗣 As you \(Owner, @owner\), in your chat with Anna \(Anna wrote \w{3} \d+ \w{3} \d\d:\d\d\)/,
    );
    expect(post(live, a.review_message_id).text).toContain("for 👤 Anna (@anna_k) · private chat");
    tap(live, a.review_message_id, `v1:send:${a.draft_id}`);
    await statusIs(d, a.draft_id, "sent");
    expect(toFriend(live).map((m) => [m.text, m.businessConnectionId, m.message.from?.id])).toEqual([
      ["Yes, 12:30 at the usual place.", connectionId, OWNER],
    ]);
    expect(sendCalls(live).some((p) => p.business_connection_id === bob.id)).toBe(false);
    expect(notices(live)).toHaveLength(1);
    expect(await pathExists(join(d.harnessDir, "business_ignored.json"))).toBe(true);
  }, 40_000);

  it("a second reviewer connects instead of the owner: a send_as owner draft is posted as the bot, saying so; nothing goes from his account", async ({
    live,
  }) => {
    const d = await live.start(TWO_REVIEWERS);
    bobExists(live);
    const bob = live.double.connectBusiness({ userId: BOB });
    live.double.injectBusinessMessage({ connectionId: bob.id, fromId: FRIEND, text: "Bob, are you there?" });
    await live.reviewChatMessage(0, /^⚠️ Telegram Business: Bob/, "Bob's connection told");
    expect((await d.request("GET", "/status")).body.business).toMatchObject({ connected: false, open_chats: 0 });
    const a = await submit(d, answer("I am here.", { send_as: "owner" }));
    expect(a.warnings).toEqual([expect.stringMatching(/^send_as: cannot send as the owner: your own Telegram account is not connected/)]);
    const p = post(live, a.review_message_id);
    expect(p.text).toContain(
      `🤖 As ${BOT}, not as you: your own Telegram account is not connected to the bot (the account connected to it is Bob (@bob_r), ` +
        "and drafts speak only as you, OWNER_USER_ID)",
    );
    expect(buttons(p.message)[0]).toBe(`👍 Send as ${BOT} to Friend`);
    expect(buttons(p.message).filter((b) => /as you/.test(b))).toEqual([]);
    tap(live, a.review_message_id, `v1:send:${a.draft_id}`);
    await statusIs(d, a.draft_id, "sent");
    expect(toFriend(live).map((m) => [m.text, m.businessConnectionId ?? "as the bot", m.message.from?.id])).toEqual([
      ["I am here.", "as the bot", live.double.botInfo.id],
    ]);
    expect(await record(d, a.draft_id)).toMatchObject({ send_as: "owner", sent_as: "bot", sender: { kind: "bot" } });
    expect(sendCalls(live).some((p) => p.business_connection_id !== undefined)).toBe(false);
  }, 40_000);

  it("OWNER_USER_ID changed across a restart: an approval bound to the old account halts at the send, never sending from another", async ({
    live,
  }) => {
    const d = await live.start({ ...TWO_REVIEWERS, UNDO_WINDOW: "5s" });
    bobExists(live);
    const { connectionId } = await annaWrote(live, d);
    const a = await submit(d, answer("See you at 1.", { send_as: "owner" }));
    tap(live, a.review_message_id, `v1:send:${a.draft_id}`);
    await statusIs(d, a.draft_id, "approved");
    const again = await live.restart({ ...TWO_REVIEWERS, UNDO_WINDOW: "5s", OWNER_USER_ID: String(BOB) });
    await statusIs(again, a.draft_id, "halted", 20_000);
    expect((await record(again, a.draft_id)).reason).toBe(
      `not sent as you: it was to go from the account of user ${OWNER}, and drafts speak only as user ${BOB} (OWNER_USER_ID)`,
    );
    const offer = await live.reviewChatMessage(0, /^⛔ Not sent as you/, "the reviewer told");
    expect(offer.text).toMatch(/It cannot go as you from this post \(a new draft can\)\.$/);
    // The saved connection of the former owner is forgotten, audited and told, as another account's.
    await live.reviewChatMessage(0, /^⚠️ Telegram Business: Owner \(@owner, user 5550001\)/, "the former owner's connection told");
    expect((await connectionLines(again)).map((l) => [l.outcome, l.user_id])).toEqual([
      ["kept", OWNER],
      ["forgotten", OWNER],
    ]);
    expect(sendCalls(live).filter((p) => p.business_connection_id === connectionId)).toEqual([]);
    expect(toFriend(live)).toEqual([]);
  }, 60_000);
});

describe.concurrent("the account Telegram names is the one that counts (issue 32, D5)", () => {
  it("getBusinessConnection at the send names another account for the owner's connection id: the saved one is forgotten and nothing goes 'as you'", async ({
    live,
  }) => {
    const d = await live.start(TWO_REVIEWERS);
    bobExists(live);
    const { connectionId } = await annaWrote(live, d);
    const a = await submit(d, answer("On my way.", { send_as: "owner" }));
    expect(post(live, a.review_message_id).text).toMatch(/🗣 As you \(Owner, @owner\), in your chat with Anna/);
    // Telegram now says the id is Bob's, and sends no update about it: only the check at the send can see it.
    live.double.moveBusiness(connectionId, BOB);
    tap(live, a.review_message_id, `v1:send:${a.draft_id}`);
    await statusIs(d, a.draft_id, "halted");
    expect((await record(d, a.draft_id)).reason).toBe(
      "not sent as you: Telegram now names another account, Bob (@bob_r, user 2220002), as the owner of the business connection " +
        "this draft was to go through",
    );
    const offer = await live.reviewChatMessage(0, /^⛔ Not sent as you/, "the reviewer told");
    expect(offer.text).toMatch(/^⛔ Not sent as you: Telegram now names another account, Bob \(@bob_r, user 2220002\)/);
    expect(toFriend(live)).toEqual([]);
    expect(sendCalls(live).filter((p) => p.business_connection_id !== undefined)).toEqual([]);
    // The saved connection is forgotten (audited with why), and the id is Bob's: ignored like any other account's.
    expect((await connectionLines(d)).map((l) => [l.outcome, l.user_id, l.reason])).toEqual([
      ["kept", OWNER, "connected"],
      ["forgotten", OWNER, `Telegram names another account for it (user ${BOB}), not the owner's`],
      ["ignored", BOB, "not_the_owner"],
    ]);
    expect((await d.request("GET", "/status")).body.business).toMatchObject({ connected: false });
    expect(await pathExists(join(d.harnessDir, "business_connection.json"))).toBe(false);
  }, 40_000);

  it("the check at start names another account for the saved connection's id: forgotten before any draft is posted as the owner", async ({
    live,
  }) => {
    await live.start(TWO_REVIEWERS);
    bobExists(live);
    const { connectionId } = await annaWrote(live, live.daemon);
    live.double.moveBusiness(connectionId, BOB);
    const d = await live.restart(TWO_REVIEWERS);
    await eventually(async () => (await connectionLines(d)).some((l) => l.outcome === "forgotten"), 10_000, "forgotten at start");
    expect((await connectionLines(d)).map((l) => [l.outcome, l.user_id])).toEqual([
      ["kept", OWNER],
      ["forgotten", OWNER],
      ["ignored", BOB],
    ]);
    const a = await submit(d, answer("Noted.", { send_as: "owner" }));
    expect(buttons(post(live, a.review_message_id).message).filter((b) => /as you/.test(b))).toEqual([]);
    expect(post(live, a.review_message_id).text).toContain(`🤖 As ${BOT}, not as you`);
  }, 40_000);
});

describe.concurrent("what cannot happen is said before the tap", () => {
  it("send_as owner to a person who never wrote: the post says why, names the person, and offers only the bot; a 👍 sends as the bot", async ({
    live,
  }) => {
    const d = await live.start();
    live.double.connectBusiness({ userId: OWNER });
    await eventually(async () => (await d.request("GET", "/status")).body.business?.connected === true, 10_000, "connected");
    // A reply to a message of the owner's own chat: the bot cannot make it, and the post says so.
    const a = await submit(d, answer("Hello Friend!", { send_as: "owner", reply_to_message_id: 3 }));
    const p = post(live, a.review_message_id);
    expect(p.text).toContain("— for 👤 Friend · private chat");
    expect(p.text).toContain(
      `🤖 As ${BOT}, not as you: Friend has not written to you in the last 24 h (as far as this daemon saw), ` +
        "and Telegram lets you answer as yourself only then",
    );
    expect(p.text).toContain("↩️ Not as a reply: message 3 is in your own chat with them, where the bot cannot reply");
    expect(p.text).not.toContain("4242");
    expect(buttons(p.message).filter((b) => b.startsWith("👍"))).toEqual([`👍 Send as ${BOT} to Friend`]);
    expect(buttons(p.message).filter((b) => /as you/.test(b))).toEqual([]);
    tap(live, a.review_message_id, `v1:send:${a.draft_id}`);
    await statusIs(d, a.draft_id, "sent");
    expect(toFriend(live).map((m) => [m.text, m.businessConnectionId ?? "as the bot", m.replyToMessageId ?? "no reply"])).toEqual([
      ["Hello Friend!", "as the bot", "no reply"],
    ]);
    expect(sendTo(live, FRIEND)?.reply_parameters).toBeUndefined();

    // A person the bot does not know either: named by id as a last resort, with why.
    const b = await submit(d, answer("Hi.", { send_as: "owner", destination_chat_id: "4242" }));
    expect(post(live, b.review_message_id).text).toContain(
      `🤖 As ${BOT}, not as you: user 4242 (unknown to the bot: the bot cannot see this chat (Telegram: Bad Request: chat not found)) has not written to you`,
    );
  }, 40_000);

  it("the follow-up of a send that could not go as the owner says what would let it, never to simply try again", async ({ live }) => {
    const d = await live.start({ UNDO_WINDOW: "3s" });
    const { connectionId } = await annaWrote(live, d, 60);
    const a = await submit(d, answer("Running late.", { send_as: "owner" }));
    live.double.changeBusiness(connectionId, { canReply: false });
    await eventually(async () => (await d.request("GET", "/status")).body.business?.can_reply === false, 10_000, "can_reply off");
    tap(live, a.review_message_id, `v1:send:${a.draft_id}`);
    const offer = await live.reviewChatMessage(0, /^⛔ Not sent as you/, "the reviewer told");
    expect(offer.text).toBe(
      "⛔ Not sent as you: the business connection lost the right to reply (can_reply). Nothing went out, and it is not sent as anyone " +
        "else by itself. Tap “🤖 Send as the bot instead” below to send it from the bot (a new approval). A 👍 on the post can send it " +
        "as you only once you let the bot reply to messages again (Settings → Telegram Business → Chatbots).",
    );
    expect(offer.text).not.toMatch(/try as you again/);
  }, 40_000);
});

describe.concurrent("what a draft answers is shown, and the send does exactly that", () => {
  it("a reply to a message the daemon did not see: shown as such; the send replies to that message only", async ({ live }) => {
    const d = await live.start();
    const { connectionId } = await annaWrote(live, d);
    const a = await submit(d, answer("Yes, that one.", { send_as: "owner", reply_to_message_id: 4711 }));
    const p = post(live, a.review_message_id);
    expect(p.text).toContain("↩️ In reply to message 4711, not seen here");
    expect(p.text).not.toContain("Lunch today?");
    // The reply is part of what the post's approval binds.
    const surface = await eventually(
      async () => (await auditLines(d.harnessDir)).find((l) => l.kind === "surface" && l.draft_id === a.draft_id),
      10_000,
      "the post's surface",
    );
    expect(surface.identity).toBe(`owner:${OWNER}:${connectionId}:${FRIEND}>4711`);
    tap(live, a.review_message_id, `v1:send:${a.draft_id}`);
    await statusIs(d, a.draft_id, "sent");
    const call = sendTo(live, FRIEND)!;
    expect(call.reply_parameters).toEqual({ message_id: 4711, allow_sending_without_reply: false });
    expect(call.business_connection_id).toBe(connectionId);

    // As the bot, in a group: a message there is replied to; one that is not there refuses the send (no plain message instead).
    const there = live.double.injectMessage({ chatId: GROUP, userId: STRANGER, text: "Who brings the projector?" });
    const thereId = (there.update.message as Message).message_id;
    const b = await submit(d, answer("I will.", { destination_chat_id: String(GROUP), reply_to_message_id: thereId }));
    expect(post(live, b.review_message_id).text).toContain(`↩️ In reply to message ${thereId}, not seen here`);
    const c = await submit(d, answer("Me too.", { destination_chat_id: String(GROUP), reply_to_message_id: 999_999 }));
    expect(post(live, c.review_message_id).text).toContain("↩️ In reply to message 999999, not seen here");
    tap(live, b.review_message_id, `v1:send:${b.draft_id}`);
    tap(live, c.review_message_id, `v1:send:${c.draft_id}`);
    await statusIs(d, b.draft_id, "sent");
    await statusIs(d, c.draft_id, "failed");
    expect((await record(d, c.draft_id)).reason).toMatch(/message to be replied not found/);
    expect(live.double.messages(GROUP).map((m) => [m.text, m.replyToMessageId])).toEqual([["I will.", thereId]]);
  }, 40_000);
});
