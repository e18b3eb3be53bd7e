import { describe, expect } from "vitest";
import type { SentMessage } from "../telegram-double/index.js";
import { eventually, type DaemonProcess } from "../support/daemon-process.js";
import { auditLines, draftRecord, OWNER, payload, submitPending, liveTest, type LiveDaemonFixture } from "../support/live-fixture.js";

/**
 * The owner's habit: a 👎 on the post, then a reply with his note ("shorter,
 * and mention the projector"). Within the revise's ↩️ Undo window the note
 * becomes the revise's: the roles get it as they get a note given with the
 * 👎 (an event in the feed with `revision_note` and `notify_roles`), and the
 * post's edit shows it; no new message (contract v4, "One message per
 * draft"). Outside the window, or once a note is there, it is refused and the
 * answer says plainly that the note was not passed on. A redelivered update
 * adds nothing twice. Through the real daemon and the Bot API double.
 */

// Each test has a Bot API double and daemons of its own, and the tests run at once: most of each is waiting on the real clock.
const it = liveTest();

type Rec = Record<string, any>;

const postText = (live: LiveDaemonFixture, d: Rec) => live.double.message(OWNER, d.review_message_id)?.text ?? "";
const repliesTo = (live: LiveDaemonFixture, id: number) => live.double.messages(OWNER).filter((m) => m.replyToMessageId === id);
const react = (live: LiveDaemonFixture, d: Rec, emoji: string) =>
  live.double.injectReaction({ chatId: OWNER, messageId: d.review_message_id, userId: OWNER, newEmojis: [emoji] });
const reply = (live: LiveDaemonFixture, d: Rec, text: string) =>
  live.double.injectMessage({ chatId: OWNER, userId: OWNER, text, replyToMessageId: d.review_message_id });

/** The draft's record once `ready` holds for it. */
const recordWhen = (daemon: DaemonProcess, d: Rec, ready: (r: Rec) => boolean, what: string) =>
  eventually(
    async () => {
      const rec = await draftRecord(daemon, d.draft_id);
      return ready(rec) ? rec : null;
    },
    15_000,
    what,
  );

/** The feed's events of one draft. */
async function eventsOf(daemon: DaemonProcess, draftId: string): Promise<Rec[]> {
  const page = await daemon.request("GET", "/events?after=0&limit=1000");
  return (page.body.events as Rec[]).filter((e) => e.draft_id === draftId);
}

/** The bot's answer to the post that starts with `start`. */
const answerTo = (live: LiveDaemonFixture, d: Rec, start: string, what: string): Promise<SentMessage> =>
  eventually(() => repliesTo(live, d.review_message_id).find((m) => m.text.startsWith(start)), 15_000, what);

const NOT_PASSED_ON = "⚠️ Your note was NOT passed on to Scribe";

describe.concurrent("a note replied after the 👎", () => {
  it("within the undo window: reaches the event feed and the post shows it, with no new message; a second note is answered, not passed on", async ({
    live,
  }) => {
    const daemon = await live.start({ UNDO_WINDOW: "60s" });
    const d = await submitPending(daemon, payload("Hi all, the offsite is on Friday.", { drafted_by_role: "Scribe" }));
    const before = live.double.messages(OWNER).length;
    react(live, d, "👎");
    await recordWhen(daemon, d, (r) => r.status === "revise", "the 👎 sends it back");
    await eventually(() => postText(live, d).startsWith("✍️ Sent back for revision.\n↩️ Undo until"), 15_000, "the post shows the 👎");

    reply(live, d, "Margot: shorter, and mention the projector");
    const noted = await recordWhen(daemon, d, (r) => r.revision_note !== null, "the note on the record");
    expect(noted).toMatchObject({ status: "revise", revision_note: "Margot: shorter, and mention the projector" });
    // The roles get it as a note given with the 👎: a revise event carrying the note, for the drafting role and the one it names.
    const events = await eventsOf(daemon, d.draft_id);
    expect(events.at(-1)).toMatchObject({
      kind: "transition",
      from: "revise",
      to: "revise",
      version: noted.version,
      revision_note: "Margot: shorter, and mention the projector",
      notify_roles: ["Scribe", "Margot"],
      drafted_by_role: "Scribe",
    });
    await eventually(
      () =>
        /^✍️ Revise: Margot: shorter, and mention the projector\n↩️ Undo until .*\n✉️ Queued for Scribe and Margot\.\n\n/.test(
          postText(live, d),
        ),
      15_000,
      "the post shows the note and whom it is queued for",
    );

    // A second note: the first stands; the answer says this one was not passed on, and what to do.
    reply(live, d, "and warmer");
    const answer = await answerTo(live, d, NOT_PASSED_ON, "the answer to a second note");
    expect(answer.text).toContain("sent back with a note already");
    expect(answer.text).toContain("↩️ Undo");
    expect((await draftRecord(daemon, d.draft_id)).revision_note).toBe("Margot: shorter, and mention the projector");
    const refused = (await auditLines(daemon.harnessDir)).filter((l) => l.kind === "decision_refused");
    expect(refused.map((l) => [l.reason, l.channel, l.draft_id])).toEqual([["note_already_given", "reply", d.draft_id]]);
    expect(await eventsOf(daemon, d.draft_id)).toHaveLength(events.length);

    // The note added no message: a later draft's post (which waits behind any answer of the decisions) is the only one besides that answer.
    const later = await submitPending(daemon, payload("Hi all, the agenda follows.", { originating_intent_id: "later" }));
    expect(
      live.double
        .messages(OWNER)
        .slice(before)
        .map((m) => m.messageId),
    ).toEqual([answer.messageId, later.review_message_id]);
  });

  it("after the undo window: answered that the note was not passed on, and nothing changes", async ({ live }) => {
    const daemon = await live.start({ UNDO_WINDOW: "1s" });
    const d = await submitPending(daemon, payload("Hi all, the offsite moves.", { drafted_by_role: "Scribe" }));
    react(live, d, "👎");
    const revised = await recordWhen(daemon, d, (r) => r.status === "revise" && r.revise_undo !== null, "the 👎 sends it back");
    await eventually(() => postText(live, d).startsWith("✍️ Sent back for revision.\n↩️ Undo until "), 15_000, "the post shows the revise");
    // Telegram dates a message to the second: wait for a second dated wholly after the window, then write.
    const until = Date.parse(revised.revise_undo.until);
    await eventually(() => Date.now() >= Math.ceil(until / 1000) * 1000, 5_000, "a second after the window");
    const eventCount = (await eventsOf(daemon, d.draft_id)).length;

    reply(live, d, "shorter, and mention the projector");
    const answer = await answerTo(live, d, NOT_PASSED_ON, "the answer to the late note");
    expect(answer.text).toContain("its ↩️ Undo window is over");
    expect(answer.text).toContain("next version");
    expect(await draftRecord(daemon, d.draft_id)).toMatchObject({ status: "revise", revision_note: null, version: revised.version });
    expect(await eventsOf(daemon, d.draft_id)).toHaveLength(eventCount);
    const refused = (await auditLines(daemon.harnessDir)).filter((l) => l.kind === "decision_refused");
    expect(refused.map((l) => [l.reason, l.channel, l.decision])).toEqual([["note_too_late", "reply", "revise"]]);
    // The post still dates its ↩️ Undo: no edit takes it off when the window ends (issue 35: an edit the owner did not need).
    expect(postText(live, d)).toMatch(/^✍️ Sent back for revision\.\n↩️ Undo until /);
  });

  it("delivered again after a crash (same update id): the note is added once, and not refused", async ({ live }) => {
    await live.start({ UNDO_WINDOW: "60s" });
    const d = await submitPending(live.daemon, payload("Hi all, lunch is at noon.", { drafted_by_role: "Scribe" }));
    react(live, d, "👎");
    await recordWhen(live.daemon, d, (r) => r.status === "revise", "the 👎 sends it back");
    await eventually(() => live.double.pendingUpdates().length === 0, 10_000, "the 👎 is confirmed");
    // getUpdates fails from now on, so the daemon can never confirm the note's update.
    live.double.failNext("getUpdates", { error_code: 502, description: "Bad Gateway", times: 10_000 });
    const note = reply(live, d, "shorter");
    await recordWhen(live.daemon, d, (r) => r.revision_note === "shorter", "the note on the record");
    await eventually(() => live.double.pendingUpdates().some((u) => u.update_id === note.update.update_id), 5_000, "still unconfirmed");

    await live.daemon.stop("SIGKILL");
    live.double.clearFaults();
    const daemon = await live.restart({ UNDO_WINDOW: "60s" });
    await eventually(() => live.double.pendingUpdates().length === 0, 10_000, "the redelivered update is confirmed");
    await eventually(() => postText(live, d).startsWith("✍️ Revise: shorter\n"), 15_000, "the post shows the note");
    // A later reply on the same post is handled after the redelivered one (one post, one queue): once it is answered, both were.
    const later = reply(live, d, "and warmer");
    await answerTo(live, d, NOT_PASSED_ON, "the answer to the later note");

    const lines = await auditLines(daemon.harnessDir);
    const noteLines = lines.filter((l) => l.kind === "transition" && l.draft_id === d.draft_id && l.from === "revise" && l.to === "revise");
    expect(noteLines.map((l) => [l.note, l.update_id])).toEqual([["shorter", note.update.update_id]]);
    const refused = lines.filter((l) => l.kind === "decision_refused");
    expect(refused.map((l) => [l.reason, l.update_id])).toEqual([["note_already_given", later.update.update_id]]);
    const notes = (await eventsOf(daemon, d.draft_id)).filter((e) => e.from === "revise" && e.to === "revise");
    expect(notes).toHaveLength(1);
    expect(repliesTo(live, d.review_message_id)).toHaveLength(1);
  });
});
