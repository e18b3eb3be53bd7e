import { describe, expect } from "vitest";
import type { SentMessage } from "../telegram-double/index.js";
import { eventually } from "../support/daemon-process.js";
import {
  auditLines,
  GROUP,
  OWNER,
  payload,
  draftRecord,
  submitPending,
  liveTest,
  type LiveDaemonFixture,
} from "../support/live-fixture.js";

/**
 * Issue 25, point 3 (contract v4, "Every message that asks, acts"): the ⏰
 * reminder is a decision surface for the draft as its post shows it. It
 * carries the post's buttons, and a reaction, a reply or a tap on it counts as
 * on the live post: 👍 sends (after UNDO_WINDOW), a note revises, ✏️ edits.
 * Once the draft is decided or gets a new version the reminder says what
 * became of it and loses its buttons. On main a reply "👍" or a note on the
 * reminder was dropped silently and a 👍 on it refused: the draft expired
 * unsent. Through the real daemon and the Bot API double.
 */

// Each test has a Bot API double and daemons of its own, and the tests run at once: most of each is waiting on the real clock.
const it = liveTest();

type Rec = Record<string, any>;

/** A draft that lives 20 s and is reminded 17 s before: the reminder comes about 3 s after the post. */
const ENV = { DRAFT_TTL: "20s", REMIND_BEFORE: "17s", UNDO_WINDOW: "0" };

const get = (live: LiveDaemonFixture, id: string) => draftRecord(live.daemon, id);
const buttons = (live: LiveDaemonFixture, id: number) =>
  (live.double.message(OWNER, id)?.reply_markup?.inline_keyboard ?? []).flat() as Rec[];
const textOf = (live: LiveDaemonFixture, id: number) => live.double.message(OWNER, id)?.text ?? "";

/** Submits a draft, waits for its post and then its ⏰ reminder (a reply to the post). */
async function reminded(
  live: LiveDaemonFixture,
  text: string,
  env: Record<string, string> = {},
): Promise<{ d: Rec; reminder: SentMessage }> {
  await live.start({ ...ENV, ...env });
  const d = await submitPending(live.daemon, payload(text));
  const reminder = await eventually(
    () => live.double.messages(OWNER).find((m) => m.replyToMessageId === d.review_message_id && m.text.startsWith("⏰")),
    15_000,
    "the reminder",
  );
  return { d, reminder };
}

/** Waits until the reminder says what became of the draft, without buttons; resolves with its text. */
function closed(live: LiveDaemonFixture, reminder: SentMessage): Promise<string> {
  return eventually(
    () =>
      /No longer applies|👍 Approved at/.test(textOf(live, reminder.messageId)) &&
      buttons(live, reminder.messageId).length === 0 &&
      textOf(live, reminder.messageId),
    10_000,
    "the reminder closed",
  );
}

/** The reviewer's reply to `messageId`. */
const reply = (live: LiveDaemonFixture, messageId: number, text: string) =>
  live.double.injectMessage({ chatId: OWNER, userId: OWNER, text, replyToMessageId: messageId });

describe.concurrent("the ⏰ reminder acts as its post", () => {
  it("carries the post's buttons and its deadline as a date_time entity; a 👍 on it sends after UNDO_WINDOW, and it then says so", async ({
    live,
  }) => {
    const { d, reminder } = await reminded(live, "Hi team, the projector is booked.", { UNDO_WINDOW: "2s" });
    expect(reminder.text).toMatch(
      /^⏰ Reminder: this draft \(Scribe, for Destination\) expires \w{3} \d+ \w{3} \d\d:\d\d and is not sent unless you decide/,
    );
    const time = reminder.entities?.find((e) => e.type === "date_time") as Rec;
    expect(time).toMatchObject({ unix_time: Math.floor(Date.parse(d.expires_at) / 1000), date_time_format: "r" });
    expect(reminder.text.slice(time.offset, time.offset + time.length)).toMatch(/^\w{3} \d+ \w{3} \d\d:\d\d$/);
    expect(buttons(live, reminder.messageId).map((b) => b.text)).toEqual(buttons(live, d.review_message_id).map((b) => b.text));

    const reactedAt = Date.now();
    live.double.injectReaction({ chatId: OWNER, messageId: reminder.messageId, userId: OWNER, newEmojis: ["👍"] });
    const sent = await eventually(() => live.double.messages(GROUP)[0], 10_000, "the send");
    expect(sent.text).toBe("Hi team, the projector is booked.");
    // The approval waited out UNDO_WINDOW like one on the post.
    expect(sent.at - reactedAt).toBeGreaterThanOrEqual(2_000);
    await eventually(async () => (await get(live, d.draft_id)).status === "sent", 10_000, "sent");
    expect(await closed(live, reminder)).toMatch(
      /👍 Approved at .*: its post shows the send time and ↩️ Undo\.$|No longer applies: the draft was sent at /,
    );
    expect((await auditLines(live.daemon.harnessDir)).filter((l) => l.kind === "decision_refused")).toEqual([]);
  });

  it("a 👍 on it is undone by taking it back there within UNDO_WINDOW, as on the post: the reminder opens again", async ({ live }) => {
    const { d, reminder } = await reminded(live, "Hi team, maybe not yet.", { UNDO_WINDOW: "6s" });
    const open = textOf(live, reminder.messageId);
    live.double.injectReaction({ chatId: OWNER, messageId: reminder.messageId, userId: OWNER, newEmojis: ["👍"] });
    await eventually(async () => (await get(live, d.draft_id)).status === "approved", 10_000, "approved");
    // Approved: no buttons (a 👍 Send there would be a trap), and it says so: not "no longer applies" while its 👍 can
    // still be taken back, and where the send time and ↩️ Undo are (issue 35, point 5); it never offers ↩️ Undo itself.
    const approved = await closed(live, reminder);
    expect(approved).toMatch(/\n👍 Approved at .*: its post shows the send time and ↩️ Undo\.$/);
    expect(approved).not.toContain("No longer applies");
    live.double.injectReaction({ chatId: OWNER, messageId: reminder.messageId, userId: OWNER, oldEmojis: ["👍"], newEmojis: [] });
    await eventually(async () => (await get(live, d.draft_id)).status === "pending", 10_000, "undone");
    await eventually(() => textOf(live, reminder.messageId) === open && buttons(live, reminder.messageId).length > 0, 10_000, "open again");
    expect(live.double.messages(GROUP)).toHaveLength(0);
  });

  it("a 👎 on it sends the draft back for revision, as on the post, and the reminder says so", async ({ live }) => {
    const { d, reminder } = await reminded(live, "Hi team, the budget is final.");
    live.double.injectReaction({ chatId: OWNER, messageId: reminder.messageId, userId: OWNER, newEmojis: ["👎"] });
    await eventually(async () => (await get(live, d.draft_id)).status === "revise", 10_000, "sent back for revision");
    expect(await closed(live, reminder)).toContain("No longer applies: the draft was sent back for revision.");
    const lines = await auditLines(live.daemon.harnessDir);
    expect(lines.find((l) => l.kind === "transition" && l.to === "revise")).toMatchObject({
      decision: "revise",
      emoji: "👎",
      channel: "reaction",
    });
    expect(lines.filter((l) => l.kind === "decision_refused")).toEqual([]);
    expect(live.double.messages(GROUP)).toHaveLength(0);
  });

  it("a reply 👍 on it sends", async ({ live }) => {
    const { reminder } = await reminded(live, "Hi team, lunch at noon.");
    reply(live, reminder.messageId, "👍");
    await eventually(() => live.double.messages(GROUP).length === 1, 10_000, "the send");
    expect(await closed(live, reminder)).toMatch(/No longer applies: the draft was sent at \w{3} \d+ \w{3} \d\d:\d\d\.$/);
  });

  it("a reply note on it revises with that note, and the reminder says so", async ({ live }) => {
    const { d, reminder } = await reminded(live, "Hi team, the room is ready.");
    reply(live, reminder.messageId, "mention the projector too");
    const revised = await eventually(async () => {
      const rec = await get(live, d.draft_id);
      return rec.status === "revise" ? rec : null;
    });
    expect(revised.revision_note).toBe("mention the projector too");
    expect(await closed(live, reminder)).toContain("No longer applies: the draft was sent back for revision.");
    expect(live.double.messages(GROUP)).toHaveLength(0);
  });

  it("a ✏️ reply to it edits: the new version is posted, and the reminder says its post was replaced", async ({ live }) => {
    const { d, reminder } = await reminded(live, "Hi team, see you at 9.");
    reply(live, reminder.messageId, "✏️ Hi team, see you at 10.");
    const v2 = await eventually(async () => {
      const rec = await get(live, d.draft_id);
      return rec.text_version === 2 && rec.status === "pending" && rec.review_message_id !== d.review_message_id ? rec : null;
    });
    expect(v2.draft_text).toBe("Hi team, see you at 10.");
    expect(await closed(live, reminder)).toContain("No longer applies: the draft was edited: version 2 is its new post.");
    // A 👍 on it now does not send version 2: it is answered with the way to the live post.
    live.double.injectReaction({ chatId: OWNER, messageId: reminder.messageId, userId: OWNER, newEmojis: ["👍"] });
    await eventually(
      () =>
        live.double
          .messages(OWNER)
          .some((m) => m.replyToMessageId === v2.review_message_id && m.text.startsWith("⚠️ Not applied: that reminder is out of date")),
      10_000,
      "the pointer to the live post",
    );
    expect(live.double.messages(GROUP)).toHaveLength(0);
    expect(await get(live, d.draft_id)).toMatchObject({ status: "pending", text_version: 2 });
  });

  it("a tap on its 👍 Send button sends", async ({ live }) => {
    const { d, reminder } = await reminded(live, "Hi team, the minutes are out.");
    const send = buttons(live, reminder.messageId).find((b) => b.text.startsWith("👍"))!;
    live.double.injectCallback({ chatId: OWNER, messageId: reminder.messageId, userId: OWNER, data: send.callback_data });
    await eventually(() => live.double.messages(GROUP).length === 1, 10_000, "the send");
    await eventually(async () => (await get(live, d.draft_id)).status === "sent", 10_000, "sent");
    expect(live.double.lastAnsweredCallback?.text).toBe("Approved.");
  });

  it("shows the legend of reactions as its post does: on the day's first post's reminder, not on the next one's (issue 35, point 9)", async ({
    live,
  }) => {
    const { d, reminder } = await reminded(live, "Hi team, the first draft of the day.", { DRAFT_TTL: "8s", REMIND_BEFORE: "6s" });
    const e = await submitPending(live.daemon, payload("Hi team, the second draft."));
    const second = await eventually(
      () => live.double.messages(OWNER).find((m) => m.replyToMessageId === e.review_message_id && m.text.startsWith("⏰")),
      15_000,
      "the second reminder",
    );
    const legend = "👍 send · 👎 revise (or reply with a note) · 😴 defer";
    // As the chat showed them when sent: the legend once on each of the first post and its reminder, never on the second's.
    const sent = (id: number) => live.double.history(OWNER, id)[0]!.text ?? "";
    expect(sent(d.review_message_id)).toContain(legend);
    expect(reminder.text).toContain(`here or on its post. ${legend}`);
    expect(sent(e.review_message_id)).not.toContain(legend);
    expect(second.text).toMatch(/here or on its post\.$/);
  });

  it("a draft that expires at the deadline its reminder named: the reminder says that time once, not 'due to expire' and 'expired at' (issue 35, the day read back)", async ({
    live,
  }) => {
    const { d, reminder } = await reminded(live, "Hi team, a draft left alone.", { DRAFT_TTL: "6s", REMIND_BEFORE: "4s" });
    await eventually(async () => (await get(live, d.draft_id)).status === "expired", 15_000, "expired");
    const text = await closed(live, reminder);
    expect(text).toMatch(
      /^⏰ Reminder: Scribe's draft for Destination\.\nNo longer applies: the draft expired at \w{3} \d+ \w{3} \d\d:\d\d, unsent\.$/,
    );
    // What the chat showed of it: as sent, then closed, one edit.
    expect(live.double.history(OWNER, reminder.messageId).map((v) => v.method)).toEqual(["sendMessage", "editMessageText"]);
    expect(live.double.message(OWNER, reminder.messageId)?.entities?.filter((e) => e.type === "date_time")).toHaveLength(1);
  });

  it("loses its buttons once the draft is decided on the post, and says what became of it", async ({ live }) => {
    const { d, reminder } = await reminded(live, "Hi team, a draft decided on its post.");
    expect(buttons(live, reminder.messageId).length).toBeGreaterThan(0);
    live.double.injectReaction({ chatId: OWNER, messageId: d.review_message_id, userId: OWNER, newEmojis: ["👎"] });
    const text = await closed(live, reminder);
    expect(text).toMatch(/^⏰ Reminder: Scribe's draft for Destination, due to expire \w{3} \d+ \w{3} \d\d:\d\d\.\n/);
    expect(text).toContain("No longer applies: the draft was sent back for revision.");
    // The deadline it named is still under its date_time entity.
    expect(live.double.message(OWNER, reminder.messageId)?.entities?.some((e) => e.type === "date_time")).toBe(true);
  });
});
