import { describe, expect } from "vitest";
import { startTelegramDouble, type SentMessage } from "../telegram-double/index.js";
import { eventually } from "../support/daemon-process.js";
import { OWNER, STRANGER, submitPending, confirmationQuestion, liveTest, type LiveDaemonFixture } from "../support/live-fixture.js";

/** TELEGRAM_RATE_SCALE for these daemons: the minute of retries at the send call lasts 3 s, the 60 s count cache too. */
const SCALE = 20;
const PUBLIC_GROUP = -1_001_100_000_001;
const TEAM = -1_001_100_000_002;
const FIVE = -1_001_100_000_003;
const BAD_GATEWAY = { error_code: 502, description: "Bad Gateway" };

// Each test has a Bot API double and daemons of its own, and the tests run at once: most of each is waiting on the real clock.
const it = liveTest({
  double: () =>
    startTelegramDouble({
      chats: [
        { id: OWNER, type: "private", firstName: "Owner" },
        { id: PUBLIC_GROUP, type: "supergroup", title: "Town Square", username: "town_square", memberCount: 1234 },
        { id: TEAM, type: "supergroup", title: "Team", memberCount: 12 },
        { id: FIVE, type: "supergroup", title: "Five", memberCount: 5 },
      ],
      users: [
        { id: OWNER, firstName: "Owner" },
        { id: STRANGER, firstName: "Stranger" },
      ],
    }),
  env: { TELEGRAM_RATE_SCALE: String(SCALE) },
  start: true,
});

async function submit(live: LiveDaemonFixture, chatId: number, text: string) {
  const body = {
    draft_text: text,
    destination_chat_id: String(chatId),
    drafted_by_role: "Scribe",
    originating_intent_id: "intent-evidence",
  };
  const rec = await submitPending(live.daemon, body);
  return { draftId: rec.draft_id as string, reviewMessageId: rec.review_message_id as number };
}

const record = async (live: LiveDaemonFixture, id: string) => (await live.daemon.request("GET", `/drafts/${id}`)).body;
const post = (live: LiveDaemonFixture, messageId: number): SentMessage =>
  live.double.messages(OWNER).find((m) => m.messageId === messageId)!;
const statusIs = (live: LiveDaemonFixture, id: string, status: string) =>
  eventually(async () => (await record(live, id)).status === status, 10_000, `status ${status}`);
const thumbsUp = (live: LiveDaemonFixture, reviewMessageId: number) =>
  live.double.injectReaction({ chatId: OWNER, messageId: reviewMessageId, userId: OWNER, newEmojis: ["👍"] });

const question = (live: LiveDaemonFixture, reviewMessageId: number) => confirmationQuestion(live.double, OWNER, reviewMessageId);

describe.concurrent("evidence Telegram did not give fails closed (issue 19, item 2)", () => {
  it("row 4: getChatMemberCount fails at posting: the post says the audience is unknown and a 👍 asks for the confirmation tap", async ({
    live,
  }) => {
    live.double.failNext("getChatMemberCount", BAD_GATEWAY);
    const a = await submit(live, PUBLIC_GROUP, "Hello, town square");
    thumbsUp(live, a.reviewMessageId);
    const ask = await question(live, a.reviewMessageId);
    expect((await record(live, a.draftId)).status).toBe("pending");
    expect(live.double.messages(PUBLIC_GROUP)).toHaveLength(0);
    expect(ask.message.text).toContain("who will read it is not known");
    const text = post(live, a.reviewMessageId).text;
    expect(text).toContain("“Town Square” · @town_square · public supergroup · ⚠️ audience unknown");
    expect(text).not.toContain("members");

    live.double.injectCallback({ chatId: OWNER, messageId: ask.message.messageId, userId: OWNER, data: ask.data });
    await statusIs(live, a.draftId, "sent");
    expect(live.double.messages(PUBLIC_GROUP).map((m) => m.text)).toEqual(["Hello, town square"]);
  });

  it("row 5: getChat fails at posting, the chat turns public, then 👍: the tap is asked for, and the confirmed draft is halted, not sent", async ({
    live,
  }) => {
    live.double.failNext("getChat", BAD_GATEWAY);
    const a = await submit(live, TEAM, "Team only, please");
    live.double.addChat({ id: TEAM, type: "supergroup", username: "team_now_public" });

    thumbsUp(live, a.reviewMessageId);
    const ask = await question(live, a.reviewMessageId);
    expect((await record(live, a.draftId)).status).toBe("pending");
    expect(live.double.messages(TEAM)).toHaveLength(0);
    expect(post(live, a.reviewMessageId).text).toContain(`chat ${TEAM} (⚠️ audience unknown`);

    live.double.injectCallback({ chatId: OWNER, messageId: ask.message.messageId, userId: OWNER, data: ask.data });
    await statusIs(live, a.draftId, "halted");
    expect((await record(live, a.draftId)).reason).toBe("the destination changed: the chat is public (@team_now_public)");
    await eventually(
      () => live.double.message(OWNER, a.reviewMessageId)?.text?.includes("@team_now_public · public supergroup"),
      10_000,
      "the post shows the audience as it now is",
    );
    expect(live.double.calls("sendMessage").filter((c) => Number(c.params.chat_id) === TEAM)).toHaveLength(0);
  });

  it("row 6: getChat fails at the send: not sent, retried for a minute, then halted 'audience could not be checked', the reviewer told", async ({
    live,
  }) => {
    const a = await submit(live, TEAM, "Only if you can check who reads it");
    const lookupsBefore = live.double.callCount("getChat");
    live.double.failNext("getChat", { ...BAD_GATEWAY, times: 100_000 });

    thumbsUp(live, a.reviewMessageId);
    await statusIs(live, a.draftId, "halted");
    expect((await record(live, a.draftId)).reason).toBe("audience could not be checked");
    expect(live.double.callCount("getChat") - lookupsBefore).toBeGreaterThan(2);
    const told = await eventually(
      () => live.double.messages(OWNER).find((m) => m.text.startsWith("⛔ Not sent: the audience could not be checked")),
      10_000,
      "the reviewer told",
    );
    expect(told.replyToMessageId).toBe(a.reviewMessageId);
    expect(live.double.calls("sendMessage").filter((c) => Number(c.params.chat_id) === TEAM)).toHaveLength(0);

    // Telegram answers again: a new 👍 sends.
    live.double.clearFaults();
    live.double.injectReaction({ chatId: OWNER, messageId: a.reviewMessageId, userId: OWNER, oldEmojis: ["👍"], newEmojis: [] });
    thumbsUp(live, a.reviewMessageId);
    await statusIs(live, a.draftId, "sent");
    expect(live.double.messages(TEAM).map((m) => m.text)).toEqual(["Only if you can check who reads it"]);
  });

  it("row 7: a member count read a minute earlier is not shown again: the post says 5,000, and a 👍 asks for the tap", async ({ live }) => {
    const first = await submit(live, FIVE, "For the five of you");
    expect(post(live, first.reviewMessageId).text).toContain("“Five” · supergroup · 5 members");
    live.double.addChat({ id: FIVE, type: "supergroup", memberCount: 5000 });
    // A minute passes (the cache's 60 s, divided by TELEGRAM_RATE_SCALE), then the next draft is posted.
    await new Promise((r) => setTimeout(r, 60_000 / SCALE + 250));

    const second = await submit(live, FIVE, "For all of you");
    expect(post(live, second.reviewMessageId).text).toContain("“Five” · supergroup · 5,000 members");
    thumbsUp(live, second.reviewMessageId);
    const ask = await question(live, second.reviewMessageId);
    expect(ask.message.text).toContain("5,000 members");
    expect(live.double.messages(FIVE)).toHaveLength(0);
  });
});
