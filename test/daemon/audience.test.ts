import { describe, expect } from "vitest";
import { startTelegramDouble, type SentMessage } from "../telegram-double/index.js";
import { eventually } from "../support/daemon-process.js";
import { auditLines, OWNER, STRANGER, liveTest, type LiveDaemonFixture } from "../support/live-fixture.js";

const FRIEND = 7_770_003;
const GROUP = -1_001_234_567_890;
const CHANNEL = -1_002_000_000_001;
const BIG = -1_003_000_000_002;
const OLD_GROUP = -400_100_200;
const NEW_SUPERGROUP = -1_004_000_000_003;
const UNSEEN = -1_005_000_000_004;

// Each test has a Bot API double and daemons of its own, and the tests run at once: most of each is waiting on the real clock.
const it = liveTest({
  double: () =>
    startTelegramDouble({
      chats: [
        { id: OWNER, type: "private", firstName: "Owner" },
        { id: STRANGER, type: "private", firstName: "Stranger" },
        { id: FRIEND, type: "private", firstName: "Anna", lastName: "Smith" },
        { id: GROUP, type: "supergroup", title: "Team", memberCount: 12 },
        { id: CHANNEL, type: "channel", title: "News", username: "news_chan", botIsAdmin: true, memberCount: 1234 },
        { id: BIG, type: "supergroup", title: "Big Room", memberCount: 1234 },
        { id: OLD_GROUP, type: "group", title: "Old Group", memberCount: 5 },
      ],
      users: [
        { id: OWNER, firstName: "Owner" },
        { id: STRANGER, firstName: "Stranger" },
      ],
    }),
  env: { TELEGRAM_RATE_SCALE: "20" },
  start: true,
});

async function submit(live: LiveDaemonFixture, chatId: number, text: string) {
  const res = await live.daemon.request("POST", "/drafts", {
    draft_text: text,
    destination_chat_id: String(chatId),
    drafted_by_role: "Scribe",
    originating_intent_id: "intent-a",
  });
  expect(res.status).toBe(201);
  const answer = res.body as { draft_id: string; review_message_id: number | null; status: string; warnings?: string[] };
  const id = await eventually(async () => {
    const rec = (await live.daemon.request("GET", `/drafts/${answer.draft_id}`)).body;
    return rec.status === "pending" ? (rec.review_message_id as number) : null;
  });
  return { ...answer, review_message_id: id };
}

const record = async (live: LiveDaemonFixture, id: string) => (await live.daemon.request("GET", `/drafts/${id}`)).body;
const post = (live: LiveDaemonFixture, messageId: number): SentMessage =>
  live.double.messages(OWNER).find((m) => m.messageId === messageId)!;
/**
 * Waits until the review post shows the draft at `version` (its status edit is audited): a decision on the post
 * counts only for what it shows (issue 19), so a test acts on it once it shows the change.
 */
const postShows = (live: LiveDaemonFixture, id: string, version: number) =>
  eventually(
    async () =>
      (await auditLines(live.daemon.harnessDir)).some((l) => l.kind === "status_shown" && l.draft_id === id && l.version === version),
    10_000,
    `the post shows version ${version} of the record`,
  );
const statusIs = (live: LiveDaemonFixture, id: string, status: string) =>
  eventually(async () => (await record(live, id)).status === status, 10_000, `status ${status}`);

describe.concurrent("the audience on the review post", () => {
  it("names a person, a group with its members, and marks a public channel with ⚠️", async ({ live }) => {
    const person = await submit(live, FRIEND, "Hi Anna");
    const group = await submit(live, GROUP, "Hi team");
    const channel = await submit(live, CHANNEL, "Hello readers");
    expect(post(live, person.review_message_id).text).toContain("— for 👤 Anna Smith · private chat");
    expect(post(live, group.review_message_id).text).toContain("— for 👥 “Team” · supergroup · 12 members");
    expect(post(live, channel.review_message_id).text).toContain("— for ⚠️ 📢 “News” · @news_chan · public channel · 1,234 members");
    expect((await record(live, group.draft_id)).audience).toMatchObject({
      kind: "supergroup",
      title: "Team",
      member_count: 12,
      can_post: true,
    });
    expect(person.warnings).toBeUndefined();
  });

  it("says so in the post and in the answer's warnings when the bot cannot see the destination, and still accepts it", async ({ live }) => {
    const a = await submit(live, UNSEEN, "Who is there?");
    expect(a.warnings).toEqual([expect.stringContaining("the bot cannot see this chat (Telegram: Bad Request: chat not found)")]);
    expect(post(live, a.review_message_id).text).toContain(`chat ${UNSEEN} (⚠️ the bot cannot see this chat`);
  });

  it("over AUDIENCE_CONFIRM_OVER, a 👍 reaction asks for one more tap; a stranger's tap is refused; the reviewer's sends", async ({
    live,
  }) => {
    const a = await submit(live, BIG, "To everyone in the big room");
    live.double.injectReaction({ chatId: OWNER, messageId: a.review_message_id, userId: OWNER, newEmojis: ["👍"] });
    const ask = await eventually(
      () => live.double.messages(OWNER).find((m) => m.text.startsWith("Send to 1,234 members")),
      10_000,
      "question",
    );
    expect(ask.text).toBe("Send to 1,234 members of “Big Room”? Your 👍 counts once you confirm.");
    expect(ask.replyToMessageId).toBe(a.review_message_id);
    const yes = (ask.replyMarkup as any).inline_keyboard[0][0];
    expect(yes.text).toBe("✅ Yes, send to 1,234 members");
    expect((await record(live, a.draft_id)).status).toBe("pending");

    live.double.injectCallback({ chatId: OWNER, messageId: ask.messageId, userId: STRANGER, data: yes.callback_data });
    await eventually(
      () => live.double.lastAnsweredCallback?.text === "Only the reviewer can decide on drafts.",
      10_000,
      "stranger answered",
    );
    expect((await record(live, a.draft_id)).status).toBe("pending");
    expect(live.double.messages(BIG)).toHaveLength(0);

    live.double.injectCallback({ chatId: OWNER, messageId: ask.messageId, userId: OWNER, data: yes.callback_data });
    await statusIs(live, a.draft_id, "sent");
    expect(live.double.messages(BIG).map((m) => m.text)).toEqual(["To everyone in the big room"]);
    const audit = await auditLines(live.daemon.harnessDir);
    expect(audit.filter((l) => l.kind === "decision_refused").map((l) => l.reason)).toEqual(["needs_confirmation", "not_a_reviewer"]);
    expect(audit.find((l) => l.to === "approved")).toMatchObject({ user_id: OWNER, channel: "button", emoji: "✅" });
  });

  it("the button form: 👍 Send answers 'one more tap', and only the confirmation sends", async ({ live }) => {
    const a = await submit(live, CHANNEL, "Big news");
    const send = (post(live, a.review_message_id).replyMarkup as any).inline_keyboard[0][0];
    expect(send.text).toBe("👍 Send to ⚠️ News");
    live.double.injectCallback({ chatId: OWNER, messageId: a.review_message_id, userId: OWNER, data: send.callback_data });
    await eventually(() => live.double.lastAnsweredCallback?.text?.startsWith("One more tap"), 10_000, "asked");
    const ask = await eventually(
      () => live.double.messages(OWNER).find((m) => m.text.startsWith("Send to 1,234 members of “News” (@news_chan, public)?")),
      10_000,
    );
    expect(live.double.messages(CHANNEL)).toHaveLength(0);
    live.double.injectCallback({
      chatId: OWNER,
      messageId: ask.messageId,
      userId: OWNER,
      data: (ask.replyMarkup as any).inline_keyboard[0][0].callback_data,
    });
    await statusIs(live, a.draft_id, "sent");
  });
});

describe.concurrent("the audience checked again at the send call", () => {
  it("a chat that became public after the post: not sent, halted with the reason, the reviewer told; a new 👍 sends", async ({ live }) => {
    const a = await submit(live, GROUP, "For the team only");
    live.double.addChat({ id: GROUP, type: "supergroup", username: "team_public" });
    live.double.injectReaction({ chatId: OWNER, messageId: a.review_message_id, userId: OWNER, newEmojis: ["👍"] });
    await statusIs(live, a.draft_id, "halted");
    expect((await record(live, a.draft_id)).reason).toBe("the destination changed: the chat became public (@team_public)");
    const told = await eventually(
      () => live.double.messages(OWNER).find((m) => m.text.startsWith("⛔ Not sent: the destination changed")),
      10_000,
      "told",
    );
    expect(told.replyToMessageId).toBe(a.review_message_id);
    await eventually(
      () => live.double.message(OWNER, a.review_message_id)?.text?.includes("@team_public · public supergroup"),
      10_000,
      "post shows the new audience",
    );
    expect(live.double.messages(GROUP)).toHaveLength(0);

    await postShows(live, a.draft_id, (await record(live, a.draft_id)).version);
    live.double.injectReaction({ chatId: OWNER, messageId: a.review_message_id, userId: OWNER, oldEmojis: ["👍"], newEmojis: [] });
    live.double.injectReaction({ chatId: OWNER, messageId: a.review_message_id, userId: OWNER, newEmojis: ["👍"] });
    await statusIs(live, a.draft_id, "sent");
    expect(live.double.messages(GROUP)).toHaveLength(1);
  });

  it("the bot lost the right to post: not sent, halted", async ({ live }) => {
    const a = await submit(live, GROUP, "Before the restriction");
    live.double.addChat({ id: GROUP, type: "supergroup", botCanPost: false });
    live.double.injectReaction({ chatId: OWNER, messageId: a.review_message_id, userId: OWNER, newEmojis: ["👍"] });
    await statusIs(live, a.draft_id, "halted");
    expect((await record(live, a.draft_id)).reason).toContain("the bot can no longer post there: the bot is restricted here");
    expect(live.double.calls("sendMessage").filter((c) => Number(c.params.chat_id) === GROUP)).toHaveLength(0);
  });

  it("a group migrated to a supergroup: not sent to the old id; halted, the new id becomes the destination; a new 👍 sends there", async ({
    live,
  }) => {
    const a = await submit(live, OLD_GROUP, "Hello old group");
    expect(post(live, a.review_message_id).text).toContain("— for 👥 “Old Group” · group · 5 members");
    live.double.addChat({ id: NEW_SUPERGROUP, type: "supergroup", title: "Old Group", memberCount: 5 });
    live.double.addChat({ id: OLD_GROUP, type: "group", migratedTo: NEW_SUPERGROUP });
    live.double.injectReaction({ chatId: OWNER, messageId: a.review_message_id, userId: OWNER, newEmojis: ["👍"] });
    await statusIs(live, a.draft_id, "halted");
    const halted = await record(live, a.draft_id);
    expect(halted.reason).toBe(
      `the destination changed: the destination is now another chat (id ${OLD_GROUP} → ${NEW_SUPERGROUP}); it now goes to ${NEW_SUPERGROUP}`,
    );
    expect(halted.destination_chat_id).toBe(String(NEW_SUPERGROUP));
    expect(live.double.calls("sendMessage").filter((c) => Number(c.params.chat_id) === OLD_GROUP)).toHaveLength(0);

    await postShows(live, a.draft_id, halted.version);
    live.double.injectCallback({ chatId: OWNER, messageId: a.review_message_id, userId: OWNER, data: `v1:send:${a.draft_id}` });
    await statusIs(live, a.draft_id, "sent");
    expect(live.double.messages(NEW_SUPERGROUP).map((m) => m.text)).toEqual(["Hello old group"]);
  });
});
