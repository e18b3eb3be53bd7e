import { rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startEmailDouble, type EmailDouble } from "../doubles/email/email-double.js";
import { jsonLine, runBin } from "../support/cli-process.js";
import { eventually } from "../support/daemon-process.js";
import { auditLines, confirmationQuestion, draftRecord, GROUP, OWNER, submitPending, useLiveDaemon } from "../support/live-fixture.js";

/**
 * Issue 34, choose any: the daemon against the Bot API double and the SMTP
 * double. The owner turns destinations on and off with toggles on the post,
 * and one 👍 sends to every one that is on, each a delivery of its own.
 */

const live = useLiveDaemon();
let doubles: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(doubles.map((d) => d.close()));
  doubles = [];
});

type Rec = Record<string, any>;

async function emailDouble(): Promise<EmailDouble> {
  const d = await startEmailDouble();
  doubles.push(d);
  return d;
}

const group = { channel: "telegram", chat_id: String(GROUP), thread_id: null };
const mail = (to: string) => ({ channel: "email", to: [to], subject: "To several" });
const body = (text: string, destinations: unknown[]) => ({
  draft_text: text,
  drafted_by_role: "Scribe",
  originating_intent_id: "intent-any",
  destinations,
  choose: "any",
});

const postText = (id: number) => live.double.message(OWNER, id)?.text ?? "";
const tap = (postId: number, data: string) => live.double.injectCallback({ chatId: OWNER, messageId: postId, userId: OWNER, data });

describe("he picks the recipients (choose any)", () => {
  it("toggles edit the post; 👍 sends to those on; a recipient refused 550 leaves the draft partly_sent, its post listing both", async () => {
    const smtp = await emailDouble();
    const d = await live.start({ SMTP_URL: smtp.url, EMAIL_FROM: "phill@example.com" });
    smtp.refuseRecipient("bob@example.com", 550, "5.1.1 No such user");
    const a = await submitPending(d, body("To the group, Anna and Bob.", [group, mail("anna@example.com"), mail("bob@example.com")]));
    const post = a.review_message_id as number;
    expect(postText(post)).toMatch(/send to any of 3 destinations/);
    const buttons = JSON.stringify(live.double.message(OWNER, post)?.reply_markup);
    expect(buttons).toContain(`v1:tg1:${a.draft_id}`);
    expect(buttons).toContain(`v1:tg3:${a.draft_id}`);

    tap(post, `v1:tg2:${a.draft_id}`);
    await eventually(() => /2\. ⬜ off/.test(postText(post)), 10_000, "the post shows 2 off");
    expect(((await draftRecord(d, a.draft_id)) as Rec).chosen_set).toEqual([1, 3]);
    tap(post, `v1:tg2:${a.draft_id}`);
    await eventually(() => /2\. ✅ on/.test(postText(post)), 10_000, "the post shows 2 on again");

    live.double.injectReaction({ chatId: OWNER, messageId: post, userId: OWNER, newEmojis: ["👍"] });
    await eventually(async () => ((await draftRecord(d, a.draft_id)) as Rec).status === "partly_sent", 15_000, "partly_sent");
    const rec = (await draftRecord(d, a.draft_id)) as Rec;
    expect(rec.deliveries).toMatchObject([
      { index: 1, status: "sent", sent_ref: { chat_id: String(GROUP) } },
      { index: 2, status: "sent", sent_ref: { message_id: expect.any(String) } },
      { index: 3, status: "failed", sent_ref: null },
    ]);
    expect(rec.deliveries[2].reason).toMatch(/550|No such user|bob@example\.com/);
    expect(live.double.messages(GROUP).map((m) => m.text)).toEqual(["To the group, Anna and Bob."]);
    expect(smtp.state.messages.map((m) => m.envelope.rcptTo)).toEqual([["anna@example.com"]]);
    await eventually(() => /Partly sent/.test(postText(post)), 10_000, "the post says partly sent");
    expect(postText(post)).toMatch(/1\. ✅ sent/);
    expect(postText(post)).toMatch(/2\. ✅ sent/);
    expect(postText(post)).toMatch(/3\. ❌ not sent/);
    // The report counts each delivery under its own destination, not the draft under the last one only.
    const report = jsonLine(await runBin(["report", "--json"], { cwd: d.cwd, env: { HARNESS_DIR: d.harnessDir } }));
    expect(report.destinations).toEqual({
      [String(GROUP)]: expect.objectContaining({ drafts: 1, sent: 1 }),
      email: expect.objectContaining({ drafts: 2, sent: 1 }),
    });
    // The table names the group by its title, read from the draft's choices (its last delivery was an email).
    const table = (await runBin(["report"], { cwd: d.cwd, env: { HARNESS_DIR: d.harnessDir } })).stdout;
    expect(table).toMatch(/^\s*Destination\b/m);
    expect(table).not.toContain(String(GROUP));
  }, 60_000);

  it("a 👍 with every destination off is refused and answered; nothing is sent", async () => {
    const smtp = await emailDouble();
    const d = await live.start({ SMTP_URL: smtp.url, EMAIL_FROM: "phill@example.com" });
    const a = await submitPending(d, body("Nowhere yet.", [group, mail("anna@example.com")]));
    const post = a.review_message_id as number;
    tap(post, `v1:tg1:${a.draft_id}`);
    await eventually(() => /1\. ⬜ off/.test(postText(post)), 10_000, "1 off");
    tap(post, `v1:tg2:${a.draft_id}`);
    await eventually(() => /2\. ⬜ off/.test(postText(post)), 10_000, "2 off");
    live.double.injectReaction({ chatId: OWNER, messageId: post, userId: OWNER, newEmojis: ["👍"] });
    await eventually(
      () => live.double.messages(OWNER).some((m) => /turn on at least one destination/i.test(m.text ?? "")),
      10_000,
      "the answer",
    );
    expect(((await draftRecord(d, a.draft_id)) as Rec).status).toBe("pending");
    expect(live.double.messages(GROUP)).toHaveLength(0);
    expect(smtp.state.messages).toHaveLength(0);
  }, 60_000);
});

describe("choose any: a crash between two deliveries", () => {
  it("killed while the first (an email) waits for its answer: after the restart that one is outcome_unknown, never resent, and the second still goes, once", async () => {
    const smtp = await emailDouble();
    const env = { SMTP_URL: smtp.url, EMAIL_FROM: "phill@example.com" };
    const d = await live.start(env);
    const a = await submitPending(d, body("Crash between deliveries.", [mail("anna@example.com"), group]));
    const held = smtp.holdNext();
    live.double.injectReaction({ chatId: OWNER, messageId: a.review_message_id, userId: OWNER, newEmojis: ["👍"] });
    await held.received;
    const restarted = await live.restart(env);
    held.release();
    await eventually(async () => ((await draftRecord(restarted, a.draft_id)) as Rec).status === "partly_sent", 15_000, "partly_sent");
    const rec = (await draftRecord(restarted, a.draft_id)) as Rec;
    expect(rec.deliveries).toMatchObject([
      { index: 1, status: "outcome_unknown", sent_ref: null },
      { index: 2, status: "sent", sent_ref: { chat_id: String(GROUP) } },
    ]);
    expect(smtp.state.messages).toHaveLength(1);
    expect(live.double.messages(GROUP).map((m) => m.text)).toEqual(["Crash between deliveries."]);
    await eventually(() => /1\. ⚠️ outcome unknown/.test(postText(a.review_message_id as number)), 10_000, "the post lists it");
    // The owner is told of that delivery in the review chat, once.
    const told = () =>
      live.double.messages(OWNER).filter((m) => /may or may not have reached the destination \(destination 1:/.test(m.text ?? ""));
    await eventually(() => told().length === 1, 10_000, "the notice of delivery 1");
    // Each send event names its delivery.
    const sends = (await auditLines(restarted.harnessDir))
      .filter((l) => l.kind === "transition" && l.draft_id === a.draft_id && String(l.event).startsWith("send_"))
      .map((l) => [l.event, l.delivery]);
    expect(sends).toEqual([
      ["send_intent", 1],
      ["send_unknown", 1],
      ["send_intent", 2],
      ["send_ok", 2],
    ]);
  }, 60_000);
});

describe("choose any: a halt in the middle of a fan-out", () => {
  it("stops the rest: the post says which went; once the halt ends, 👍 Send the rest sends only the one not made", async () => {
    const smtp = await emailDouble();
    const d = await live.start({ SMTP_URL: smtp.url, EMAIL_FROM: "phill@example.com" });
    const a = await submitPending(d, body("Halt in the middle.", [mail("anna@example.com"), group]));
    const post = a.review_message_id as number;
    const held = smtp.holdNext();
    live.double.injectReaction({ chatId: OWNER, messageId: post, userId: OWNER, newEmojis: ["👍"] });
    await held.received;
    const halt = join(d.harnessDir, "HALT");
    await writeFile(halt, "{}\n", { mode: 0o600 });
    await eventually(async () => (await d.request("GET", "/status")).body.kill_switch.halted === true, 10_000, "halted");
    held.release();
    await eventually(async () => ((await draftRecord(d, a.draft_id)) as Rec).status === "halted", 15_000, "the draft halted");
    expect(((await draftRecord(d, a.draft_id)) as Rec).deliveries).toMatchObject([
      { index: 1, status: "sent" },
      { index: 2, status: "halted" },
    ]);
    expect(live.double.messages(GROUP)).toHaveLength(0);
    await eventually(() => /Halted in the middle/.test(postText(post)), 10_000, "the post says which went");
    expect(postText(post).split("\n").slice(0, 4)).toEqual([
      "⛔ Halted in the middle: kill switch: halted by the owner (/halt or draft-review halt).",
      "✅ Went: 1 · email to anna@example.com",
      "⛔ Stopped: 2 · Destination",
      "👍 Send the rest comes back here when the halt ends (it sends 2 only); 👎 leaves it at what went.",
    ]);

    await rm(halt);
    await eventually(async () => ((await draftRecord(d, a.draft_id)) as Rec).halt_lasts === false, 10_000, "the halt is over");
    await eventually(() => JSON.stringify(live.double.message(OWNER, post)?.reply_markup).includes("Send the rest"), 10_000, "👍 offered");
    expect(postText(post)).toContain("\nThe halt is over: 👍 Send the rest (it sends 2 only);");
    tap(post, `v1:send:${a.draft_id}`);
    await eventually(async () => ((await draftRecord(d, a.draft_id)) as Rec).status === "sent", 20_000, "sent");
    expect(((await draftRecord(d, a.draft_id)) as Rec).deliveries).toMatchObject([
      { index: 1, status: "sent" },
      { index: 2, status: "sent" },
    ]);
    expect(smtp.state.messages).toHaveLength(1);
    expect(live.double.messages(GROUP).map((m) => m.text)).toEqual(["Halt in the middle."]);
  }, 60_000);
});

describe("choose any: the confirmation", () => {
  it("is asked when destinations on need it, names each numbered with why (a large Telegram group, an address outside EMAIL_FROM's domain), and its tap sends to all those on", async () => {
    const smtp = await emailDouble();
    const d = await live.start({ SMTP_URL: smtp.url, EMAIL_FROM: "phill@example.com" });
    const big = -1_009_876_543_210;
    live.double.addChat({ id: big, type: "supergroup", title: "Everyone", memberCount: 5000 });
    const everyone = { channel: "telegram", chat_id: String(big), thread_id: null };
    const a = await submitPending(d, body("To the group, everyone and outside.", [group, everyone, mail("x@elsewhere.org")]));
    live.double.injectReaction({ chatId: OWNER, messageId: a.review_message_id, userId: OWNER, newEmojis: ["👍"] });
    const question = await confirmationQuestion(live.double, OWNER, a.review_message_id);
    expect(question.message.text?.split("\n")).toEqual([
      "Send to 2 · Everyone and 3 · email to x@elsewhere.org? Each asks one more tap:",
      "2 · Everyone: 5,000 members, over AUDIENCE_CONFIRM_OVER (200)",
      expect.stringMatching(/^3 · email to x@elsewhere\.org: first approved email outside example\.com to x@elsewhere\.org$/),
      "Your tap sends to every destination on: 1 · Destination, 2 · Everyone, 3 · email to x@elsewhere.org.",
    ]);
    expect(((await draftRecord(d, a.draft_id)) as Rec).status).toBe("pending");
    expect(live.double.messages(GROUP)).toHaveLength(0);
    tap(question.message.messageId, question.data);
    await eventually(async () => ((await draftRecord(d, a.draft_id)) as Rec).status === "sent", 20_000, "sent");
    expect(smtp.state.messages.map((m) => m.envelope.rcptTo)).toEqual([["x@elsewhere.org"]]);
    expect(live.double.messages(GROUP).map((m) => m.text)).toEqual(["To the group, everyone and outside."]);
    expect(live.double.messages(big).map((m) => m.text)).toEqual(["To the group, everyone and outside."]);
  }, 60_000);
});

describe("choose any: a stale 👍", () => {
  it("a 👍 made while the post still showed the set before a toggle is refused as out of date and answered; one on the edited post sends to those on", async () => {
    const smtp = await emailDouble();
    const d = await live.start({ SMTP_URL: smtp.url, EMAIL_FROM: "phill@example.com" });
    const a = await submitPending(d, body("Only to the group.", [group, mail("anna@example.com")]));
    const post = a.review_message_id as number;
    live.double.delayNext("editMessageText", 1_500);
    tap(post, `v1:tg2:${a.draft_id}`);
    await eventually(async () => ((await draftRecord(d, a.draft_id)) as Rec).chosen_set?.length === 1, 10_000, "2 off");
    const before = live.double.messages(OWNER).length;
    live.double.injectReaction({ chatId: OWNER, messageId: post, userId: OWNER, newEmojis: ["👍"] });
    await live.reviewChatMessage(before, /out of date/, "the stale answer");
    expect(((await draftRecord(d, a.draft_id)) as Rec).status).toBe("pending");
    await eventually(() => /2\. ⬜ off/.test(postText(post)), 10_000, "the post shows 2 off");
    live.double.injectReaction({ chatId: OWNER, messageId: post, userId: OWNER, oldEmojis: ["👍"], newEmojis: [] });
    live.double.injectReaction({ chatId: OWNER, messageId: post, userId: OWNER, newEmojis: ["👍"] });
    await eventually(async () => ((await draftRecord(d, a.draft_id)) as Rec).status === "sent", 20_000, "sent");
    expect(((await draftRecord(d, a.draft_id)) as Rec).deliveries).toMatchObject([{ index: 1, status: "sent" }]);
    expect(live.double.messages(GROUP).map((m) => m.text)).toEqual(["Only to the group."]);
    expect(smtp.state.messages).toHaveLength(0);
  }, 60_000);
});
