import { describe, expect } from "vitest";
import { startEmailDouble, type EmailDouble } from "../doubles/email/email-double.js";
import { linearAnswers, startLinearDouble, type LinearDouble } from "../doubles/linear/index.js";
import { startSlackDouble, type SlackDouble } from "../doubles/slack/index.js";
import { eventually } from "../support/daemon-process.js";
import { draftRecord, GROUP, OWNER, submitPending, liveTest, type LiveDaemonFixture } from "../support/live-fixture.js";

/**
 * Issue 33: the daemon with Linear, email and Slack pointed at local servers
 * that answer as those services do. The review stays in Telegram (the Bot API
 * double); only where an approved draft goes is new.
 */

// Each test has a Bot API double and daemons of its own, and the tests run at once: most of each is waiting on the real clock.
const it = liveTest();
/** Registers what ends a double when the test ends: the test context's onTestFinished (the tests run at once). */
type OnFinished = (fn: () => Promise<void>) => void;

type Rec = Record<string, any>;

async function emailDouble(onTestFinished: OnFinished): Promise<EmailDouble> {
  const d = await startEmailDouble();
  onTestFinished(() => d.close());
  return d;
}

async function slackDouble(onTestFinished: OnFinished): Promise<SlackDouble> {
  const d = await startSlackDouble();
  onTestFinished(() => d.close());
  return d;
}

async function linearDouble(onTestFinished: OnFinished): Promise<LinearDouble> {
  const d = await startLinearDouble();
  onTestFinished(() => d.close());
  return d;
}

function draft(text: string, destination: Record<string, unknown>) {
  return { draft_text: text, destination, drafted_by_role: "Scribe", originating_intent_id: "intent-ch" };
}

/** 👍 on the draft's post, as the owner. */
function approve(live: LiveDaemonFixture, postId: number) {
  live.double.injectReaction({ chatId: OWNER, messageId: postId, userId: OWNER, newEmojis: ["👍"] });
}

const settled = (live: LiveDaemonFixture, d: Awaited<ReturnType<typeof live.start>>, id: string, status: string) =>
  eventually(async () => ((await draftRecord(d, id)) as Rec).status === status, 15_000, `draft ${status}`);

/** A paragraph of a long email (about 450 characters), numbered. */
const numbersParagraph = (i: number) => `Paragraph ${i}: ${"the quarterly numbers, line by line, ".repeat(12).trim()}`;
/** Where the long emails go. */
const NUMBERS_MAIL = { channel: "email", to: ["anna@example.com"], cc: [], bcc: [], subject: "Numbers", in_reply_to: null, references: [] };
describe.concurrent("email", () => {
  it("sends one plain-text email with to, cc and bcc shown on the post, and records its Message-ID", async ({ live, onTestFinished }) => {
    const smtp = await emailDouble(onTestFinished);
    const d = await live.start({ SMTP_URL: smtp.url, EMAIL_FROM: "Phill <phill@example.com>" });
    const text = "Hi Anna,\n\nThe contract is attached to the ticket.\n. A line with a dot.\n\nPhill";
    const a = await submitPending(
      d,
      draft(text, {
        channel: "email",
        to: ["anna@example.com"],
        cc: ["bob@example.com"],
        bcc: ["carol@example.com"],
        subject: "The contract",
        in_reply_to: null,
        references: [],
      }),
    );
    const post = live.double.message(OWNER, a.review_message_id)!;
    for (const who of ["anna@example.com", "bob@example.com", "carol@example.com", "The contract"]) expect(post.text).toContain(who);
    approve(live, a.review_message_id);
    await settled(live, d, a.draft_id, "sent");
    expect(smtp.state.messages).toHaveLength(1);
    const got = smtp.state.messages[0]!;
    expect(got.body.toString("utf8")).toBe(text);
    expect([...got.envelope.rcptTo].sort()).toEqual(["anna@example.com", "bob@example.com", "carol@example.com"]);
    const rec = (await draftRecord(d, a.draft_id)) as Rec;
    expect(rec.sent_ref.message_id).toBe(got.parsed.messageId);
    expect(rec.sent_ref.message_id).toMatch(/^<.+@example\.com>$/);
  }, 60_000);

  it("a 20,000-character email is shown in parts that join back to it exactly; a 👍 on the last part sends it whole", async ({
    live,
    onTestFinished,
  }) => {
    const smtp = await emailDouble(onTestFinished);
    const d = await live.start({ SMTP_URL: smtp.url, EMAIL_FROM: "Phill <phill@example.com>" });
    let text = Array.from({ length: 60 }, (_, i) => numbersParagraph(i)).join("\n");
    text = `${text}\n${"x".repeat(5000)}`.slice(0, 20_000).trim();
    const a = await submitPending(d, draft(text, NUMBERS_MAIL));
    const decision = live.double.message(OWNER, a.review_message_id)!;
    const headerId = decision.reply_to_message!.message_id;
    expect(live.double.message(OWNER, headerId)!.text).toMatch(
      /The draft \(20,000 characters\) is in the \d+ replies to this message, in order/,
    );
    const parts = live.double
      .messages(OWNER)
      .filter((m) => m.replyToMessageId === headerId)
      .sort((x, y) => x.message.message_id - y.message.message_id);
    expect(parts.length).toBeGreaterThanOrEqual(5);
    expect(parts.at(-1)!.message.message_id).toBe(a.review_message_id);
    expect(JSON.stringify(parts.slice(0, -1).map((p) => p.message.reply_markup ?? null))).toBe(
      JSON.stringify(parts.slice(0, -1).map(() => null)),
    );
    for (const p of parts) expect(p.text!.length).toBeLessThanOrEqual(4096);
    // No ✏️ Edit: the text could be neither offered to copy nor sent back in one reply.
    expect(JSON.stringify(decision.reply_markup)).not.toContain("✏️ Edit");
    expect(JSON.stringify(decision.reply_markup)).toContain("👍");
    // Each step to the next message is a line break of the draft, except where a line runs on (the long last line).
    // The last part carries the legend of reactions under it when today's legend shows there.
    const joined = parts.map((p, i) => (i === parts.length - 1 ? p.text!.split("\n👍 send")[0]! : p.text!));
    const rebuilt = joined.reduce((acc, part) => (acc === "" ? part : acc + (text.startsWith(`${acc}\n${part}`) ? "\n" : "") + part), "");
    expect(rebuilt).toBe(text);
    approve(live, a.review_message_id);
    await settled(live, d, a.draft_id, "sent");
    expect(smtp.state.messages).toHaveLength(1);
    expect(smtp.state.messages[0]!.body.toString("utf8")).toBe(text);
  }, 60_000);

  it("a reaction on a long email's middle part is answered with the way to its last part; 😴 is shown there; a revise leaves no part that decides", async ({
    live,
    onTestFinished,
  }) => {
    const smtp = await emailDouble(onTestFinished);
    const d = await live.start({ SMTP_URL: smtp.url, EMAIL_FROM: "Phill <phill@example.com>" });
    const text = Array.from({ length: 45 }, (_, i) => numbersParagraph(i)).join("\n");
    const a = await submitPending(d, draft(text, NUMBERS_MAIL));
    const headerId = live.double.message(OWNER, a.review_message_id)!.reply_to_message!.message_id;
    const parts = live.double.messages(OWNER).filter((m) => m.replyToMessageId === headerId);
    expect(parts.length).toBeGreaterThanOrEqual(3);
    const middle = parts[1]!.messageId;
    let before = live.double.messages(OWNER).length;
    live.double.injectReaction({ chatId: OWNER, messageId: middle, userId: OWNER, newEmojis: ["👍"] });
    const answer = await live.reviewChatMessage(before, /Not applied/, "the answer to a 👍 on a middle part");
    expect(answer.text).toContain("only its last message, the one with the buttons, takes decisions");
    // It replies to the message with the buttons: tapping its quote leads there.
    expect(answer.replyToMessageId).toBe(a.review_message_id);
    expect(((await draftRecord(d, a.draft_id)) as Rec).status).toBe("pending");
    // 😴 on the message with the buttons: the deferral is said there (issue 35, point 3); the header is not edited.
    const headerText = live.double.message(OWNER, headerId)!.text;
    live.double.injectReaction({ chatId: OWNER, messageId: a.review_message_id, userId: OWNER, newEmojis: ["😴"] });
    await settled(live, d, a.draft_id, "deferred");
    await eventually(
      () => live.double.message(OWNER, a.review_message_id)!.text!.startsWith("😴 Deferred until"),
      10_000,
      "the deferral on the message with the buttons",
    );
    expect(live.double.message(OWNER, headerId)!.text).toBe(headerText);
    // A note on the message with the buttons sends it back; the parts take nothing after it either.
    live.double.injectMessage({ chatId: OWNER, userId: OWNER, text: "shorter please", replyToMessageId: a.review_message_id });
    await settled(live, d, a.draft_id, "revise");
    before = live.double.messages(OWNER).length;
    live.double.injectReaction({ chatId: OWNER, messageId: parts[0]!.messageId, userId: OWNER, newEmojis: ["👍"] });
    const late = await live.reviewChatMessage(before, /Not applied/, "the answer to a 👍 on a part after the revise");
    expect(late.text).toContain("this draft is revise now");
    expect(((await draftRecord(d, a.draft_id)) as Rec).status).toBe("revise");
    expect(smtp.state.messages).toHaveLength(0);
  }, 60_000);

  it("asks the extra tap for an address outside EMAIL_FROM's domain, and names it", async ({ live, onTestFinished }) => {
    const smtp = await emailDouble(onTestFinished);
    const d = await live.start({ SMTP_URL: smtp.url, EMAIL_FROM: "phill@example.com" });
    const a = await submitPending(d, draft("Hello from Phill.", { channel: "email", to: ["x@elsewhere.org"], subject: "Hello" }));
    expect(live.double.message(OWNER, a.review_message_id)!.text).toMatch(/x@elsewhere\.org.*external/);
    const before = live.double.messages(OWNER).length;
    approve(live, a.review_message_id);
    await live.reviewChatMessage(before, /elsewhere\.org/, "the confirmation question");
    expect(((await draftRecord(d, a.draft_id)) as Rec).status).toBe("pending");
    expect(smtp.state.messages).toHaveLength(0);
  }, 60_000);

  it("a connection dropped after the message data ends outcome_unknown with its Message-ID, never sent again", async ({
    live,
    onTestFinished,
  }) => {
    const smtp = await emailDouble(onTestFinished);
    const d = await live.start({ SMTP_URL: smtp.url, EMAIL_FROM: "phill@example.com" });
    const a = await submitPending(d, draft("Lost on the way back.", { channel: "email", to: ["anna@example.com"], subject: "Hi" }));
    smtp.dropNextAfterData();
    approve(live, a.review_message_id);
    await settled(live, d, a.draft_id, "outcome_unknown");
    const rec = (await draftRecord(d, a.draft_id)) as Rec;
    expect(rec.reason).toContain(smtp.state.messages[0]!.parsed.messageId!);
    expect(smtp.state.calls.data).toBe(1);
  }, 60_000);

  it("a 550 for one recipient sends to none of them and ends failed with the reason on the post", async ({ live, onTestFinished }) => {
    const smtp = await emailDouble(onTestFinished);
    const d = await live.start({ SMTP_URL: smtp.url, EMAIL_FROM: "phill@example.com" });
    smtp.refuseRecipient("bob@example.com", 550, "5.1.1 No such user");
    const a = await submitPending(
      d,
      draft("To both of you.", { channel: "email", to: ["anna@example.com", "bob@example.com"], subject: "Both" }),
    );
    approve(live, a.review_message_id);
    await settled(live, d, a.draft_id, "failed");
    expect(smtp.state.messages).toHaveLength(0);
    await eventually(() => (live.double.message(OWNER, a.review_message_id)?.text ?? "").includes("bob@example.com"), 10_000, "the reason");
  }, 60_000);
});

describe.concurrent("Slack", () => {
  function seed(slack: SlackDouble) {
    const token = slack.addToken({ userId: "U0OWNER001", userName: "phill" }, "xoxp-test-token-1");
    slack.addConversation({ id: "C0DESIGN01", name: "design", kind: "public", members: ["U0OWNER001", "U0ANNA0001", "U0BOB00001"] });
    return token;
  }

  it("sends in the thread, names @channel on the post, and records channel, ts and permalink", async ({ live, onTestFinished }) => {
    const slack = await slackDouble(onTestFinished);
    const token = seed(slack);
    const root = slack.seedMessage("C0DESIGN01", { text: "Who reviews the mockups?", user: "U0ANNA0001" });
    const d = await live.start({ SLACK_TOKEN: token, SLACK_API_URL: slack.url });
    const text = "<!channel> I will review them *today*.";
    const a = await submitPending(d, draft(text, { channel: "slack", channel_id: "C0DESIGN01", thread_ts: root }));
    const post = live.double.message(OWNER, a.review_message_id)!.text;
    expect(post).toContain("design");
    expect(post).toMatch(/everyone/);
    expect(post).toContain("Who reviews the mockups?");
    approve(live, a.review_message_id);
    await settled(live, d, a.draft_id, "sent");
    const sent = slack.state.messages.get("C0DESIGN01")!.filter((m) => m.thread_ts === root && m.ts !== root);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.text).toBe(text);
    const rec = (await draftRecord(d, a.draft_id)) as Rec;
    expect(rec.sent_ref).toMatchObject({ channel: "C0DESIGN01", ts: sent[0]!.ts });
  }, 60_000);

  it("an ✏️ edit that adds @here is read again: the new post names everyone it notifies, and a 👍 on it sends", async ({
    live,
    onTestFinished,
  }) => {
    const slack = await slackDouble(onTestFinished);
    const token = seed(slack);
    const d = await live.start({ SLACK_TOKEN: token, SLACK_API_URL: slack.url });
    const a = await submitPending(d, draft("Mockups are ready.", { channel: "slack", channel_id: "C0DESIGN01", thread_ts: null }));
    expect(live.double.message(OWNER, a.review_message_id)!.text).not.toMatch(/everyone/);
    const edited = "<!here> Mockups are ready.";
    live.double.injectMessage({ chatId: OWNER, userId: OWNER, text: `✏️ ${edited}`, replyToMessageId: a.review_message_id });
    await eventually(
      async () => {
        const r = (await draftRecord(d, a.draft_id)) as Rec;
        return r.text_version === 2 && r.review_message_id !== null && r.review_message_id !== a.review_message_id;
      },
      15_000,
      "the edited draft posted again",
    );
    const v2 = (await draftRecord(d, a.draft_id)) as Rec;
    expect(v2.channel_audience.lines.join("\n")).toMatch(/everyone/);
    expect(live.double.message(OWNER, v2.review_message_id)!.text).toMatch(/@here[^\n]*everyone|everyone[^\n]*@here/);
    approve(live, v2.review_message_id);
    await settled(live, d, a.draft_id, "sent");
    expect(slack.state.messages.get("C0DESIGN01")!.filter((m) => m.text === edited)).toHaveLength(1);
  }, 60_000);

  it("a lost answer is found by its metadata: sent once, not twice", async ({ live, onTestFinished }) => {
    const slack = await slackDouble(onTestFinished);
    const token = seed(slack);
    const d = await live.start({ SLACK_TOKEN: token, SLACK_API_URL: slack.url });
    const a = await submitPending(d, draft("Lost answer, found message.", { channel: "slack", channel_id: "C0DESIGN01", thread_ts: null }));
    slack.dropAfterHandling("chat.postMessage");
    approve(live, a.review_message_id);
    await settled(live, d, a.draft_id, "sent");
    expect(slack.state.messages.get("C0DESIGN01")!.filter((m) => m.text === "Lost answer, found message.")).toHaveLength(1);
    expect(slack.callCount("chat.postMessage")).toBe(1);
  }, 60_000);

  it("channel_not_found is a permanent refusal: failed, the reason on the post", async ({ live, onTestFinished }) => {
    const slack = await slackDouble(onTestFinished);
    const token = seed(slack);
    const d = await live.start({ SLACK_TOKEN: token, SLACK_API_URL: slack.url });
    const a = await submitPending(d, draft("Hello.", { channel: "slack", channel_id: "C0DESIGN01", thread_ts: null }));
    slack.failNext("chat.postMessage", "channel_not_found");
    approve(live, a.review_message_id);
    await settled(live, d, a.draft_id, "failed");
    await eventually(() => /❌ Failed: Slack said/.test(live.double.message(OWNER, a.review_message_id)?.text ?? ""), 10_000, "the post");
  }, 60_000);

  it("a member who joined between the post and the 👍 does not void it (Telegram's growth rule): sent", async ({
    live,
    onTestFinished,
  }) => {
    const slack = await slackDouble(onTestFinished);
    const token = seed(slack);
    const d = await live.start({ SLACK_TOKEN: token, SLACK_API_URL: slack.url, AUDIENCE_CONFIRM_OVER: "50" });
    const a = await submitPending(d, draft("Busy room.", { channel: "slack", channel_id: "C0DESIGN01", thread_ts: null }));
    slack.state.conversations.get("C0DESIGN01")!.members.push("U0NEWCOMER");
    approve(live, a.review_message_id);
    await settled(live, d, a.draft_id, "sent");
    expect(slack.callCount("chat.postMessage")).toBe(1);
  }, 60_000);

  it("an audience that grew past the confirmation threshold between the post and the 👍 halts the send", async ({
    live,
    onTestFinished,
  }) => {
    const slack = await slackDouble(onTestFinished);
    const token = seed(slack);
    const d = await live.start({ SLACK_TOKEN: token, SLACK_API_URL: slack.url, AUDIENCE_CONFIRM_OVER: "50" });
    const a = await submitPending(d, draft("Small room.", { channel: "slack", channel_id: "C0DESIGN01", thread_ts: null }));
    const conv = slack.state.conversations.get("C0DESIGN01")!;
    for (let i = 0; i < 200; i++) conv.members.push(`U0MEMBER${String(i).padStart(3, "0")}`);
    approve(live, a.review_message_id);
    await settled(live, d, a.draft_id, "halted");
    expect(slack.callCount("chat.postMessage")).toBe(0);
    expect(((await draftRecord(d, a.draft_id)) as Rec).reason).toMatch(/audience changed/);
  }, 60_000);

  it("a token Slack refuses halts the channel at start: the review chat is told, /healthz names it, nothing is sent", async ({
    live,
    onTestFinished,
  }) => {
    const slack = await slackDouble(onTestFinished);
    seed(slack);
    const d = await live.start({ SLACK_TOKEN: "xoxp-not-a-known-token", SLACK_API_URL: slack.url });
    await live.reviewChatMessage(0, /slack refused the daemon's credentials/i, "the notice");
    const health = await d.request("GET", "/healthz");
    expect(JSON.stringify(health.body)).toMatch(/slack refused/i);
    const a = await submitPending(d, draft("Not with that token.", { channel: "slack", channel_id: "C0DESIGN01", thread_ts: null }));
    approve(live, a.review_message_id);
    await settled(live, d, a.draft_id, "halted");
    expect(slack.callCount("chat.postMessage")).toBe(0);
  }, 60_000);
});

describe.concurrent("Linear", () => {
  function seed(linear: LinearDouble) {
    const ws = linear.state.workspace;
    const me = ws.addUser({ name: "Phill Owner" }, { viewer: true });
    const anna = ws.addUser({ name: "Anna Lee" });
    const team = ws.addTeam({ key: "ENG", name: "Engineering", members: [me, anna] });
    const issue = ws.addIssue(team, { title: "Login fails on Safari", subscribers: [me, anna] });
    const parent = ws.addComment(issue, anna, "Can you confirm the fix is out?");
    return { ws, issue, parent, id: ws.identifier(issue) };
  }

  it("comments in the thread, shows the issue and the comment it answers, and records comment id and url", async ({
    live,
    onTestFinished,
  }) => {
    const linear = await linearDouble(onTestFinished);
    const { ws, issue, parent, id } = seed(linear);
    const d = await live.start({ LINEAR_API_KEY: linear.apiKey, LINEAR_API_URL: linear.url });
    const a = await submitPending(
      d,
      draft("Yes, it shipped this morning.", { channel: "linear", issue: id, parent_comment_id: parent.id }),
    );
    const post = live.double.message(OWNER, a.review_message_id)!.text;
    expect(post).toContain(id);
    expect(post).toContain("Login fails on Safari");
    expect(post).toContain("Can you confirm the fix is out?");
    approve(live, a.review_message_id);
    await settled(live, d, a.draft_id, "sent");
    const comments = [...ws.comments.values()].filter((c) => c.issueId === issue.id && c.parentId === parent.id);
    expect(comments.map((c) => c.body)).toEqual(["Yes, it shipped this morning."]);
    const rec = (await draftRecord(d, a.draft_id)) as Rec;
    expect(rec.sent_ref.comment_id).toBe(comments[0]!.id);
    expect(linear.state.invalid).toEqual([]);
  }, 60_000);

  it("a lost answer is settled by asking for the comment's id: one comment", async ({ live, onTestFinished }) => {
    const linear = await linearDouble(onTestFinished);
    const { ws, issue, id } = seed(linear);
    const d = await live.start({ LINEAR_API_KEY: linear.apiKey, LINEAR_API_URL: linear.url });
    const a = await submitPending(d, draft("Looking into it.", { channel: "linear", issue: id, parent_comment_id: null }));
    linear.loseNext("commentCreate");
    approve(live, a.review_message_id);
    await settled(live, d, a.draft_id, "sent");
    expect([...ws.comments.values()].filter((c) => c.issueId === issue.id && c.body === "Looking into it.")).toHaveLength(1);
  }, 60_000);

  it("an issue Linear does not find is a permanent refusal", async ({ live, onTestFinished }) => {
    const linear = await linearDouble(onTestFinished);
    const { id } = seed(linear);
    const d = await live.start({ LINEAR_API_KEY: linear.apiKey, LINEAR_API_URL: linear.url });
    const a = await submitPending(d, draft("Hello.", { channel: "linear", issue: id, parent_comment_id: null }));
    linear.failNext("commentCreate", linearAnswers.notFound("Issue"));
    approve(live, a.review_message_id);
    await settled(live, d, a.draft_id, "failed");
  }, 60_000);
});

describe.concurrent("he picks the recipient (choose one)", () => {
  const group = { channel: "telegram", chat_id: String(GROUP), thread_id: null };
  const mail = { channel: "email", to: ["anna@example.com"], subject: "Choice" };

  it("lists the destinations numbered with a send button each; a tap on 2 sends there, 👍 sends to 1, a reply '2' to 2", async ({
    live,
    onTestFinished,
  }) => {
    const smtp = await emailDouble(onTestFinished);
    const d = await live.start({ SMTP_URL: smtp.url, EMAIL_FROM: "phill@example.com" });
    const body = (text: string) => ({ ...draft(text, mail), destination: undefined, destinations: [group, mail] });
    const a = await submitPending(d, body("By the button."));
    const post = live.double.message(OWNER, a.review_message_id)!;
    expect(post.text).toMatch(/1\. .*Destination/);
    expect(post.text).toMatch(/2\. email to anna@example\.com · 1 reader/);
    const buttons = JSON.stringify(post.reply_markup);
    expect(buttons).toContain(`v1:to1:${a.draft_id}`);
    expect(buttons).toContain(`v1:to2:${a.draft_id}`);
    live.double.injectCallback({ chatId: OWNER, messageId: a.review_message_id, userId: OWNER, data: `v1:to2:${a.draft_id}` });
    await settled(live, d, a.draft_id, "sent");
    expect(smtp.state.messages.map((m) => m.body.toString("utf8"))).toEqual(["By the button."]);
    expect(live.double.messages(GROUP)).toHaveLength(0);
    expect(((await draftRecord(d, a.draft_id)) as Rec).deliveries).toMatchObject([{ index: 2, status: "sent" }]);

    const b = await submitPending(d, body("By the thumbs up."));
    approve(live, b.review_message_id);
    await settled(live, d, b.draft_id, "sent");
    expect(live.double.messages(GROUP).map((m) => m.text)).toEqual(["By the thumbs up."]);

    const c = await submitPending(d, body("By the number."));
    live.double.injectMessage({ chatId: OWNER, userId: OWNER, text: "2", replyToMessageId: c.review_message_id });
    await settled(live, d, c.draft_id, "sent");
    expect(smtp.state.messages.map((m) => m.body.toString("utf8"))).toEqual(["By the button.", "By the number."]);
    await eventually(
      () => /✅ Sent to 2 · /.test(live.double.message(OWNER, c.review_message_id)?.text ?? ""),
      10_000,
      "the post says where",
    );
  }, 60_000);
});

describe.concurrent("the kill switch", () => {
  it("halts a send on every channel: nothing reaches Linear, the SMTP server or Slack", async ({ live, onTestFinished }) => {
    const smtp = await emailDouble(onTestFinished);
    const slack = await slackDouble(onTestFinished);
    const token = slack.addToken({ userId: "U0OWNER001", userName: "phill" }, "xoxp-test-token-1");
    slack.addConversation({ id: "C0DESIGN01", name: "design", kind: "public", members: ["U0OWNER001"] });
    const linear = await linearDouble(onTestFinished);
    const ws = linear.state.workspace;
    const me = ws.addUser({ name: "Phill Owner" }, { viewer: true });
    const issue = ws.addIssue(ws.addTeam({ key: "ENG", name: "Engineering", members: [me] }), { title: "T" });
    const d = await live.start({
      TAO_SWARM_ENABLED: "false",
      SMTP_URL: smtp.url,
      EMAIL_FROM: "phill@example.com",
      SLACK_TOKEN: token,
      SLACK_API_URL: slack.url,
      LINEAR_API_KEY: linear.apiKey,
      LINEAR_API_URL: linear.url,
    });
    const drafts = [
      draft("Email, halted.", { channel: "email", to: ["anna@example.com"], subject: "S" }),
      draft("Slack, halted.", { channel: "slack", channel_id: "C0DESIGN01", thread_ts: null }),
      draft("Linear, halted.", { channel: "linear", issue: ws.identifier(issue), parent_comment_id: null }),
    ];
    for (const body of drafts) {
      const a = await submitPending(d, body);
      approve(live, a.review_message_id);
      await settled(live, d, a.draft_id, "halted");
    }
    expect(smtp.state.calls.data).toBe(0);
    expect(slack.callCount("chat.postMessage")).toBe(0);
    expect(linear.state.calls.get("commentCreate") ?? 0).toBe(0);
  }, 60_000);
});

describe.concurrent("intake", () => {
  it("a channel that is not configured is refused naming destination.channel and the variables to set", async ({ live }) => {
    const d = await live.start();
    const res = await d.request("POST", "/drafts", draft("Hi.", { channel: "slack", channel_id: "C0DESIGN01", thread_ts: null }));
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body)).toMatch(/destination\.channel.*SLACK_TOKEN/);
  }, 60_000);

  it("destination with destination_chat_id is refused naming destination", async ({ live, onTestFinished }) => {
    const smtp = await emailDouble(onTestFinished);
    const d = await live.start({ SMTP_URL: smtp.url, EMAIL_FROM: "phill@example.com" });
    const res = await d.request("POST", "/drafts", {
      ...draft("Hi.", { channel: "email", to: ["a@example.com"], subject: "S" }),
      destination_chat_id: "-100123",
    });
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body)).toMatch(/destination/);
  }, 60_000);

  it("a subject with a line break is refused naming the field", async ({ live, onTestFinished }) => {
    const smtp = await emailDouble(onTestFinished);
    const d = await live.start({ SMTP_URL: smtp.url, EMAIL_FROM: "phill@example.com" });
    const res = await d.request(
      "POST",
      "/drafts",
      draft("Hi.", { channel: "email", to: ["a@example.com"], subject: "S\r\nBcc: evil@x.org" }),
    );
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body)).toMatch(/destination\.subject/);
  }, 60_000);
});
