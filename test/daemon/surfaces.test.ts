import { join } from "node:path";
import { describe, expect } from "vitest";
import { startTelegramDouble, type SentMessage } from "../telegram-double/index.js";
import { eventually, pathExists, type DaemonProcess } from "../support/daemon-process.js";
import { auditLines, OWNER, STRANGER, liveTest, type LiveDaemonFixture } from "../support/live-fixture.js";

/**
 * Issue 19 item 1: a decision counts only on the surface it was made on, for
 * what that surface showed (text version, audience, identity), once for a
 * confirmation. Each case is one the daemon got wrong before surfaces.
 */

const BIG = -1_003_000_000_002;

// Each test has a Bot API double and daemons of its own, and the tests run at once: most of each is waiting on the real clock.
const it = liveTest({
  double: () =>
    startTelegramDouble({
      chats: [
        { id: OWNER, type: "private", firstName: "Owner" },
        { id: STRANGER, type: "private", firstName: "Stranger" },
        { id: BIG, type: "supergroup", title: "Big Room", memberCount: 1234 },
      ],
      users: [{ id: OWNER, firstName: "Owner", username: "owner" }],
    }),
  env: { TELEGRAM_RATE_SCALE: "20" },
});

type Rec = Record<string, any>;

const get = async (live: LiveDaemonFixture, id: string): Promise<Rec> => (await live.daemon.request("GET", `/drafts/${id}`)).body;
const sentToBig = (live: LiveDaemonFixture) => live.double.messages(BIG);
/** Messages the bot sent into the review chat as replies to `id`. */
const repliesTo = (live: LiveDaemonFixture, id: number) => live.double.messages(OWNER).filter((m) => m.replyToMessageId === id);
const refusals = async (live: LiveDaemonFixture) => (await auditLines(live.daemon.harnessDir)).filter((l) => l.kind === "decision_refused");

async function submitPosted(live: LiveDaemonFixture, d: DaemonProcess, text: string): Promise<Rec> {
  const res = await d.request("POST", "/drafts", {
    draft_text: text,
    destination_chat_id: String(BIG),
    drafted_by_role: "Scribe",
    originating_intent_id: "intent-s",
  });
  expect(res.status).toBe(201);
  return eventually(async () => {
    const rec = await get(live, res.body.draft_id);
    return rec.status === "pending" ? rec : null;
  });
}

/** The ✏️ Edit button on the draft's post: resolves with the prompt the bot sent. */
async function editPrompt(live: LiveDaemonFixture, draft: Rec): Promise<SentMessage> {
  live.double.injectCallback({ chatId: OWNER, messageId: draft.review_message_id, userId: OWNER, data: `v1:edit:${draft.draft_id}` });
  return eventually(() => repliesTo(live, draft.review_message_id).find((m) => m.text.startsWith("✏️ Edit version")), 10_000, "edit prompt");
}

/** A ✏️ reply that makes the next text version; resolves with the record once that version is posted. */
async function editTo(live: LiveDaemonFixture, draft: Rec, text: string): Promise<Rec> {
  live.double.injectMessage({ chatId: OWNER, userId: OWNER, text: `✏️ ${text}`, replyToMessageId: draft.review_message_id });
  return eventually(
    async () => {
      const rec = await get(live, draft.draft_id);
      return rec.status === "pending" && rec.review_message_id !== draft.review_message_id ? rec : null;
    },
    10_000,
    "the edited draft posted again",
  );
}

/** A 👍 on the draft's post; resolves with the confirmation question the bot asks. */
async function confirmationQuestion(live: LiveDaemonFixture, draft: Rec): Promise<{ ask: SentMessage; data: string }> {
  live.double.injectReaction({ chatId: OWNER, messageId: draft.review_message_id, userId: OWNER, newEmojis: ["👍"] });
  const ask = await eventually(
    () => repliesTo(live, draft.review_message_id).find((m) => m.text.startsWith("Send to 1,234 members")),
    10_000,
    "confirmation question",
  );
  return { ask, data: (ask.replyMarkup as any).inline_keyboard[0][0].callback_data };
}

/** Taps `data` on message `messageId` as the owner; resolves with the answer to the callback. */
async function tap(live: LiveDaemonFixture, messageId: number, data: string): Promise<string | undefined> {
  const before = live.double.answeredCallbacks().length;
  live.double.injectCallback({ chatId: OWNER, messageId, userId: OWNER, data });
  await eventually(() => live.double.answeredCallbacks().length > before, 10_000, "callback answered");
  return live.double.lastAnsweredCallback?.text;
}

describe.concurrent("an edit prompt is no place to decide (row 1)", () => {
  for (const restart of [false, true]) {
    it(`a 👍 on the prompt that showed version 1, once version 2 is posted${restart ? ", after a restart" : ""}: refused, pointed to the live post, not sent`, async ({
      live,
    }) => {
      await live.start({ AUDIENCE_CONFIRM_OVER: "100000" });
      const a = await submitPosted(live, live.daemon, "Version one");
      const prompt = await editPrompt(live, a);
      const v2 = await editTo(live, a, "Version two");
      if (restart) {
        await live.restart({ AUDIENCE_CONFIRM_OVER: "100000" });
        await eventually(async () => (await get(live, a.draft_id)).status === "pending", 10_000, "back after the restart");
      }
      live.double.injectReaction({ chatId: OWNER, messageId: prompt.messageId, userId: OWNER, newEmojis: ["👍"] });
      const answer = await eventually(
        () =>
          sentToBig(live).length > 0
            ? "sent"
            : repliesTo(live, v2.review_message_id).find((m) => m.text.startsWith("⚠️ Not applied: the edit prompt"))?.text,
        10_000,
        "pointer to the live post (or a send)",
      );
      expect(sentToBig(live)).toHaveLength(0);
      expect(answer).toMatch(/^⚠️ Not applied: the edit prompt only takes a new text .*Decide on the live post, version 2/);
      expect(await get(live, a.draft_id)).toMatchObject({ status: "pending", text_version: 2 });
      expect(sentToBig(live)).toHaveLength(0);
      // The prompt was retired when version 2 was posted (issue 35, point 4): it says so, and takes nothing more.
      const retired = live.double.message(OWNER, prompt.messageId)?.text;
      expect(retired).toBe("✏️ Edit version 1.\n\n✅ Edited: version 2 is its new post.");
      const onPrompt = (await refusals(live)).filter((l) => l.review_message_id === prompt.messageId);
      expect(onPrompt).toEqual([expect.objectContaining({ reason: "surface_used", emoji: "👍", channel: "reaction" })]);
      // After a kill -9 Telegram delivers the ✏️ Edit tap again: its prompt is recorded with its update, so it is not refused anew.
      expect((await refusals(live)).filter((l) => l.review_message_id === a.review_message_id)).toEqual([]);
    });
  }

  it("a reply 👍 to an edit prompt is not the new text: refused and answered; a real text still edits", async ({ live }) => {
    await live.start({ AUDIENCE_CONFIRM_OVER: "100000" });
    const a = await submitPosted(live, live.daemon, "Keep this text");
    const prompt = await editPrompt(live, a);
    live.double.injectMessage({ chatId: OWNER, userId: OWNER, text: "👍", replyToMessageId: prompt.messageId });
    const answer = await eventually(() => repliesTo(live, a.review_message_id).find((m) => m.text.startsWith("⚠️")), 10_000, "answer");
    expect(answer.text).toMatch(/^⚠️ Not applied: the edit prompt only takes a new text \(👍 alone is none\)/);
    expect(await get(live, a.draft_id)).toMatchObject({ draft_text: "Keep this text", text_version: 1, status: "pending" });
    expect(sentToBig(live)).toHaveLength(0);
    expect((await refusals(live)).at(-1)).toMatchObject({ reason: "wrong_surface", emoji: "👍", channel: "reply" });

    live.double.injectMessage({ chatId: OWNER, userId: OWNER, text: "A new text", replyToMessageId: prompt.messageId });
    await eventually(async () => (await get(live, a.draft_id)).draft_text === "A new text", 10_000, "the prompt still takes a text");
  });
});

describe.concurrent("a confirmation binds to the version and audience it asked about, once (rows 2, 3)", () => {
  it("asked for version 1, tapped after an ✏️ edit made version 2: the question says it no longer applies; a tap is refused, pointed to the live post, not sent", async ({
    live,
  }) => {
    await live.start();
    const a = await submitPosted(live, live.daemon, "To everyone: version one");
    const { ask, data } = await confirmationQuestion(live, a);
    const v2 = await editTo(live, a, "To everyone: version two");
    // Issue 25: the question says in its own text what became of it, and its button goes.
    const closed = await eventually(
      () => live.double.message(OWNER, ask.messageId)?.text?.includes("No longer applies") && live.double.message(OWNER, ask.messageId),
      10_000,
      "the question closed",
    );
    expect(closed.text).toBe(
      "Send to 1,234 members of “Big Room”? Your 👍 counts once you confirm.\n\nNo longer applies: the draft was edited: version 2 is its new post.",
    );
    expect(closed.reply_markup?.inline_keyboard ?? []).toEqual([]);
    // A tap that was on its way (Telegram may still deliver one) counts for nothing.
    expect(await tap(live, ask.messageId, data)).toBe(
      "Not applied: this question was answered already or no longer applies. See the live post (linked in the chat).",
    );
    await eventually(() => repliesTo(live, v2.review_message_id).some((m) => m.text.includes("no longer applies")), 10_000, "pointer");
    expect(await get(live, a.draft_id)).toMatchObject({ status: "pending", text_version: 2, approval: null });
    expect(sentToBig(live)).toHaveLength(0);
    expect((await refusals(live)).at(-1)).toMatchObject({ reason: "surface_used", review_message_id: ask.messageId, emoji: "✅" });
  });

  it("tapped again after the draft was held because the chat became public (50,000 members): refused, not sent", async ({ live }) => {
    await live.start();
    const a = await submitPosted(live, live.daemon, "For the room only");
    const { ask, data } = await confirmationQuestion(live, a);
    live.double.addChat({ id: BIG, type: "supergroup", username: "big_public", memberCount: 50_000 });
    expect(await tap(live, ask.messageId, data)).toBe("Approved.");
    await eventually(async () => (await get(live, a.draft_id)).status === "halted", 10_000, "held: the chat became public");
    const questions = () => live.double.messages(OWNER).filter((m) => m.text.startsWith("Send to")).length;
    const asked = questions();

    expect(await tap(live, ask.messageId, data)).toMatch(/^Not applied: this question was answered already/);
    await eventually(
      () => repliesTo(live, a.review_message_id).some((m) => m.text.startsWith("⚠️ Not applied: that question was answered already")),
      10_000,
      "the reviewer told, with a pointer to the live post",
    );
    expect(await get(live, a.draft_id)).toMatchObject({ status: "halted" });
    expect(sentToBig(live)).toHaveLength(0);
    expect(questions()).toBe(asked);
    expect((await refusals(live)).at(-1)).toMatchObject({ reason: "surface_used", review_message_id: ask.messageId });
  });

  it("a confirm tap whose data is forged for a draft whose question was never asked is refused; nothing is sent", async ({ live }) => {
    await live.start();
    const a = await submitPosted(live, live.daemon, "Never confirmed");
    expect(await tap(live, a.review_message_id, `v1:confirm:${a.draft_id}`)).toBe(
      "Not applied: this button does not count here. See the live post (linked in the chat).",
    );
    const b = await submitPosted(live, live.daemon, "Another draft");
    const { ask, data } = await confirmationQuestion(live, b);
    // The question of another draft, with data naming the first one.
    expect(await tap(live, ask.messageId, data.replace(b.draft_id, a.draft_id))).toMatch(/^Not applied/);
    expect(await get(live, a.draft_id)).toMatchObject({ status: "pending", approval: null });
    expect(await get(live, b.draft_id)).toMatchObject({ status: "pending", approval: null });
    expect(sentToBig(live)).toHaveLength(0);
    expect((await refusals(live)).map((l) => l.reason)).toEqual(["wrong_surface", "needs_confirmation", "button_names_another_draft"]);
  });
});

describe.concurrent("a /resume confirmation binds to the halt it was asked about", () => {
  /** The owner writes `text`; resolves with the daemon's next matching message. */
  async function command(live: LiveDaemonFixture, text: string, answer: RegExp): Promise<SentMessage> {
    const before = live.double.messages(OWNER).length;
    live.double.injectMessage({ chatId: OWNER, userId: OWNER, text });
    return live.reviewChatMessage(before, answer, `an answer to ${text}`);
  }
  const resumeData = (m: SentMessage) => JSON.stringify(m.replyMarkup).match(/owner:resume:[0-9a-f]+/)![0];

  it("a ▶️ button from an earlier /resume does not lift a newer halt, and is audited", async ({ live }) => {
    await live.start();
    const haltFile = join(live.daemon.harnessDir, "HALT");
    await command(live, "/halt", /^⛔ Sends halted/);
    const first = await command(live, "/resume", /^⚠️ Resume sends\?/);
    const second = await command(live, "/resume", /^⚠️ Resume sends\?/);
    expect(await tap(live, second.messageId, resumeData(second))).toBe("Resumed.");
    expect(await pathExists(haltFile)).toBe(false);
    await command(live, "/halt", /^⛔ Sends halted/);

    expect(await tap(live, first.messageId, resumeData(first))).toBe(
      "This confirmation is no longer valid: nothing changed. Send /resume again.",
    );
    expect(await pathExists(haltFile)).toBe(true);
    // Nor does the used one, nor another button's data on it.
    expect(await tap(live, second.messageId, resumeData(second))).toMatch(/^This confirmation is no longer valid/);
    expect(await tap(live, second.messageId, resumeData(first))).toMatch(/^This confirmation is no longer valid/);
    expect(await pathExists(haltFile)).toBe(true);
    const refused = (await auditLines(live.daemon.harnessDir)).filter((l) => l.kind === "command_refused");
    expect(refused.map((l) => l.reason)).toEqual(["outdated_halt", "surface_used", "token_mismatch"]);
  });
});
