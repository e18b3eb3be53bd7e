import { describe, expect } from "vitest";
import { startTelegramDouble, type SentMessage } from "../telegram-double/index.js";
import { eventually } from "../support/daemon-process.js";
import { auditLines, OWNER, submitPending, confirmationQuestion, liveTest, type LiveDaemonFixture } from "../support/live-fixture.js";

/** Groups whose member count the tests change between the post and the send (AUDIENCE_CONFIRM_OVER is 200). */
const FIVE = -1_001_200_000_001;
const BIG = -1_001_200_000_002;
const COUNTLESS = -1_001_200_000_003;
const BAD_GATEWAY = { error_code: 502, description: "Bad Gateway" };

// Each test has a Bot API double and daemons of its own, and the tests run at once: most of each is waiting on the real clock.
const it = liveTest({
  double: () =>
    startTelegramDouble({
      chats: [
        { id: OWNER, type: "private", firstName: "Owner" },
        { id: FIVE, type: "supergroup", title: "Five", memberCount: 5 },
        { id: BIG, type: "supergroup", title: "Big Room", memberCount: 1234 },
        { id: COUNTLESS, type: "supergroup", title: "Team", memberCount: 12 },
      ],
      users: [{ id: OWNER, firstName: "Owner" }],
    }),
  env: { TELEGRAM_RATE_SCALE: "20", AUDIENCE_CONFIRM_OVER: "200" },
  start: true,
});

async function submit(live: LiveDaemonFixture, chatId: number, text: string) {
  const body = { draft_text: text, destination_chat_id: String(chatId), drafted_by_role: "Scribe", originating_intent_id: "intent-growth" };
  const rec = await submitPending(live.daemon, body);
  return { draftId: rec.draft_id as string, reviewMessageId: rec.review_message_id as number };
}

const record = async (live: LiveDaemonFixture, id: string) => (await live.daemon.request("GET", `/drafts/${id}`)).body;
const post = (live: LiveDaemonFixture, messageId: number): SentMessage =>
  live.double.messages(OWNER).find((m) => m.messageId === messageId)!;
const statusIs = (live: LiveDaemonFixture, id: string, status: string) =>
  eventually(async () => (await record(live, id)).status === status, 10_000, `status ${status}`);
const sentTo = (live: LiveDaemonFixture, chatId: number) =>
  live.double.calls("sendMessage").filter((c) => Number(c.params.chat_id) === chatId);
const thumbsUp = (live: LiveDaemonFixture, messageId: number) =>
  live.double.injectReaction({ chatId: OWNER, messageId, userId: OWNER, newEmojis: ["👍"] });
const thumbsAway = (live: LiveDaemonFixture, messageId: number) =>
  live.double.injectReaction({ chatId: OWNER, messageId, userId: OWNER, oldEmojis: ["👍"], newEmojis: [] });
/** Waits until the review post shows the record's `version` (a decision counts only for what its message shows). */
const postShows = (live: LiveDaemonFixture, id: string, version: number) =>
  eventually(
    async () =>
      (await auditLines(live.daemon.harnessDir)).some((l) => l.kind === "status_shown" && l.draft_id === id && l.version === version),
    10_000,
    `the post shows version ${version} of the record`,
  );

const question = (live: LiveDaemonFixture, reviewMessageId: number) => confirmationQuestion(live.double, OWNER, reviewMessageId);

describe.concurrent("an approval binds to the member count its message showed (contract v3)", () => {
  it("a group of 5 grows to 5,000 before the send: not sent, halted 'grew from 5 to 5,000 members', told; a new 👍 asks for the tap", async ({
    live,
  }) => {
    const a = await submit(live, FIVE, "Just for the five of us");
    expect(post(live, a.reviewMessageId).text).toContain("“Five” · supergroup · 5 members");
    live.double.addChat({ id: FIVE, type: "supergroup", memberCount: 5000 });

    thumbsUp(live, a.reviewMessageId);
    await statusIs(live, a.draftId, "halted");
    expect((await record(live, a.draftId)).reason).toBe("the destination changed: the group grew from 5 to 5,000 members");
    const told = await eventually(
      () => live.double.messages(OWNER).find((m) => m.text.startsWith("⛔ Not sent: the destination changed: the group grew")),
      10_000,
      "the reviewer told",
    );
    expect(told.replyToMessageId).toBe(a.reviewMessageId);
    expect(sentTo(live, FIVE)).toHaveLength(0);
    await eventually(
      () => live.double.message(OWNER, a.reviewMessageId)?.text?.includes("5,000 members"),
      10_000,
      "the post shows the group as it now is",
    );

    // A new 👍 on the post as it now is asks for the confirmation tap; only the tap sends.
    await postShows(live, a.draftId, (await record(live, a.draftId)).version);
    thumbsAway(live, a.reviewMessageId);
    thumbsUp(live, a.reviewMessageId);
    const ask = await question(live, a.reviewMessageId);
    expect(ask.message.text).toContain("5,000 members");
    expect((await record(live, a.draftId)).status).toBe("halted");
    expect(sentTo(live, FIVE)).toHaveLength(0);
    live.double.injectCallback({ chatId: OWNER, messageId: ask.message.messageId, userId: OWNER, data: ask.data });
    await statusIs(live, a.draftId, "sent");
    expect(live.double.messages(FIVE).map((m) => m.text)).toEqual(["Just for the five of us"]);
  });

  it("a confirmed 1,234 that grows past twice that before the send is halted too; growth within it sends", async ({ live }) => {
    const a = await submit(live, BIG, "To the big room");
    thumbsUp(live, a.reviewMessageId);
    const ask = await question(live, a.reviewMessageId);
    live.double.addChat({ id: BIG, type: "supergroup", memberCount: 40_000 });
    live.double.injectCallback({ chatId: OWNER, messageId: ask.message.messageId, userId: OWNER, data: ask.data });
    await statusIs(live, a.draftId, "halted");
    expect((await record(live, a.draftId)).reason).toBe("the destination changed: the group grew from 1,234 to 40,000 members");
    expect(sentTo(live, BIG)).toHaveLength(0);

    const b = await submit(live, BIG, "To the big room, again");
    expect(post(live, b.reviewMessageId).text).toContain("40,000 members");
    thumbsUp(live, b.reviewMessageId);
    const again = await question(live, b.reviewMessageId);
    live.double.addChat({ id: BIG, type: "supergroup", memberCount: 41_000 });
    live.double.injectCallback({ chatId: OWNER, messageId: again.message.messageId, userId: OWNER, data: again.data });
    await statusIs(live, b.draftId, "sent");
    expect(live.double.messages(BIG).map((m) => m.text)).toEqual(["To the big room, again"]);
  });

  it("the member count cannot be read at the send: not sent, asked again, then halted 'audience could not be checked'", async ({
    live,
  }) => {
    const a = await submit(live, COUNTLESS, "Only if the count is known");
    live.double.failNext("getChatMemberCount", { ...BAD_GATEWAY, times: 100_000 });
    thumbsUp(live, a.reviewMessageId);
    await statusIs(live, a.draftId, "halted");
    expect((await record(live, a.draftId)).reason).toBe("audience could not be checked");
    expect(sentTo(live, COUNTLESS)).toHaveLength(0);
  });
});
