import { describe, expect, it } from "vitest";
import { startTelegramDouble, type SentMessage } from "../telegram-double/index.js";
import { eventually } from "../support/daemon-process.js";
import { auditLines, OWNER, useLiveDaemon, submitPending, confirmationQuestion } from "../support/live-fixture.js";

/** Groups whose member count the tests change between the post and the send (AUDIENCE_CONFIRM_OVER is 200). */
const FIVE = -1_001_200_000_001;
const BIG = -1_001_200_000_002;
const COUNTLESS = -1_001_200_000_003;
const BAD_GATEWAY = { error_code: 502, description: "Bad Gateway" };

const live = useLiveDaemon({
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

async function submit(chatId: number, text: string) {
  const body = { draft_text: text, destination_chat_id: String(chatId), drafted_by_role: "Scribe", originating_intent_id: "intent-growth" };
  const rec = await submitPending(live.daemon, body);
  return { draftId: rec.draft_id as string, reviewMessageId: rec.review_message_id as number };
}

const record = async (id: string) => (await live.daemon.request("GET", `/drafts/${id}`)).body;
const post = (messageId: number): SentMessage => live.double.messages(OWNER).find((m) => m.messageId === messageId)!;
const statusIs = (id: string, status: string) => eventually(async () => (await record(id)).status === status, 10_000, `status ${status}`);
const sentTo = (chatId: number) => live.double.calls("sendMessage").filter((c) => Number(c.params.chat_id) === chatId);
const thumbsUp = (messageId: number) => live.double.injectReaction({ chatId: OWNER, messageId, userId: OWNER, newEmojis: ["👍"] });
const thumbsAway = (messageId: number) =>
  live.double.injectReaction({ chatId: OWNER, messageId, userId: OWNER, oldEmojis: ["👍"], newEmojis: [] });
/** Waits until the review post shows the record's `version` (a decision counts only for what its message shows). */
const postShows = (id: string, version: number) =>
  eventually(
    async () =>
      (await auditLines(live.daemon.harnessDir)).some((l) => l.kind === "status_shown" && l.draft_id === id && l.version === version),
    10_000,
    `the post shows version ${version} of the record`,
  );

const question = (reviewMessageId: number) => confirmationQuestion(live.double, OWNER, reviewMessageId);

describe("an approval binds to the member count its message showed (contract v3)", () => {
  it("a group of 5 grows to 5,000 before the send: not sent, halted 'grew from 5 to 5,000 members', told; a new 👍 asks for the tap", async () => {
    const a = await submit(FIVE, "Just for the five of us");
    expect(post(a.reviewMessageId).text).toContain("“Five” · supergroup · 5 members");
    live.double.addChat({ id: FIVE, type: "supergroup", memberCount: 5000 });

    thumbsUp(a.reviewMessageId);
    await statusIs(a.draftId, "halted");
    expect((await record(a.draftId)).reason).toBe("the destination changed: the group grew from 5 to 5,000 members");
    const told = await eventually(
      () => live.double.messages(OWNER).find((m) => m.text.startsWith("⛔ Not sent: the destination changed: the group grew")),
      10_000,
      "the reviewer told",
    );
    expect(told.replyToMessageId).toBe(a.reviewMessageId);
    expect(sentTo(FIVE)).toHaveLength(0);
    await eventually(
      () => live.double.message(OWNER, a.reviewMessageId)?.text?.includes("5,000 members"),
      10_000,
      "the post shows the group as it now is",
    );

    // A new 👍 on the post as it now is asks for the confirmation tap; only the tap sends.
    await postShows(a.draftId, (await record(a.draftId)).version);
    thumbsAway(a.reviewMessageId);
    thumbsUp(a.reviewMessageId);
    const ask = await question(a.reviewMessageId);
    expect(ask.message.text).toContain("5,000 members");
    expect((await record(a.draftId)).status).toBe("halted");
    expect(sentTo(FIVE)).toHaveLength(0);
    live.double.injectCallback({ chatId: OWNER, messageId: ask.message.messageId, userId: OWNER, data: ask.data });
    await statusIs(a.draftId, "sent");
    expect(live.double.messages(FIVE).map((m) => m.text)).toEqual(["Just for the five of us"]);
  });

  it("a confirmed 1,234 that grows past twice that before the send is halted too; growth within it sends", async () => {
    const a = await submit(BIG, "To the big room");
    thumbsUp(a.reviewMessageId);
    const ask = await question(a.reviewMessageId);
    live.double.addChat({ id: BIG, type: "supergroup", memberCount: 40_000 });
    live.double.injectCallback({ chatId: OWNER, messageId: ask.message.messageId, userId: OWNER, data: ask.data });
    await statusIs(a.draftId, "halted");
    expect((await record(a.draftId)).reason).toBe("the destination changed: the group grew from 1,234 to 40,000 members");
    expect(sentTo(BIG)).toHaveLength(0);

    const b = await submit(BIG, "To the big room, again");
    expect(post(b.reviewMessageId).text).toContain("40,000 members");
    thumbsUp(b.reviewMessageId);
    const again = await question(b.reviewMessageId);
    live.double.addChat({ id: BIG, type: "supergroup", memberCount: 41_000 });
    live.double.injectCallback({ chatId: OWNER, messageId: again.message.messageId, userId: OWNER, data: again.data });
    await statusIs(b.draftId, "sent");
    expect(live.double.messages(BIG).map((m) => m.text)).toEqual(["To the big room, again"]);
  });

  it("the member count cannot be read at the send: not sent, asked again, then halted 'audience could not be checked'", async () => {
    const a = await submit(COUNTLESS, "Only if the count is known");
    live.double.failNext("getChatMemberCount", { ...BAD_GATEWAY, times: 100_000 });
    thumbsUp(a.reviewMessageId);
    await statusIs(a.draftId, "halted");
    expect((await record(a.draftId)).reason).toBe("audience could not be checked");
    expect(sentTo(COUNTLESS)).toHaveLength(0);
  });
});
