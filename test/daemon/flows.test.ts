import { describe, expect } from "vitest";
import { eventually, type DaemonProcess } from "../support/daemon-process.js";
import { auditLines, GROUP, OWNER, payload, STRANGER, liveTest, type LiveDaemonFixture } from "../support/live-fixture.js";

/**
 * Issue 13 items 2, 3, 4 and 8 end to end: edit before approve, revisions as a
 * chain, the undo window and answers to actions on posts that are not live,
 * each in its reaction, button and reply forms, against the Bot API double.
 */

// Each test has a Bot API double and daemons of its own, and the tests run at once: most of each is waiting on the real clock.
const it = liveTest();

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

const toGroup = (live: LiveDaemonFixture) => live.double.messages(GROUP);
const post = (live: LiveDaemonFixture, id: number) => live.double.message(OWNER, id);
const buttons = (live: LiveDaemonFixture, id: number) => JSON.stringify(post(live, id)?.reply_markup?.inline_keyboard ?? []);
/** Messages the bot sent into the review chat as replies to `id`. */
const repliesTo = (live: LiveDaemonFixture, id: number) => live.double.messages(OWNER).filter((m) => m.replyToMessageId === id);

describe.concurrent("edit before approve", () => {
  it("a ✏️ reply replaces the text; the old post is marked replaced; a 👍 on it is refused with a pointer; the new one sends", async ({
    live,
  }) => {
    await live.start(FAST);
    const a = await submitPosted(live.daemon, "Hi team, see you Thursday at 10.");
    live.double.injectMessage({
      chatId: OWNER,
      userId: OWNER,
      text: "✏️  Hi team, see you Friday at 10. ",
      replyToMessageId: a.review_message_id,
    });
    const v2 = await repostedAfter(live.daemon, a.draft_id, a.review_message_id);

    expect(v2).toMatchObject({
      draft_text: "Hi team, see you Friday at 10.",
      text_version: 2,
      original_text: "Hi team, see you Thursday at 10.",
      superseded_posts: [a.review_message_id],
    });
    const fresh = post(live, v2.review_message_id)!;
    expect(fresh.text).toContain("✏️ Edited in review: version 2.");
    // The diff is our own text: removed words struck through, added ones bold (entities, no markup).
    expect(fresh.text).toContain("Changes: …team, see you Thursday Friday at 10.");
    const marked = (fresh.entities ?? []).map((e) => [e.type, fresh.text!.slice(e.offset, e.offset + e.length)]);
    expect(marked).toEqual(
      expect.arrayContaining([
        ["strikethrough", "Thursday"],
        ["bold", "Friday"],
      ]),
    );
    expect(fresh.text).toContain("\nHi team, see you Friday at 10.\n");
    expect(buttons(live, v2.review_message_id)).toContain("✏️ Edit");
    await eventually(
      () => post(live, a.review_message_id)?.text?.startsWith("✏️ Replaced by version 2"),
      10_000,
      "old post marked replaced",
    );
    expect(buttons(live, a.review_message_id)).toBe("[]");

    // A 👍 on the replaced post does not count; the answer replies to the live post.
    live.double.injectReaction({ chatId: OWNER, messageId: a.review_message_id, userId: OWNER, newEmojis: ["👍"] });
    await eventually(() => repliesTo(live, v2.review_message_id).length === 1, 10_000, "pointer to the live post");
    expect(repliesTo(live, v2.review_message_id)[0]!.text).toMatch(
      /^⚠️ Not applied: that post is out of date\. Decide on the live post, version 2/,
    );
    expect((await get(live.daemon, a.draft_id)).status).toBe("pending");

    live.double.injectReaction({ chatId: OWNER, messageId: v2.review_message_id, userId: OWNER, newEmojis: ["👍"] });
    await eventually(() => toGroup(live).length === 1, 10_000, "the edited text is sent");
    expect(toGroup(live)[0]!.text).toBe("Hi team, see you Friday at 10.");

    const audit = await auditLines(live.daemon.harnessDir);
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

  // Issue 25 point 7: for a wholesale rewrite the "Changes:" line was longer than either text, mostly strikethrough.
  it("an edit that changes most of the words is shown as rewritten, with the new text and no diff", async ({ live }) => {
    await live.start(FAST);
    const before =
      "Hi Anna, just checking whether Thursday still works for the budget review. If not, let me know a better time. Thanks, me.";
    const after = "Anna — the budget review moves to next week; I'll send a new invite once finance confirms the numbers. Thanks";
    const a = await submitPosted(live.daemon, before);
    live.double.injectMessage({ chatId: OWNER, userId: OWNER, text: `✏️ ${after}`, replyToMessageId: a.review_message_id });
    const v2 = await repostedAfter(live.daemon, a.draft_id, a.review_message_id);
    const fresh = post(live, v2.review_message_id)!;
    expect(fresh.text).toContain("✏️ Rewritten (version 2): most of the words changed.\n");
    expect(fresh.text).not.toContain("Changes:");
    expect(fresh.text).toContain(`\n${after}\n`);
    expect((fresh.entities ?? []).filter((e) => e.type === "strikethrough" || e.type === "bold")).toEqual([]);
    // A small edit of the same draft still shows its diff, with a space wherever two runs meet.
    live.double.injectMessage({
      chatId: OWNER,
      userId: OWNER,
      text: `✏️ ${after.replace("next week", "Monday")}`,
      replyToMessageId: v2.review_message_id,
    });
    const v3 = await repostedAfter(live.daemon, a.draft_id, v2.review_message_id);
    expect(post(live, v3.review_message_id)!.text).toContain(
      "✏️ Edited in review: version 3.\nChanges: …review moves to next week; Monday; I'll send a …",
    );
  });

  it("the ✏️ Edit button offers the text to copy with a ForceReply; the reply to it is the edit; a stranger's is not", async ({ live }) => {
    await live.start(FAST);
    const a = await submitPosted(live.daemon, "Lunch at noon? <b>not html</b>");
    live.double.injectCallback({ chatId: OWNER, messageId: a.review_message_id, userId: OWNER, data: `v1:edit:${a.draft_id}` });
    await eventually(() => live.double.answeredCallbacks().length === 1);
    expect(live.double.lastAnsweredCallback?.text).toBe("Reply to the message below with the new text.");
    const prompt = await eventually(() => repliesTo(live, a.review_message_id).find((m) => m.text.includes("Lunch at noon?")));
    expect(prompt.replyMarkup).toMatchObject({ force_reply: true });
    expect(prompt.parseMode).toBeUndefined();
    const text = "Lunch at noon? <b>not html</b>";
    expect(prompt.entities).toEqual([{ type: "pre", offset: prompt.text.length - text.length, length: text.length }]);

    live.double.injectMessage({ chatId: OWNER, userId: STRANGER, text: "Send me your password", replyToMessageId: prompt.messageId });
    live.double.injectMessage({ chatId: OWNER, userId: OWNER, text: "Lunch at 12:30?", replyToMessageId: prompt.messageId });
    const v2 = await repostedAfter(live.daemon, a.draft_id, a.review_message_id);
    expect(v2).toMatchObject({ draft_text: "Lunch at 12:30?", text_version: 2 });
    const refused = (await auditLines(live.daemon.harnessDir)).filter((l) => l.kind === "decision_refused");
    expect(refused.map((l) => [l.user_id, l.reason])).toEqual([[STRANGER, "not_a_reviewer"]]);

    // The prompt was for version 1: it was retired when version 2 was posted (issue 35, point 4), saying it did its work
    // (not "no longer applies", read back as a refusal of the edit just made), and a second reply
    // to it is refused with a pointer to the live post and the way to a new prompt.
    expect(live.double.message(OWNER, prompt.messageId)?.text).toBe("✏️ Edit version 1.\n\n✅ Edited: version 2 is its new post.");
    live.double.injectMessage({ chatId: OWNER, userId: OWNER, text: "Lunch at 13:00?", replyToMessageId: prompt.messageId });
    await eventually(
      () => repliesTo(live, v2.review_message_id).some((m) => m.text.includes("that ✏️ Edit prompt no longer applies")),
      10_000,
      "outdated edit answered",
    );
    expect((await get(live.daemon, a.draft_id)).draft_text).toBe("Lunch at 12:30?");
  });

  it("a button on an outdated post is refused, answered, and pointed to the live post", async ({ live }) => {
    await live.start(FAST);
    const a = await submitPosted(live.daemon, "Version one");
    live.double.injectMessage({ chatId: OWNER, userId: OWNER, text: "✏ Version two", replyToMessageId: a.review_message_id });
    const v2 = await repostedAfter(live.daemon, a.draft_id, a.review_message_id);
    live.double.injectCallback({ chatId: OWNER, messageId: a.review_message_id, userId: OWNER, data: `v1:send:${a.draft_id}` });
    await eventually(() => live.double.answeredCallbacks().length === 1);
    expect(live.double.lastAnsweredCallback?.text).toBe("Not applied: this post is out of date. See the live post (linked in the chat).");
    await eventually(() => repliesTo(live, v2.review_message_id).length === 1, 10_000, "pointer to the live post");
    expect((await get(live.daemon, a.draft_id)).status).toBe("pending");
    expect(toGroup(live)).toHaveLength(0);
  });

  it("refuses an empty edit and an edit over 4096 characters, and says why", async ({ live }) => {
    await live.start(FAST);
    const a = await submitPosted(live.daemon, "Keep me");
    live.double.injectMessage({ chatId: OWNER, userId: OWNER, text: "✏️   ", replyToMessageId: a.review_message_id });
    live.double.injectMessage({ chatId: OWNER, userId: OWNER, text: `✏️ ${"x".repeat(4097)}`, replyToMessageId: a.review_message_id });
    await eventually(() => repliesTo(live, a.review_message_id).length === 2, 10_000, "two answers");
    expect(repliesTo(live, a.review_message_id).map((m) => m.text)).toEqual([
      expect.stringMatching(/^✏️ Not applied: the edited text is empty/),
      expect.stringMatching(/^✏️ Not applied: the edited text is longer than Telegram's 4096 characters/),
    ]);
    expect(await get(live.daemon, a.draft_id)).toMatchObject({ draft_text: "Keep me", text_version: 1, status: "pending" });
  });
});

describe.concurrent("revisions as a chain", () => {
  it("a payload naming `revises` shows the note and the change; the earlier draft gets revised_by; an unknown id is refused", async ({
    live,
  }) => {
    await live.start(FAST);
    const a = await submitPosted(live.daemon, "Dear all, the meeting is on Thursday at 10 in room 4.");
    live.double.injectMessage({
      chatId: OWNER,
      userId: OWNER,
      text: "Shorter please, and say Friday",
      replyToMessageId: a.review_message_id,
    });
    await eventually(async () => (await get(live.daemon, a.draft_id)).status === "revise");
    const b = await submitPosted(live.daemon, "Meeting: Friday 10:00, room 4.", { revises: a.draft_id });
    const text = post(live, b.review_message_id)!.text!;
    // No draft id the owner cannot use: the new post replies to the earlier one, whose quote leads there.
    expect(text).toContain("🔁 New version of the draft quoted above.");
    expect(text).not.toContain(a.draft_id);
    expect(live.double.messages(OWNER).find((m) => m.messageId === b.review_message_id)!.replyToMessageId).toBe(a.review_message_id);
    expect(text).toContain("Your note: “Shorter please, and say Friday”");
    // Most of the words changed (issue 25 point 7): the post says so and shows the new text, no word-by-word diff.
    expect(text).toContain("✏️ Rewritten: most of the words differ from the earlier draft.");
    expect(text).not.toContain("Changes:");
    // The draft in full (the last line: the legend of reactions shows on the day's first post only).
    expect(text).toMatch(/\nMeeting: Friday 10:00, room 4\.(\n|$)/);
    expect((post(live, b.review_message_id)!.entities ?? []).filter((e) => e.type === "strikethrough")).toEqual([]);
    expect(await get(live.daemon, a.draft_id)).toMatchObject({ status: "revise", revised_by: b.draft_id });
    expect(b).toMatchObject({ revises: a.draft_id, previous_text: "Dear all, the meeting is on Thursday at 10 in room 4." });

    const unknown = await live.daemon.request("POST", "/drafts", payload("x", { revises: "d_nope" }));
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toMatch(/^revises: /);
  });

  it("an earlier draft still awaiting a decision becomes revise (superseded) and its post loses its buttons", async ({ live }) => {
    await live.start(FAST);
    const a = await submitPosted(live.daemon, "First try");
    const b = await submitPosted(live.daemon, "Second try", { revises: a.draft_id });
    expect(await get(live.daemon, a.draft_id)).toMatchObject({ status: "revise", reason: "superseded", revised_by: b.draft_id });
    await eventually(() => buttons(live, a.review_message_id) === "[]", 10_000, "superseded post without buttons");
    // It says which version replaced it, and where (issue 35, point 7): a private review chat has no links, so below.
    await eventually(
      () => live.double.message(OWNER, a.review_message_id)?.text?.startsWith("🔁 Replaced by Scribe's new version (below).\n"),
      10_000,
      "the replaced post names the new version",
    );
  });

  it("a sent-back draft's post stops saying its note is queued once another role's new version replaces it", async ({ live }) => {
    await live.start(FAST);
    const a = await submitPosted(live.daemon, "First try");
    live.double.injectMessage({ chatId: OWNER, userId: OWNER, text: "Margot: shorter please", replyToMessageId: a.review_message_id });
    await eventually(async () => (await get(live.daemon, a.draft_id)).status === "revise", 10_000, "sent back");
    const b = await submitPosted(live.daemon, "Shorter.", { revises: a.draft_id, drafted_by_role: "Margot" });
    const shown = await eventually(
      () => {
        const text = live.double.message(OWNER, a.review_message_id)?.text ?? "";
        return text.includes("🔁 Replaced by Margot's new version (below)") ? text : null;
      },
      10_000,
      "the replaced post names the new version",
    );
    expect(shown).toMatch(/^✍️ Revise: Margot: shorter please\n🔁 Replaced by Margot's new version \(below\)\.\n/);
    expect(shown).not.toContain("Queued for");
    expect(b.revises).toBe(a.draft_id);
  });
});

describe.concurrent("undo window", () => {
  const WINDOW = { ...FAST, UNDO_WINDOW: "8s" };

  async function approved(live: LiveDaemonFixture, d: DaemonProcess, text: string): Promise<Rec> {
    const a = await submitPosted(d, text);
    live.double.injectReaction({ chatId: OWNER, messageId: a.review_message_id, userId: OWNER, newEmojis: ["👍"] });
    const rec = await eventually(async () => {
      const r = await get(d, a.draft_id);
      // The window counts from when the chat showed the ↩️ Undo (contract v4): send_after is final then.
      return r.status === "approved" && r.send_after && r.undo_shown_at ? r : null;
    });
    await eventually(() => post(live, a.review_message_id)?.text?.startsWith("👍 Approved · Sending at "), 10_000, "countdown shown");
    return rec;
  }

  it("shows the countdown with ↩️ Undo; removing the 👍 returns the draft to pending, with its buttons, unsent", async ({ live }) => {
    await live.start(WINDOW);
    const a = await approved(live, live.daemon, "Undo me by reaction");
    const at = new Date(Date.parse(a.send_after));
    const hms = [at.getHours(), at.getMinutes(), at.getSeconds()].map((n) => String(n).padStart(2, "0")).join(":");
    expect(post(live, a.review_message_id)!.text).toContain(`👍 Approved · Sending at ${hms} · ↩️ Undo`);
    expect(buttons(live, a.review_message_id)).toContain("↩️ Undo");
    live.double.injectReaction({ chatId: OWNER, messageId: a.review_message_id, userId: OWNER, oldEmojis: ["👍"], newEmojis: [] });
    await eventually(async () => (await get(live.daemon, a.draft_id)).status === "pending");
    expect(await get(live.daemon, a.draft_id)).toMatchObject({ approval: null, send_after: null });
    await eventually(
      () => post(live, a.review_message_id)?.text?.startsWith("↩️ Undone: the draft awaits your decision again."),
      10_000,
      "post awaits again",
    );
    expect(buttons(live, a.review_message_id)).toContain("👍 Send");
    const undone = (await auditLines(live.daemon.harnessDir)).find((l) => l.kind === "transition" && l.event === "undo");
    expect(undone).toMatchObject({ from: "approved", to: "pending", channel: "reaction", user_id: OWNER });
  });

  it("the ↩️ Undo button and a reply `undo` undo too; a stranger's undo does not", async ({ live }) => {
    await live.start(WINDOW);
    const a = await approved(live, live.daemon, "Undo me by button");
    live.double.injectCallback({ chatId: OWNER, messageId: a.review_message_id, userId: STRANGER, data: `v1:undo:${a.draft_id}` });
    live.double.injectCallback({ chatId: OWNER, messageId: a.review_message_id, userId: OWNER, data: `v1:undo:${a.draft_id}` });
    await eventually(() => live.double.answeredCallbacks().length === 2);
    expect(live.double.answeredCallbacks().map((c) => c.text)).toEqual([
      "Only the reviewer can decide on drafts.",
      "Undone: the draft awaits your decision again.",
    ]);
    expect((await get(live.daemon, a.draft_id)).status).toBe("pending");

    const b = await approved(live, live.daemon, "Undo me by reply");
    live.double.injectMessage({ chatId: OWNER, userId: OWNER, text: "undo", replyToMessageId: b.review_message_id });
    await eventually(async () => (await get(live.daemon, b.draft_id)).status === "pending");
    expect((await get(live.daemon, b.draft_id)).revision_note).toBeNull();
    expect(toGroup(live)).toHaveLength(0);
  });

  it("without an undo the send happens once the window is over, never before", async ({ live }) => {
    await live.start({ ...FAST, UNDO_WINDOW: "2s" });
    const a = await submitPosted(live.daemon, "Send me after the window");
    live.double.injectReaction({ chatId: OWNER, messageId: a.review_message_id, userId: OWNER, newEmojis: ["👍"] });
    await eventually(() => toGroup(live).length === 1, 10_000, "sent after the window");
    const rec = await eventually(async () => {
      const r = await get(live.daemon, a.draft_id);
      return r.status === "sent" ? r : null;
    });
    expect(toGroup(live)[0]!.at).toBeGreaterThanOrEqual(Date.parse(rec.send_after));
    // Too late now: the reviewer is told.
    live.double.injectReaction({ chatId: OWNER, messageId: a.review_message_id, userId: OWNER, oldEmojis: ["👍"], newEmojis: [] });
    await eventually(() => repliesTo(live, a.review_message_id).some((m) => m.text === "↩️ Too late to undo: the draft was already sent."));
  });

  it("a kill -9 inside the window loses neither the approval nor the rest of the window", async ({ live }) => {
    await live.start(WINDOW);
    const a = await approved(live, live.daemon, "Survive the crash");
    await live.daemon.stop("SIGKILL");
    expect(toGroup(live)).toHaveLength(0);
    await live.restart(WINDOW);
    const after = await get(live.daemon, a.draft_id);
    if (Date.now() < Date.parse(a.send_after))
      expect(after).toMatchObject({ status: "approved", send_after: a.send_after, approval: { actor: { user_id: OWNER } } });
    await eventually(() => toGroup(live).length === 1, 15_000, "sent after the restart");
    expect(toGroup(live)[0]!.at).toBeGreaterThanOrEqual(Date.parse(a.send_after));
    await eventually(async () => (await get(live.daemon, a.draft_id)).status === "sent");
  });

  it("a kill -9 inside the window, then an undo after the restart, returns the draft to pending", async ({ live }) => {
    await live.start({ ...FAST, UNDO_WINDOW: "20s" });
    const a = await approved(live, live.daemon, "Undo after the crash");
    await live.daemon.stop("SIGKILL");
    await live.restart({ ...FAST, UNDO_WINDOW: "20s" });
    live.double.injectCallback({ chatId: OWNER, messageId: a.review_message_id, userId: OWNER, data: `v1:undo:${a.draft_id}` });
    await eventually(async () => (await get(live.daemon, a.draft_id)).status === "pending");
    expect(toGroup(live)).toHaveLength(0);
  });
});

describe.concurrent("no silent refusals", () => {
  it("a button on an orphaned post (a crash left it unrecorded) is answered with the live post", async ({ live }) => {
    await live.start(FAST);
    const a = await submitPosted(live.daemon, "The live one");
    // Message 9999 is no post the daemon recorded, but its button names the draft.
    live.double.injectCallback({ chatId: OWNER, messageId: 9999, userId: OWNER, data: `v1:send:${a.draft_id}` });
    await eventually(() => repliesTo(live, a.review_message_id).length === 1, 10_000, "pointer to the live post");
    expect(repliesTo(live, a.review_message_id)[0]!.text).toContain("Decide on the live post, version 1");
    expect((await get(live.daemon, a.draft_id)).status).toBe("pending");
    // A reviewer's 👍 on a message that is nobody's post is answered too.
    live.double.injectReaction({ chatId: OWNER, messageId: 8888, userId: OWNER, newEmojis: ["👍"] });
    await eventually(() =>
      live.double.messages(OWNER).some((m) => m.text.startsWith("⚠️ Not applied: that message is not a live review post")),
    );
  });

  it("a status edit a kill -9 cut off is redone at start: no final draft keeps live buttons", async ({ live }) => {
    await live.start(FAST);
    const a = await submitPosted(live.daemon, "Show my outcome");
    live.double.delayNext("editMessageText", 3_000);
    live.double.injectReaction({ chatId: OWNER, messageId: a.review_message_id, userId: OWNER, newEmojis: ["👍"] });
    await eventually(async () => (await get(live.daemon, a.draft_id)).status === "sent");
    await live.daemon.stop("SIGKILL");
    const editsBefore = live.double.calls("editMessageText").length;
    await live.restart(FAST);
    await eventually(() => live.double.calls("editMessageText").length > editsBefore, 10_000, "the edit is redone");
    await eventually(() => post(live, a.review_message_id)?.text?.startsWith("✅ Sent at"), 10_000);
    expect(buttons(live, a.review_message_id)).toBe("[]");
    expect(toGroup(live)).toHaveLength(1);
    // The edit is audited once Telegram has it (just after the double shows it).
    await eventually(async () =>
      (await auditLines(live.daemon.harnessDir)).some((l) => l.kind === "status_shown" && l.draft_id === a.draft_id),
    );
  });
});
