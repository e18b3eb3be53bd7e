import { describe, expect, it } from "vitest";
import { eventually, type DaemonProcess } from "../support/daemon-process.js";
import { draftRecord, OWNER, payload, submitPending, useLiveDaemon } from "../support/live-fixture.js";

/**
 * Issue 27, point 2 (contract v4, "One message per draft"): a decision that
 * needs no question (👍, 👎 with or without a note, 😴, an undo; by reaction,
 * reply or button) is answered by editing the draft's post, and adds no new
 * message to the review chat. Through the real daemon and the Bot API double.
 * That nothing was added is seen with a later draft's post: review posts
 * wait behind every answer and notice in the review chat's lane, so a message
 * the decisions caused would come before it.
 */

const live = useLiveDaemon();

type Rec = Record<string, any>;

const postText = (d: Rec) => live.double.message(OWNER, d.review_message_id)?.text ?? "";
const buttons = (d: Rec) => (live.double.message(OWNER, d.review_message_id)?.reply_markup?.inline_keyboard ?? []).flat() as Rec[];

/** The draft's record once it is `status`. */
const once = (daemon: DaemonProcess, d: Rec, status: string) =>
  eventually(
    async () => {
      const rec = await draftRecord(daemon, d.draft_id);
      return rec.status === status ? rec : null;
    },
    15_000,
    `${d.draft_id} ${status}`,
  );

/** The post, once its text `matches`. */
const postShows = (d: Rec, matches: (text: string) => boolean, what: string) =>
  eventually(() => matches(postText(d)), 15_000, `${what}: the post shows it (it shows "${postText(d).split("\n")[0]}")`);

/** Taps the post's button labelled `label`, once it shows. */
async function tap(d: Rec, label: string): Promise<void> {
  const button = await eventually(() => buttons(d).find((b) => b.text.startsWith(label)), 15_000, `${label} on the post`);
  live.double.injectCallback({ chatId: OWNER, messageId: d.review_message_id, userId: OWNER, data: button.callback_data });
}

const react = (d: Rec, emoji: string, old: string[] = []) =>
  live.double.injectReaction({
    chatId: OWNER,
    messageId: d.review_message_id,
    userId: OWNER,
    oldEmojis: old,
    newEmojis: emoji ? [emoji] : [],
  });
const reply = (d: Rec, text: string) =>
  live.double.injectMessage({ chatId: OWNER, userId: OWNER, text, replyToMessageId: d.review_message_id });

describe("plain decisions", () => {
  it("👍, 👎, a note, 😴 and undos, by reaction, reply and button, only edit their posts: no new message in the review chat", async () => {
    const daemon = await live.start({ UNDO_WINDOW: "4s" });
    const names = ["thumbs", "down", "note", "sleep", "undo-reaction", "undo-reply", "reply-ok", "buttons"];
    const drafts: Rec[] = [];
    for (const [i, name] of names.entries()) {
      drafts.push(await submitPending(daemon, payload(`Draft ${name}: the offsite is on.`, { originating_intent_id: `one-${i}` })));
    }
    const [thumbs, down, note, sleep, undoReaction, undoReply, replyOk, byButtons] = drafts as [Rec, Rec, Rec, Rec, Rec, Rec, Rec, Rec];
    // Two drafts too long to share a message with their header: a split post, its status goes on the message with the buttons.
    const long = (name: string) => `Long draft ${name}: ${"the offsite agenda follows. ".repeat(142)}`.trim();
    const longSent = await submitPending(daemon, payload(long("sent"), { originating_intent_id: "one-long-1" }));
    const longBack = await submitPending(daemon, payload(long("back"), { originating_intent_id: "one-long-2" }));
    const headerOf = (d: Rec) => live.double.messages(OWNER).find((m) => m.messageId === d.review_message_id)!.replyToMessageId!;
    const headerText = (d: Rec) => live.double.message(OWNER, headerOf(d))?.text ?? "";
    expect(headerText(longSent)).toMatch(/^✏️ DRAFT [\s\S]*is in the 2 replies to this message/);
    const headersBefore = [headerText(longSent), headerText(longBack)];
    // The draft's last part, and the legend under it if today's legend shows there (never on the header).
    const lastPart = postText(longSent).split("\n👍 send")[0]!;
    expect(long("sent").endsWith(lastPart)).toBe(true);
    const before = live.double.messages(OWNER).length;
    const edits = live.double.history(OWNER).length;

    react(thumbs, "👍");
    react(down, "👎");
    reply(note, "Margot: shorter please");
    react(sleep, "😴");
    reply(replyOk, "👍");
    // 👍 then taken away within UNDO_WINDOW.
    react(undoReaction, "👍");
    await eventually(() => buttons(undoReaction).some((b) => b.text === "↩️ Undo"), 15_000, "↩️ Undo after the 👍");
    react(undoReaction, "", ["👍"]);
    // 👎 then a reply `undo`.
    react(undoReply, "👎");
    await eventually(() => buttons(undoReply).some((b) => b.text === "↩️ Undo"), 15_000, "↩️ Undo after the 👎");
    reply(undoReply, "undo");
    // ❌ Revise, ↩️ Undo, then ⏳ (+24h), all buttons.
    await tap(byButtons, "❌ Revise");
    await once(daemon, byButtons, "revise");
    await tap(byButtons, "↩️ Undo");
    await once(daemon, byButtons, "pending");
    await tap(byButtons, "⏳");
    react(longSent, "👍");
    react(longBack, "👎");

    await once(daemon, thumbs, "sent");
    await once(daemon, replyOk, "sent");
    await once(daemon, down, "revise");
    const noted = await once(daemon, note, "revise");
    expect(noted.revision_note).toBe("Margot: shorter please");
    await once(daemon, sleep, "deferred");
    await once(daemon, undoReaction, "pending");
    await once(daemon, undoReply, "pending");
    await once(daemon, byButtons, "deferred");

    // Each answer is its post's edit.
    await postShows(thumbs, (t) => t.startsWith("✅ Sent"), "👍 sent");
    await postShows(replyOk, (t) => t.startsWith("✅ Sent"), "a reply 👍 sent");
    // A revise's ↩️ Undo is dated on its post ("until …") and stays so once the window is over: no edit only for that.
    await postShows(down, (t) => /^✍️ Sent back for revision\.\n↩️ Undo until \S+\n\n/.test(t), "👎 revise");
    // The note, and whom it went to (no consumer of the feed here: queued, never "told").
    await postShows(
      note,
      (t) => /^✍️ Revise: Margot: shorter please\n↩️ Undo until \S+\n✉️ Queued for Scribe and Margot\.\n\n/.test(t),
      "the note",
    );
    await postShows(sleep, (t) => t.startsWith("😴 Deferred until"), "😴 deferred");
    await postShows(undoReaction, (t) => t.startsWith("↩️ Undone"), "the 👍 undone");
    await postShows(undoReply, (t) => t.startsWith("↩️ Undone"), "the 👎 undone by a reply");
    await postShows(byButtons, (t) => /^(↩️ Undone\. )?😴 Deferred until/.test(t), "⏳ after ↩️ Undo");
    await once(daemon, longSent, "sent");
    await once(daemon, longBack, "revise");
    await postShows(longSent, (t) => t === `${t.split("\n\n")[0]}\n\n${lastPart}` && t.startsWith("✅ Sent"), "the long draft sent");
    await postShows(longBack, (t) => /^✍️ Sent back for revision\.\n↩️ Undo until \S+\n\n/.test(t), "the long draft sent back");
    // The headers were never edited: they take no decision and show no status (issue 35, point 3).
    expect([headerText(longSent), headerText(longBack)]).toEqual(headersBefore);
    expect(headerText(longSent)).not.toContain("👍 send · 👎 revise");
    expect(live.double.history(OWNER).length).toBeGreaterThan(edits + drafts.length);

    // A later draft's post comes after anything the decisions put in the chat: it is the only new message.
    const later = await submitPending(daemon, payload("Draft later: the agenda follows.", { originating_intent_id: "one-later" }));
    expect(
      live.double
        .messages(OWNER)
        .slice(before)
        .map((m) => m.messageId),
    ).toEqual([later.review_message_id]);
  });
});
