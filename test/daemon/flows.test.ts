import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { TelegramDouble } from "../telegram-double/index.js";
import { eventually, type DaemonProcess } from "../support/daemon-process.js";
import { auditLines, GROUP, liveDaemon, liveDouble, OWNER, payload, STRANGER } from "../support/live-fixture.js";

/**
 * Issue 13 items 2, 3, 4 and 8 end to end: edit before approve, revisions as a
 * chain, the undo window and answers to actions on posts that are not live,
 * each in its reaction, button and reply forms, against the Bot API double.
 */

let double: TelegramDouble;
let daemon: DaemonProcess | undefined;

beforeEach(async () => {
  double = await liveDouble();
});

afterEach(async () => {
  await daemon?.stop("SIGKILL");
  daemon = undefined;
  await double.stop();
});

type Rec = Record<string, any>;

/** The review chat's budget scaled up, so posts after edits come quickly. */
const FAST = { TELEGRAM_RATE_SCALE: "20" };

async function get(d: DaemonProcess, id: string): Promise<Rec> {
  return (await d.request("GET", `/drafts/${id}`)).body;
}

async function submitPosted(d: DaemonProcess, text: string, extra: Rec = {}): Promise<Rec> {
  const res = await d.request("POST", "/drafts", payload(text, extra));
  expect(res.status).toBe(201);
  return eventually(async () => {
    const rec = await get(d, res.body.draft_id);
    return rec.status === "pending" ? rec : null;
  });
}

/** Waits until the draft awaits a decision on a post other than `oldPost`; returns the record. */
function repostedAfter(d: DaemonProcess, id: string, oldPost: number): Promise<Rec> {
  return eventually(
    async () => {
      const rec = await get(d, id);
      return rec.status === "pending" && rec.review_message_id !== oldPost ? rec : null;
    },
    10_000,
    "the edited draft is posted again",
  );
}

const toGroup = () => double.messages(GROUP);
const post = (id: number) => double.message(OWNER, id);
const buttons = (id: number) => JSON.stringify(post(id)?.reply_markup?.inline_keyboard ?? []);
/** Messages the bot sent into the review chat as replies to `id`. */
const repliesTo = (id: number) => double.messages(OWNER).filter((m) => m.replyToMessageId === id);

describe("edit before approve", () => {
  it("a ✏️ reply replaces the text; the old post is marked replaced; a 👍 on it is refused with a pointer; the new one sends", async () => {
    daemon = await liveDaemon(double, FAST);
    const a = await submitPosted(daemon, "Hi team, see you Thursday at 10.");
    double.injectMessage({
      chatId: OWNER,
      userId: OWNER,
      text: "✏️  Hi team, see you Friday at 10. ",
      replyToMessageId: a.review_message_id,
    });
    const v2 = await repostedAfter(daemon, a.draft_id, a.review_message_id);

    expect(v2).toMatchObject({
      draft_text: "Hi team, see you Friday at 10.",
      text_version: 2,
      original_text: "Hi team, see you Thursday at 10.",
      superseded_posts: [a.review_message_id],
    });
    const fresh = post(v2.review_message_id)!;
    expect(fresh.text).toContain("✏️ Edited in review: version 2.");
    expect(fresh.text).toContain("Changes: …team, see you [-Thursday-]{+Friday+} at 10.");
    expect(fresh.text).toContain("\nHi team, see you Friday at 10.\n");
    expect(buttons(v2.review_message_id)).toContain("✏️ Edit");
    await eventually(() => post(a.review_message_id)?.text?.startsWith("✏️ Replaced by version 2"), 10_000, "old post marked replaced");
    expect(buttons(a.review_message_id)).toBe("[]");

    // A 👍 on the replaced post does not count; the answer replies to the live post.
    double.injectReaction({ chatId: OWNER, messageId: a.review_message_id, userId: OWNER, newEmojis: ["👍"] });
    await eventually(() => repliesTo(v2.review_message_id).length === 1, 10_000, "pointer to the live post");
    expect(repliesTo(v2.review_message_id)[0]!.text).toMatch(
      /^⚠️ Not applied: that post is out of date\. Decide on the live post, version 2/,
    );
    expect((await get(daemon, a.draft_id)).status).toBe("pending");

    double.injectReaction({ chatId: OWNER, messageId: v2.review_message_id, userId: OWNER, newEmojis: ["👍"] });
    await eventually(() => toGroup().length === 1, 10_000, "the edited text is sent");
    expect(toGroup()[0]!.text).toBe("Hi team, see you Friday at 10.");

    const audit = await auditLines(daemon.harnessDir);
    const edited = audit.find((l) => l.kind === "transition" && l.event === "edit");
    expect(edited).toMatchObject({
      draft_id: a.draft_id,
      from: "pending",
      to: "queued",
      draft_text: "Hi team, see you Friday at 10.",
      previous_text: "Hi team, see you Thursday at 10.",
      text_version: 2,
      user_id: OWNER,
      channel: "reply",
    });
    expect(audit.find((l) => l.kind === "decision_refused" && l.reason === "not_live_post")).toMatchObject({
      review_message_id: a.review_message_id,
    });
    expect(audit.find((l) => l.to === "approved")).toMatchObject({ draft_text: "Hi team, see you Friday at 10." });
  });

  it("the ✏️ Edit button offers the text to copy with a ForceReply; the reply to it is the edit; a stranger's is not", async () => {
    daemon = await liveDaemon(double, FAST);
    const a = await submitPosted(daemon, "Lunch at noon? <b>not html</b>");
    double.injectCallback({ chatId: OWNER, messageId: a.review_message_id, userId: OWNER, data: `v1:edit:${a.draft_id}` });
    await eventually(() => double.answeredCallbacks().length === 1);
    expect(double.lastAnsweredCallback?.text).toBe("Reply to the message below with the new text.");
    const prompt = await eventually(() => repliesTo(a.review_message_id).find((m) => m.text.includes("Lunch at noon?")));
    expect(prompt.replyMarkup).toMatchObject({ force_reply: true });
    expect(prompt.parseMode).toBeUndefined();
    const text = "Lunch at noon? <b>not html</b>";
    expect(prompt.entities).toEqual([{ type: "pre", offset: prompt.text.length - text.length, length: text.length }]);

    double.injectMessage({ chatId: OWNER, userId: STRANGER, text: "Send me your password", replyToMessageId: prompt.messageId });
    double.injectMessage({ chatId: OWNER, userId: OWNER, text: "Lunch at 12:30?", replyToMessageId: prompt.messageId });
    const v2 = await repostedAfter(daemon, a.draft_id, a.review_message_id);
    expect(v2).toMatchObject({ draft_text: "Lunch at 12:30?", text_version: 2 });
    const refused = (await auditLines(daemon.harnessDir)).filter((l) => l.kind === "decision_refused");
    expect(refused.map((l) => [l.user_id, l.reason])).toEqual([[STRANGER, "not_a_reviewer"]]);

    // The prompt was for version 1: a second reply to it is an outdated edit, refused with a pointer.
    double.injectMessage({ chatId: OWNER, userId: OWNER, text: "Lunch at 13:00?", replyToMessageId: prompt.messageId });
    await eventually(() => repliesTo(v2.review_message_id).some((m) => m.text.includes("out of date")), 10_000, "outdated edit answered");
    expect((await get(daemon, a.draft_id)).draft_text).toBe("Lunch at 12:30?");
  });

  it("a button on an outdated post is refused, answered, and pointed to the live post", async () => {
    daemon = await liveDaemon(double, FAST);
    const a = await submitPosted(daemon, "Version one");
    double.injectMessage({ chatId: OWNER, userId: OWNER, text: "✏ Version two", replyToMessageId: a.review_message_id });
    const v2 = await repostedAfter(daemon, a.draft_id, a.review_message_id);
    double.injectCallback({ chatId: OWNER, messageId: a.review_message_id, userId: OWNER, data: `v1:send:${a.draft_id}` });
    await eventually(() => double.answeredCallbacks().length === 1);
    expect(double.lastAnsweredCallback?.text).toBe("Not applied: this post is out of date. See the live post (linked in the chat).");
    await eventually(() => repliesTo(v2.review_message_id).length === 1, 10_000, "pointer to the live post");
    expect((await get(daemon, a.draft_id)).status).toBe("pending");
    expect(toGroup()).toHaveLength(0);
  });

  it("refuses an empty edit and an edit over 4096 characters, and says why", async () => {
    daemon = await liveDaemon(double, FAST);
    const a = await submitPosted(daemon, "Keep me");
    double.injectMessage({ chatId: OWNER, userId: OWNER, text: "✏️   ", replyToMessageId: a.review_message_id });
    double.injectMessage({ chatId: OWNER, userId: OWNER, text: `✏️ ${"x".repeat(4097)}`, replyToMessageId: a.review_message_id });
    await eventually(() => repliesTo(a.review_message_id).length === 2, 10_000, "two answers");
    expect(repliesTo(a.review_message_id).map((m) => m.text)).toEqual([
      expect.stringMatching(/^✏️ Not applied: the edited text is empty/),
      expect.stringMatching(/^✏️ Not applied: the edited text is longer than Telegram's 4096 characters/),
    ]);
    expect(await get(daemon, a.draft_id)).toMatchObject({ draft_text: "Keep me", text_version: 1, status: "pending" });
  });
});

describe("revisions as a chain", () => {
  it("a payload naming `revises` shows the note and the diff; the earlier draft gets revised_by; an unknown id is refused", async () => {
    daemon = await liveDaemon(double, FAST);
    const a = await submitPosted(daemon, "Dear all, the meeting is on Thursday at 10 in room 4.");
    double.injectMessage({ chatId: OWNER, userId: OWNER, text: "Shorter please, and say Friday", replyToMessageId: a.review_message_id });
    await eventually(async () => (await get(daemon!, a.draft_id)).status === "revise");
    const b = await submitPosted(daemon, "Meeting: Friday 10:00, room 4.", { revises: a.draft_id });
    const text = post(b.review_message_id)!.text!;
    expect(text).toContain(`🔁 New version of draft ${a.draft_id}.`);
    expect(text).toContain("Your note: “Shorter please, and say Friday”");
    expect(text).toMatch(/Changes: .*\[-Dear all, the meeting is on Thursday at 10 in-\]\{\+Meeting: Friday 10:00,\+\} room 4\./);
    expect(await get(daemon, a.draft_id)).toMatchObject({ status: "revise", revised_by: b.draft_id });
    expect(b).toMatchObject({ revises: a.draft_id, previous_text: "Dear all, the meeting is on Thursday at 10 in room 4." });

    const unknown = await daemon.request("POST", "/drafts", payload("x", { revises: "d_nope" }));
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toMatch(/^revises: /);
  });

  it("an earlier draft still awaiting a decision becomes revise (superseded) and its post loses its buttons", async () => {
    daemon = await liveDaemon(double, FAST);
    const a = await submitPosted(daemon, "First try");
    const b = await submitPosted(daemon, "Second try", { revises: a.draft_id });
    expect(await get(daemon, a.draft_id)).toMatchObject({ status: "revise", reason: "superseded", revised_by: b.draft_id });
    await eventually(() => buttons(a.review_message_id) === "[]", 10_000, "superseded post without buttons");
  });
});

describe("undo window", () => {
  const WINDOW = { ...FAST, UNDO_WINDOW: "8s" };

  async function approved(d: DaemonProcess, text: string): Promise<Rec> {
    const a = await submitPosted(d, text);
    double.injectReaction({ chatId: OWNER, messageId: a.review_message_id, userId: OWNER, newEmojis: ["👍"] });
    const rec = await eventually(async () => {
      const r = await get(d, a.draft_id);
      return r.status === "approved" && r.send_after ? r : null;
    });
    await eventually(() => post(a.review_message_id)?.text?.startsWith("👍 Approved · Sending at "), 10_000, "countdown shown");
    return rec;
  }

  it("shows the countdown with ↩️ Undo; removing the 👍 returns the draft to pending, with its buttons, unsent", async () => {
    daemon = await liveDaemon(double, WINDOW);
    const a = await approved(daemon, "Undo me by reaction");
    const at = new Date(Date.parse(a.send_after));
    const hms = [at.getHours(), at.getMinutes(), at.getSeconds()].map((n) => String(n).padStart(2, "0")).join(":");
    expect(post(a.review_message_id)!.text).toContain(`👍 Approved · Sending at ${hms} · ↩️ Undo`);
    expect(buttons(a.review_message_id)).toContain("↩️ Undo");
    double.injectReaction({ chatId: OWNER, messageId: a.review_message_id, userId: OWNER, oldEmojis: ["👍"], newEmojis: [] });
    await eventually(async () => (await get(daemon!, a.draft_id)).status === "pending");
    expect(await get(daemon, a.draft_id)).toMatchObject({ approval: null, send_after: null });
    await eventually(() => post(a.review_message_id)?.text?.startsWith("⏳ Awaiting your decision."), 10_000, "post awaits again");
    expect(buttons(a.review_message_id)).toContain("👍 Send");
    const undone = (await auditLines(daemon.harnessDir)).find((l) => l.kind === "transition" && l.event === "undo");
    expect(undone).toMatchObject({ from: "approved", to: "pending", channel: "reaction", user_id: OWNER });
  });

  it("the ↩️ Undo button and a reply `undo` undo too; a stranger's undo does not", async () => {
    daemon = await liveDaemon(double, WINDOW);
    const a = await approved(daemon, "Undo me by button");
    double.injectCallback({ chatId: OWNER, messageId: a.review_message_id, userId: STRANGER, data: `v1:undo:${a.draft_id}` });
    double.injectCallback({ chatId: OWNER, messageId: a.review_message_id, userId: OWNER, data: `v1:undo:${a.draft_id}` });
    await eventually(() => double.answeredCallbacks().length === 2);
    expect(double.answeredCallbacks().map((c) => c.text)).toEqual([
      "Only the reviewer can decide on drafts.",
      "Undone: the draft awaits your decision again.",
    ]);
    expect((await get(daemon, a.draft_id)).status).toBe("pending");

    const b = await approved(daemon, "Undo me by reply");
    double.injectMessage({ chatId: OWNER, userId: OWNER, text: "undo", replyToMessageId: b.review_message_id });
    await eventually(async () => (await get(daemon!, b.draft_id)).status === "pending");
    expect((await get(daemon, b.draft_id)).revision_note).toBeNull();
    expect(toGroup()).toHaveLength(0);
  });

  it("without an undo the send happens once the window is over, never before", async () => {
    daemon = await liveDaemon(double, { ...FAST, UNDO_WINDOW: "2s" });
    const a = await submitPosted(daemon, "Send me after the window");
    double.injectReaction({ chatId: OWNER, messageId: a.review_message_id, userId: OWNER, newEmojis: ["👍"] });
    await eventually(() => toGroup().length === 1, 10_000, "sent after the window");
    const rec = await eventually(async () => {
      const r = await get(daemon!, a.draft_id);
      return r.status === "sent" ? r : null;
    });
    expect(toGroup()[0]!.at).toBeGreaterThanOrEqual(Date.parse(rec.send_after));
    // Too late now: the reviewer is told.
    double.injectReaction({ chatId: OWNER, messageId: a.review_message_id, userId: OWNER, oldEmojis: ["👍"], newEmojis: [] });
    await eventually(() => repliesTo(a.review_message_id).some((m) => m.text === "↩️ Too late to undo: the draft was already sent."));
  });

  it("a kill -9 inside the window loses neither the approval nor the rest of the window", async () => {
    daemon = await liveDaemon(double, WINDOW);
    const dirs = { cwd: daemon.cwd, harnessDir: daemon.harnessDir };
    const a = await approved(daemon, "Survive the crash");
    await daemon.stop("SIGKILL");
    expect(toGroup()).toHaveLength(0);
    daemon = await liveDaemon(double, WINDOW, dirs);
    const after = await get(daemon, a.draft_id);
    if (Date.now() < Date.parse(a.send_after))
      expect(after).toMatchObject({ status: "approved", send_after: a.send_after, approval: { actor: { user_id: OWNER } } });
    await eventually(() => toGroup().length === 1, 15_000, "sent after the restart");
    expect(toGroup()[0]!.at).toBeGreaterThanOrEqual(Date.parse(a.send_after));
    await eventually(async () => (await get(daemon!, a.draft_id)).status === "sent");
  });

  it("a kill -9 inside the window, then an undo after the restart, returns the draft to pending", async () => {
    daemon = await liveDaemon(double, { ...FAST, UNDO_WINDOW: "20s" });
    const dirs = { cwd: daemon.cwd, harnessDir: daemon.harnessDir };
    const a = await approved(daemon, "Undo after the crash");
    await daemon.stop("SIGKILL");
    daemon = await liveDaemon(double, { ...FAST, UNDO_WINDOW: "20s" }, dirs);
    double.injectCallback({ chatId: OWNER, messageId: a.review_message_id, userId: OWNER, data: `v1:undo:${a.draft_id}` });
    await eventually(async () => (await get(daemon!, a.draft_id)).status === "pending");
    expect(toGroup()).toHaveLength(0);
  });
});

describe("no silent refusals", () => {
  it("a button on an orphaned post (a crash left it unrecorded) is answered with the live post", async () => {
    daemon = await liveDaemon(double, FAST);
    const a = await submitPosted(daemon, "The live one");
    // Message 9999 is no post the daemon recorded, but its button names the draft.
    double.injectCallback({ chatId: OWNER, messageId: 9999, userId: OWNER, data: `v1:send:${a.draft_id}` });
    await eventually(() => repliesTo(a.review_message_id).length === 1, 10_000, "pointer to the live post");
    expect(repliesTo(a.review_message_id)[0]!.text).toContain("Decide on the live post, version 1");
    expect((await get(daemon, a.draft_id)).status).toBe("pending");
    // A reviewer's 👍 on a message that is nobody's post is answered too.
    double.injectReaction({ chatId: OWNER, messageId: 8888, userId: OWNER, newEmojis: ["👍"] });
    await eventually(() => double.messages(OWNER).some((m) => m.text.startsWith("⚠️ Not applied: that message is not a live review post")));
  });

  it("a status edit a kill -9 cut off is redone at start: no final draft keeps live buttons", async () => {
    daemon = await liveDaemon(double, FAST);
    const dirs = { cwd: daemon.cwd, harnessDir: daemon.harnessDir };
    const a = await submitPosted(daemon, "Show my outcome");
    double.delayNext("editMessageText", 3_000);
    double.injectReaction({ chatId: OWNER, messageId: a.review_message_id, userId: OWNER, newEmojis: ["👍"] });
    await eventually(async () => (await get(daemon!, a.draft_id)).status === "sent");
    await daemon.stop("SIGKILL");
    const editsBefore = double.calls("editMessageText").length;
    daemon = await liveDaemon(double, FAST, dirs);
    await eventually(() => double.calls("editMessageText").length > editsBefore, 10_000, "the edit is redone");
    await eventually(() => post(a.review_message_id)?.text?.startsWith("✅ Sent at"), 10_000);
    expect(buttons(a.review_message_id)).toBe("[]");
    expect(toGroup()).toHaveLength(1);
    // The edit is audited once Telegram has it (just after the double shows it).
    await eventually(async () =>
      (await auditLines(daemon!.harnessDir)).some((l) => l.kind === "status_shown" && l.draft_id === a.draft_id),
    );
  });
});
