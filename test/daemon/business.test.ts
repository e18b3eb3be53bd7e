/**
 * Sending as the owner (contract v3, Telegram Business) through the real
 * daemon and the Bot API double: the owner connects the bot to his account,
 * a person writes to him, a draft answers as him; and every way that can stop
 * being allowed between the approval and the send halts it, never falling
 * back to the bot by itself.
 */
import { join } from "node:path";
import type { Message, MessageEntity } from "grammy/types";
import { describe, expect } from "vitest";
import type { SentMessage } from "../telegram-double/index.js";
import { eventually, pathExists, type DaemonProcess } from "../support/daemon-process.js";
import { auditLines, FRIEND, OWNER, STRANGER, liveTest, type LiveDaemonFixture } from "../support/live-fixture.js";

// Each test has a Bot API double and daemons of its own, and the tests run at once: most of each is waiting on the real clock.
const it = liveTest();
const HOUR_S = 3600;

function answer(text: string, extra: Record<string, unknown> = {}) {
  return { draft_text: text, destination_chat_id: String(FRIEND), drafted_by_role: "Scribe", originating_intent_id: "intent-b", ...extra };
}

/** The owner connects the bot; Anna (FRIEND) writes to him `ageSeconds` ago; the daemon has seen both. */
async function annaWrote(live: LiveDaemonFixture, d: DaemonProcess, ageSeconds: number, text = "Are we still on for Friday?") {
  const { id } = live.double.connectBusiness({ userId: OWNER });
  const m = live.double.injectBusinessMessage({ connectionId: id, fromId: FRIEND, text, ageSeconds, firstName: "Anna" });
  await eventually(async () => (await d.request("GET", "/status")).body.business?.open_chats === 1, 10_000, "the daemon saw Anna write");
  return { connectionId: id, messageId: m.messageId };
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
  ((m?.reply_markup?.inline_keyboard ?? []) as Array<Array<{ text: string; callback_data?: string }>>).flat();
const tap = (live: LiveDaemonFixture, messageId: number, data: string) =>
  live.double.injectCallback({ chatId: OWNER, messageId, userId: OWNER, data });
const asOwnerCalls = (live: LiveDaemonFixture) =>
  live.double.calls("sendMessage").filter((c) => (c.params as Record<string, unknown>).business_connection_id);
const toAnna = (live: LiveDaemonFixture) => live.double.messages(FRIEND);

/** The notice of a draft not sent as the owner, with its "🤖 Send as the bot instead" button. */
async function offered(live: LiveDaemonFixture): Promise<SentMessage> {
  const offer = await eventually(
    () => live.double.messages(OWNER).find((m) => m.text.startsWith("⛔ Not sent as you")),
    10_000,
    "the reviewer told, and offered the bot",
  );
  expect(buttons(offer.message).map((b) => b.text)).toEqual(["🤖 Send as the bot instead"]);
  return offer;
}

const refusals = async (d: DaemonProcess, draftId: string) =>
  (await auditLines(d.harnessDir)).filter((l) => l.kind === "decision_refused" && l.draft_id === draftId).map((l) => l.reason);

function quotes(m: SentMessage): string[] {
  return (m.entities ?? []).filter((e: MessageEntity) => e.type === "blockquote").map((e) => m.text.slice(e.offset, e.offset + e.length));
}

describe.concurrent("sending as the owner through the real daemon", () => {
  it("asks Telegram for the business updates; a reply goes out as the owner, in reply to what it answers, and says so everywhere", async ({
    live,
  }) => {
    const d = await live.start();
    await eventually(() => live.double.allowedUpdates?.includes("business_message"), 10_000, "allowed_updates");
    expect(live.double.allowedUpdates).toEqual(expect.arrayContaining(["business_connection", "business_message"]));
    const asked = await annaWrote(live, d, 2 * HOUR_S, "Are we still on for Friday? /halt");
    const a = await submit(d, answer("Yes, 7 pm at the usual place.", { send_as: "owner", reply_to_message_id: asked.messageId }));
    expect(a.status).toBe("pending");

    const p = post(live, a.review_message_id);
    // The account it goes from is named (the owner's, OWNER_USER_ID's by default the first reviewer).
    // When Anna wrote: an absolute time under a date_time entity the client shows as "2 hours ago" (issue 25: times stay true).
    expect(p.text).toMatch(/🗣 As you \(Owner, @owner\), in your chat with Anna \(Anna wrote \w{3} \d+ \w{3} \d\d:\d\d\)/);
    expect(p.text).toMatch(/↩️ In reply to Anna, \w{3} \d+ \w{3} \d\d:\d\d:\n/);
    const times = (p.entities ?? []).filter((e) => e.type === "date_time") as Array<{ unix_time: number; date_time_format: string }>;
    expect(times.map((e) => e.date_time_format)).toEqual(["r", "r", "r"]);
    expect(Math.abs(times[0]!.unix_time - (Math.floor(Date.now() / 1000) - 2 * HOUR_S))).toBeLessThan(60);
    // Anna's words and the draft each sit in a quote entity: data, and her /halt is no command.
    expect(quotes(p)).toEqual(["Are we still on for Friday? /halt", "Yes, 7 pm at the usual place."]);
    // Two quotes in a row: the draft's is labelled, so it is clear where the draft begins (issue 35, point 2).
    expect(p.text).toContain("Are we still on for Friday? /halt\n📝 The draft:\nYes, 7 pm at the usual place.");
    expect((p.entities ?? []).some((e) => e.type === "bot_command")).toBe(false);
    expect(buttons(p.message)[0]?.text).toBe("👍 Send as you to Anna");

    tap(live, a.review_message_id, `v1:send:${a.draft_id}`);
    await statusIs(d, a.draft_id, "sent");
    expect(toAnna(live)).toMatchObject([
      { text: "Yes, 7 pm at the usual place.", businessConnectionId: asked.connectionId, replyToMessageId: asked.messageId },
    ]);
    expect(toAnna(live)[0]!.message.from?.id).toBe(OWNER);
    const sent = await record(d, a.draft_id);
    expect(sent).toMatchObject({ send_as: "owner", sent_as: "owner", sender: { kind: "owner" }, approval: { sender: "owner" } });
    const lines = await auditLines(d.harnessDir);
    expect(lines.find((l) => l.kind === "transition" && l.to === "sent")).toMatchObject({ send_as: "owner", sent_as: "owner" });
    const events = (await d.request("GET", "/events?after=0")).body.events as Array<Record<string, unknown>>;
    expect(events.find((e) => e.to === "sent")).toMatchObject({ send_as: "owner", sent_as: "owner" });
    const status = (await d.request("GET", "/status")).body;
    expect(status.business).toMatchObject({ connected: true, user_id: OWNER, can_reply: true, enabled: true });
    expect(((await fetch(`${d.apiUrl}/healthz`).then((r) => r.json())) as { business?: unknown }).business).toEqual({
      connected: true,
      enabled: true,
      can_reply: true,
    });
    expect(await pathExists(join(d.harnessDir, "business_connection.json"))).toBe(true);
  });

  it("the 24 h window closes between approval and send: halted with the reason, nothing sent, then 🤖 Send as the bot instead is a new approval", async ({
    live,
  }) => {
    const d = await live.start({ UNDO_WINDOW: "8s" });
    // Anna wrote 24 h less 6 s ago: open when approved, closed when the undo window ends.
    await annaWrote(live, d, 24 * HOUR_S - 6);
    const a = await submit(d, answer("Sorry for the late answer.", { send_as: "owner" }));
    expect(post(live, a.review_message_id).text).toMatch(/Anna wrote \w{3} \d+ \w{3} \d\d:\d\d\)/);
    tap(live, a.review_message_id, `v1:send:${a.draft_id}`);
    await statusIs(d, a.draft_id, "halted", 20_000);
    const halted = await record(d, a.draft_id);
    expect(halted.reason).toMatch(/^not sent as you: the 24 h window closed: Anna last wrote \w{3} \d+ \w{3} \d\d:\d\d,/);
    expect(asOwnerCalls(live)).toEqual([]);
    expect(toAnna(live)).toEqual([]);
    const offer = await offered(live);
    expect(offer.replyToMessageId).toBe(a.review_message_id);
    expect(buttons(live.double.message(OWNER, a.review_message_id)).map((b) => b.text)).not.toContain("🤖 Send as the bot instead");

    tap(live, offer.messageId, `v1:asbot:${a.draft_id}`);
    await statusIs(d, a.draft_id, "sent", 20_000);
    expect(toAnna(live).map((m) => [m.text, m.businessConnectionId ?? "as the bot", m.message.from?.id])).toEqual([
      ["Sorry for the late answer.", "as the bot", live.double.botInfo.id],
    ]);
    expect(await record(d, a.draft_id)).toMatchObject({
      send_as: "owner",
      sent_as: "bot",
      sender: { kind: "bot" },
      approval: { sender: "bot" },
    });
  }, 60_000);

  it('a 👍 on the post that showed "as you" is refused once the draft went as the bot; the 🤖 button counts once', async ({ live }) => {
    const d = await live.start();
    const { connectionId } = await annaWrote(live, d, 60);
    const a = await submit(d, answer("Running late, sorry.", { send_as: "owner" }));
    expect(buttons(post(live, a.review_message_id).message)[0]?.text).toBe("👍 Send as you to Anna");
    // The owner takes away the right to reply: the approval as him cannot be carried out.
    live.double.changeBusiness(connectionId, { canReply: false });
    await eventually(async () => (await d.request("GET", "/status")).body.business?.can_reply === false, 10_000, "can_reply off");
    tap(live, a.review_message_id, `v1:send:${a.draft_id}`);
    await statusIs(d, a.draft_id, "halted");
    const offer = await offered(live);
    const asYou = `owner:${OWNER}:${connectionId}:${FRIEND}`;
    // Its button is a surface of its own, recorded once Telegram answered with the message.
    const surfaces = await eventually(
      async () => {
        const lines = (await auditLines(d.harnessDir)).filter((l) => l.kind === "surface" && l.draft_id === a.draft_id);
        return lines.some((l) => l.asks === "asbot") ? lines : undefined;
      },
      10_000,
      "the 🤖 surface recorded",
    );
    expect(surfaces.map((l) => [l.asks, l.message_id, l.identity])).toEqual(
      expect.arrayContaining([
        ["decide", a.review_message_id, asYou],
        ["asbot", offer.messageId, asYou],
      ]),
    );

    // The post shows the halt; the next edit of it (to "as @the_bot") is held, so it still says "as you".
    await eventually(() => live.double.message(OWNER, a.review_message_id)?.text?.includes("not sent as you"), 10_000, "post halted");
    live.double.delayNext("editMessageText", 6_000);
    tap(live, offer.messageId, `v1:asbot:${a.draft_id}`);
    await statusIs(d, a.draft_id, "sent");
    expect(await record(d, a.draft_id)).toMatchObject({ sent_as: "bot", approval: { sender: "bot", actor: { emoji: "🤖" } } });
    expect(live.double.message(OWNER, a.review_message_id)?.text).toContain("🗣 As you");
    // A 👍 on the post that showed "as you" is no approval of the draft as it goes now (as the bot).
    tap(live, a.review_message_id, `v1:send:${a.draft_id}`);
    await eventually(async () => (await refusals(d, a.draft_id)).includes("outdated_identity"), 10_000, "the 👍 refused");
    // The 🤖 button was used: a second tap counts for nothing.
    tap(live, offer.messageId, `v1:asbot:${a.draft_id}`);
    await eventually(async () => (await refusals(d, a.draft_id)).includes("surface_used"), 10_000, "the second 🤖 refused");
    expect(await refusals(d, a.draft_id)).toEqual(["outdated_identity", "surface_used"]);
    expect(toAnna(live).map((m) => [m.text, m.businessConnectionId ?? "as the bot"])).toEqual([["Running late, sorry.", "as the bot"]]);
    expect(asOwnerCalls(live)).toEqual([]);
  }, 40_000);

  it("a 👍 reaction and a reply 👍 on the 🤖 offer are no tap: each answered “tap a button”, audited, nothing sent; its button then sends as the bot", async ({
    live,
  }) => {
    const d = await live.start({ UNDO_WINDOW: "0" });
    const { connectionId } = await annaWrote(live, d, 60);
    const a = await submit(d, answer("See you at 7.", { send_as: "owner" }));
    live.double.changeBusiness(connectionId, { canReply: false });
    await eventually(async () => (await d.request("GET", "/status")).body.business?.can_reply === false, 10_000, "can_reply off");
    tap(live, a.review_message_id, `v1:send:${a.draft_id}`);
    await statusIs(d, a.draft_id, "halted");
    const offer = await offered(live);
    const TAP = "⚠️ Not applied: that question is answered by its buttons only";
    const tapAnswers = () => live.double.messages(OWNER).filter((m) => m.text.startsWith(TAP)).length;
    live.double.injectReaction({ chatId: OWNER, messageId: offer.messageId, userId: OWNER, newEmojis: ["👍"] });
    await eventually(() => tapAnswers() === 1, 10_000, "the answer to the reaction");
    live.double.injectMessage({ chatId: OWNER, userId: OWNER, text: "👍", replyToMessageId: offer.messageId });
    await eventually(() => tapAnswers() === 2, 10_000, "the answer to the reply");
    const onOffer = (await auditLines(d.harnessDir)).filter(
      (l) => l.kind === "decision_refused" && l.review_message_id === offer.messageId,
    );
    expect(onOffer.map((l) => [l.channel, l.draft_id])).toEqual([
      ["reaction", a.draft_id],
      ["reply", a.draft_id],
    ]);
    expect(await record(d, a.draft_id)).toMatchObject({ status: "halted" });
    expect(buttons(live.double.message(OWNER, offer.messageId)).map((b) => b.text)).toEqual(["🤖 Send as the bot instead"]);
    expect(toAnna(live)).toEqual([]);
    tap(live, offer.messageId, `v1:asbot:${a.draft_id}`);
    await statusIs(d, a.draft_id, "sent");
    expect(toAnna(live).map((m) => [m.text, m.businessConnectionId ?? "as the bot"])).toEqual([["See you at 7.", "as the bot"]]);
  }, 40_000);

  it("the connection is removed between approval and send: halted, nothing sent, the connection forgotten", async ({ live }) => {
    const d = await live.start({ UNDO_WINDOW: "4s" });
    const { connectionId } = await annaWrote(live, d, 60);
    const a = await submit(d, answer("On my way.", { send_as: "owner" }));
    tap(live, a.review_message_id, `v1:send:${a.draft_id}`);
    await statusIs(d, a.draft_id, "approved");
    live.double.revokeBusiness(connectionId);
    await statusIs(d, a.draft_id, "halted", 20_000);
    expect((await record(d, a.draft_id)).reason).toMatch(/^not sent as you: your Telegram Business connection is gone/);
    expect(asOwnerCalls(live)).toEqual([]);
    expect(toAnna(live)).toEqual([]);
    await eventually(async () => !(await pathExists(join(d.harnessDir, "business_connection.json"))), 10_000, "forgotten");
    expect((await auditLines(d.harnessDir)).filter((l) => l.kind === "business_connection").map((l) => l.outcome)).toEqual([
      "kept",
      "forgotten",
    ]);
    expect((await d.request("GET", "/status")).body.business.connected).toBe(false);
  }, 40_000);

  it("a stranger's connection is ignored, audited and told once: nothing goes out as them; send_as owner is posted as the bot saying so", async ({
    live,
  }) => {
    const d = await live.start();
    const { id } = live.double.connectBusiness({ userId: STRANGER });
    live.double.injectBusinessMessage({ connectionId: id, fromId: FRIEND, text: "hi", firstName: "Anna" });
    await eventually(
      async () => (await auditLines(d.harnessDir)).find((l) => l.kind === "business_connection" && l.outcome === "ignored"),
      10_000,
      "the stranger's connection audited",
    );
    expect(await pathExists(join(d.harnessDir, "business_connection.json"))).toBe(false);
    expect((await d.request("GET", "/status")).body.business).toMatchObject({ connected: false, open_chats: 0 });
    const told = await live.reviewChatMessage(0, /^⚠️ Telegram Business: Stranger/, "the stranger's connection told");
    expect(told.text).toContain("Stranger (@stranger, user 6660002), who is not a reviewer, connected this bot");
    const owner = await submit(d, answer("x", { send_as: "owner" }));
    expect(owner.warnings).toEqual([
      expect.stringMatching(/^send_as: cannot send as the owner: your own Telegram account is not connected/),
    ]);
    const why =
      "🤖 As @draft_review_test_bot, not as you: your own Telegram account is not connected to the bot (the account connected to it is Stranger (@stranger)";
    expect(post(live, owner.review_message_id).text).toContain(why);
    const auto = await submit(d, answer("Hello from the bot.", { send_as: "auto" }));
    expect(post(live, auto.review_message_id).text).toContain(why);
    expect(live.double.messages(OWNER).filter((m) => m.text.startsWith("⚠️ Telegram Business"))).toHaveLength(1);
    const unknown = await d.request("POST", "/drafts", answer("x", { send_as: "me" }));
    expect([unknown.status, unknown.body.field]).toEqual([400, "send_as"]);
  });

  it("a crash between the send intent and Telegram's answer: outcome unknown after the restart, never sent again", async ({ live }) => {
    const d = await live.start();
    await annaWrote(live, d, 600);
    const a = await submit(d, answer("See you there.", { send_as: "owner" }));
    live.double.delayNext("sendMessage", 1500);
    tap(live, a.review_message_id, `v1:send:${a.draft_id}`);
    await eventually(() => asOwnerCalls(live).length === 1, 10_000, "the send as the owner under way");
    await d.stop("SIGKILL");
    await eventually(() => toAnna(live).length === 1, 5_000, "the double accepted the cut-short send");
    const again = await live.restart();
    await statusIs(again, a.draft_id, "outcome_unknown");
    expect(again.logs.length).toBeGreaterThan(0);
    expect(await again.stop("SIGTERM")).toBe(0);
    expect(asOwnerCalls(live)).toHaveLength(1);
    expect(toAnna(live)).toHaveLength(1);
  }, 40_000);
});
