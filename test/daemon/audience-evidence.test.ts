import { describe, expect, it } from "vitest";
import { startTelegramDouble, type SentMessage } from "../telegram-double/index.js";
import { eventually } from "../support/daemon-process.js";
import { OWNER, STRANGER, useLiveDaemon, submitPending, confirmationQuestion } from "../support/live-fixture.js";

/** TELEGRAM_RATE_SCALE for these daemons: the minute of retries at the send call lasts 3 s, the 60 s count cache too. */
const SCALE = 20;
const PUBLIC_GROUP = -1_001_100_000_001;
const TEAM = -1_001_100_000_002;
const FIVE = -1_001_100_000_003;
const BAD_GATEWAY = { error_code: 502, description: "Bad Gateway" };

const live = useLiveDaemon({
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

async function submit(chatId: number, text: string) {
  const body = {
    draft_text: text,
    destination_chat_id: String(chatId),
    drafted_by_role: "Scribe",
    originating_intent_id: "intent-evidence",
  };
  const rec = await submitPending(live.daemon, body);
  return { draftId: rec.draft_id as string, reviewMessageId: rec.review_message_id as number };
}

const record = async (id: string) => (await live.daemon.request("GET", `/drafts/${id}`)).body;
const post = (messageId: number): SentMessage => live.double.messages(OWNER).find((m) => m.messageId === messageId)!;
const statusIs = (id: string, status: string) => eventually(async () => (await record(id)).status === status, 10_000, `status ${status}`);
const thumbsUp = (reviewMessageId: number) =>
  live.double.injectReaction({ chatId: OWNER, messageId: reviewMessageId, userId: OWNER, newEmojis: ["👍"] });

const question = (reviewMessageId: number) => confirmationQuestion(live.double, OWNER, reviewMessageId);

describe("evidence Telegram did not give fails closed (issue 19, item 2)", () => {
  it("row 4: getChatMemberCount fails at posting: the post says the audience is unknown and a 👍 asks for the confirmation tap", async () => {
    live.double.failNext("getChatMemberCount", BAD_GATEWAY);
    const a = await submit(PUBLIC_GROUP, "Hello, town square");
    thumbsUp(a.reviewMessageId);
    const ask = await question(a.reviewMessageId);
    expect((await record(a.draftId)).status).toBe("pending");
    expect(live.double.messages(PUBLIC_GROUP)).toHaveLength(0);
    expect(ask.message.text).toContain("who will read it is not known");
    const text = post(a.reviewMessageId).text;
    expect(text).toContain("“Town Square” · @town_square · public supergroup · ⚠️ audience unknown");
    expect(text).not.toContain("members");

    live.double.injectCallback({ chatId: OWNER, messageId: ask.message.messageId, userId: OWNER, data: ask.data });
    await statusIs(a.draftId, "sent");
    expect(live.double.messages(PUBLIC_GROUP).map((m) => m.text)).toEqual(["Hello, town square"]);
  });

  it("row 5: getChat fails at posting, the chat turns public, then 👍: the tap is asked for, and the confirmed draft is halted, not sent", async () => {
    live.double.failNext("getChat", BAD_GATEWAY);
    const a = await submit(TEAM, "Team only, please");
    live.double.addChat({ id: TEAM, type: "supergroup", username: "team_now_public" });

    thumbsUp(a.reviewMessageId);
    const ask = await question(a.reviewMessageId);
    expect((await record(a.draftId)).status).toBe("pending");
    expect(live.double.messages(TEAM)).toHaveLength(0);
    expect(post(a.reviewMessageId).text).toContain(`chat ${TEAM} (⚠️ audience unknown`);

    live.double.injectCallback({ chatId: OWNER, messageId: ask.message.messageId, userId: OWNER, data: ask.data });
    await statusIs(a.draftId, "halted");
    expect((await record(a.draftId)).reason).toBe("the destination changed: the chat is public (@team_now_public)");
    await eventually(
      () => live.double.message(OWNER, a.reviewMessageId)?.text?.includes("@team_now_public · public supergroup"),
      10_000,
      "the post shows the audience as it now is",
    );
    expect(live.double.calls("sendMessage").filter((c) => Number(c.params.chat_id) === TEAM)).toHaveLength(0);
  });

  it("row 6: getChat fails at the send: not sent, retried for a minute, then halted 'audience could not be checked', the reviewer told", async () => {
    const a = await submit(TEAM, "Only if you can check who reads it");
    const lookupsBefore = live.double.callCount("getChat");
    live.double.failNext("getChat", { ...BAD_GATEWAY, times: 100_000 });

    thumbsUp(a.reviewMessageId);
    await statusIs(a.draftId, "halted");
    expect((await record(a.draftId)).reason).toBe("audience could not be checked");
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
    thumbsUp(a.reviewMessageId);
    await statusIs(a.draftId, "sent");
    expect(live.double.messages(TEAM).map((m) => m.text)).toEqual(["Only if you can check who reads it"]);
  });

  it("row 7: a member count read a minute earlier is not shown again: the post says 5,000, and a 👍 asks for the tap", async () => {
    const first = await submit(FIVE, "For the five of you");
    expect(post(first.reviewMessageId).text).toContain("“Five” · supergroup · 5 members");
    live.double.addChat({ id: FIVE, type: "supergroup", memberCount: 5000 });
    // A minute passes (the cache's 60 s, divided by TELEGRAM_RATE_SCALE), then the next draft is posted.
    await new Promise((r) => setTimeout(r, 60_000 / SCALE + 250));

    const second = await submit(FIVE, "For all of you");
    expect(post(second.reviewMessageId).text).toContain("“Five” · supergroup · 5,000 members");
    thumbsUp(second.reviewMessageId);
    const ask = await question(second.reviewMessageId);
    expect(ask.message.text).toContain("5,000 members");
    expect(live.double.messages(FIVE)).toHaveLength(0);
  });
});
