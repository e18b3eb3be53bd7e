import { describe, expect } from "vitest";
import { startTelegramDouble, type ShownVersion } from "../telegram-double/index.js";
import { eventually, type DaemonProcess } from "../support/daemon-process.js";
import { draftRecord, GROUP, OWNER, payload, submitPending, liveTest, type LiveDaemonFixture } from "../support/live-fixture.js";

/**
 * Issue 25, point 1 (contract v4, "The undo window is what the chat shows"):
 * the real daemon against the Bot API double, which enforces Telegram's pace
 * (edits count like messages) and records when it accepted each message and
 * edit. The review chat is the owner's private chat at four times its real
 * pace (TELEGRAM_RATE_SCALE 4, the double's limits scaled alike: the queue a
 * burst builds is the same in calls, a quarter in seconds), UNDO_WINDOW 5 s.
 */

const UNDO_MS = 5_000;
const PACED = { UNDO_WINDOW: "5s", TELEGRAM_RATE_SCALE: "4" };

// Each test has a Bot API double and daemons of its own, and the tests run at once: most of each is waiting on the real clock.
const it = liveTest({
  double: () =>
    startTelegramDouble({
      chats: [
        { id: OWNER, type: "private", firstName: "Owner" },
        { id: GROUP, type: "supergroup", title: "Destination" },
      ],
      users: [{ id: OWNER, firstName: "Owner", username: "owner" }],
      rateLimits: { timeScale: 0.25 },
    }),
});

type Rec = Record<string, any>;

const hasUndo = (v: ShownVersion) => JSON.stringify(v.replyMarkup ?? null).includes("↩️ Undo");
/** What the draft's review post showed, version by version. */
const postHistory = (live: LiveDaemonFixture, d: Rec) => live.double.history(OWNER, d.review_message_id);
/** When the chat first showed the draft's ↩️ Undo (its post's first version with it). */
const undoShownAt = (live: LiveDaemonFixture, d: Rec) => postHistory(live, d).find(hasUndo)?.at;
/** When the destination accepted the draft's text. */
const sentAt = (live: LiveDaemonFixture, text: string) => live.double.messages(GROUP).find((m) => m.text === text)?.at;
/** The draft's record once it is `status`. */
const once = (d: DaemonProcess, id: string, status: string, timeoutMs = 30_000) =>
  eventually(
    async () => {
      const rec = await draftRecord(d, id);
      return rec.status === status ? rec : null;
    },
    timeoutMs,
    `${id} ${status}`,
  );

/**
 * The longest time (ms) the draft's post (or any message of the bot's that
 * showed its ↩️ Undo) still showed it after `sent`: 0 when none did.
 */
function undoAfterSend(live: LiveDaemonFixture, d: Rec, sent: number): number {
  const versions = postHistory(live, d);
  const shownAtSend = versions.filter((v) => v.at <= sent).at(-1);
  if (shownAtSend === undefined || !hasUndo(shownAtSend)) {
    // Never a version with Undo after the send either.
    return versions.some((v) => v.at > sent && hasUndo(v)) ? Number.POSITIVE_INFINITY : 0;
  }
  const gone = versions.find((v) => v.at > sent && !hasUndo(v));
  return gone === undefined ? Number.POSITIVE_INFINITY : gone.at - sent;
}

describe.concurrent("a burst of 8 approvals in a private review chat at its pace of one message a second (four times faster)", () => {
  it("every send is a full window after its Undo was shown; no Undo shows 2 s after a send; a tap on a shown Undo undoes, a late one is answered", async ({
    live,
  }) => {
    await live.start(PACED);
    const texts = Array.from({ length: 8 }, (_, i) => `Burst approval ${i}`);
    const drafts: Rec[] = [];
    for (const [i, text] of texts.entries()) {
      drafts.push(await submitPending(live.daemon, payload(text, { originating_intent_id: `burst-${i}` })));
    }
    // Eight 👍 within 2 s.
    for (const d of drafts) {
      live.double.injectReaction({ chatId: OWNER, messageId: d.review_message_id, userId: OWNER, newEmojis: ["👍"] });
      await new Promise((r) => setTimeout(r, 250));
    }
    // The owner taps ↩️ Undo on the third as soon as it shows.
    const undone = drafts[2]!;
    await eventually(() => undoShownAt(live, undone), 20_000, "the third's Undo shown");
    live.double.injectCallback({ chatId: OWNER, messageId: undone.review_message_id, userId: OWNER, data: `v1:undo:${undone.draft_id}` });
    // ...and on the last one just after the send time its post showed: too late.
    const late = drafts[7]!;
    const lateRec = await eventually(async () => {
      const rec = await draftRecord(live.daemon, late.draft_id);
      return rec.undo_shown_at ? rec : null;
    }, 20_000);
    await eventually(() => Date.now() > Date.parse(lateRec.send_after) + 100, 20_000, "past the last one's send time");
    const lateTap = live.double.injectCallback({
      chatId: OWNER,
      messageId: late.review_message_id,
      userId: OWNER,
      data: `v1:undo:${late.draft_id}`,
    });

    const sent = drafts.filter((d) => d !== undone);
    for (const d of sent) await once(live.daemon, d.draft_id, "sent");
    expect((await draftRecord(live.daemon, undone.draft_id)).status).toBe("pending");
    expect(sentAt(live, texts[2]!)).toBeUndefined();

    const figures = sent.map((d, i) => {
      const shown = undoShownAt(live, d)!;
      const at = sentAt(live, d.draft_text)!;
      return { i, shown, sent: at, window: at - shown, undoAfterSend: undoAfterSend(live, d, at) };
    });
    for (const f of figures) {
      expect(f.window, JSON.stringify(f)).toBeGreaterThanOrEqual(UNDO_MS);
      expect(f.undoAfterSend, JSON.stringify(f)).toBeLessThanOrEqual(2_000);
    }
    // The records agree: the window counts from the Undo shown, not from the tap.
    for (const d of sent) {
      const rec = await draftRecord(live.daemon, d.draft_id);
      expect(Date.parse(rec.sent_at) - Date.parse(rec.undo_shown_at)).toBeGreaterThanOrEqual(UNDO_MS);
    }
    // The late tap is answered, and undoes nothing.
    await eventually(() => live.double.answeredCallbacks().find((c) => c.callbackQueryId === lateTap.update.callback_query!.id), 10_000);
    const lateAnswer = live.double.answeredCallbacks().find((c) => c.callbackQueryId === lateTap.update.callback_query!.id)!;
    expect(lateAnswer.text).toMatch(/^Not applied: the draft is (sent|approved|sending)\.$/);
    await eventually(() => live.double.messages(OWNER).some((m) => m.text.startsWith("↩️ Too late to undo")), 10_000, "told why");
    expect((await draftRecord(live.daemon, late.draft_id)).status).toBe("sent");
    // The pace held: Telegram never had to say 429, edits included.
    expect(live.double.tooManyRequestsCount).toBe(0);
  }, 120_000);
});

describe.concurrent("a crash between the 👍 and the edit that shows its Undo", () => {
  it("at restart the Undo is shown, and the full window counts from then", async ({ live }) => {
    await live.start(PACED);
    const a = await submitPending(live.daemon, payload("Shown before the crash", { originating_intent_id: "crash-a" }));
    const b = await submitPending(live.daemon, payload("Shown after the crash", { originating_intent_id: "crash-b" }));
    // b's edit waits a second behind a's at the chat's pace, and Telegram makes it wait 30 s more (a 429 planned the
    // moment a's Undo is accepted, so however slow this machine): the process dies in between.
    const off = live.double.onCall((c) => {
      if (c.method !== "editMessageText" || c.params.message_id !== a.review_message_id || !String(c.params.text).includes("↩️ Undo"))
        return;
      off();
      live.double.failNext("editMessageText", { error_code: 429, description: "Too Many Requests: retry after 30", retry_after: 30 });
    });
    live.double.injectReaction({ chatId: OWNER, messageId: a.review_message_id, userId: OWNER, newEmojis: ["👍"] });
    live.double.injectReaction({ chatId: OWNER, messageId: b.review_message_id, userId: OWNER, newEmojis: ["👍"] });
    await once(live.daemon, b.draft_id, "approved", 10_000);
    await eventually(() => undoShownAt(live, a), 10_000, "a's Undo shown");
    await live.daemon.stop("SIGKILL");
    expect(postHistory(live, b).some(hasUndo)).toBe(false);
    // The 429 is for the daemon that died (it may have died before making that edit).
    live.double.clearFaults();
    const tapped = Date.parse((await draftRecordOffline(live, b)) ?? "");
    await new Promise((r) => setTimeout(r, UNDO_MS));

    const restartedAt = Date.now();
    await live.restart(PACED);
    await once(live.daemon, b.draft_id, "sent");
    await once(live.daemon, a.draft_id, "sent");
    const bShown = undoShownAt(live, b)!;
    expect(bShown).toBeGreaterThan(restartedAt);
    expect(sentAt(live, b.draft_text)! - bShown).toBeGreaterThanOrEqual(UNDO_MS);
    expect(sentAt(live, a.draft_text)! - undoShownAt(live, a)!).toBeGreaterThanOrEqual(UNDO_MS);
    const rec = await draftRecord(live.daemon, b.draft_id);
    expect(Date.parse(rec.sent_at) - tapped).toBeGreaterThan(UNDO_MS);
    // "sent" in the record comes before the edit that shows it: wait for the post to stop offering Undo, then measure when it did.
    for (const d of [a, b]) await eventually(() => !hasUndo(postHistory(live, d).at(-1)!), 10_000, "the Undo gone from the post");
    for (const d of [a, b]) expect(undoAfterSend(live, d, sentAt(live, d.draft_text)!)).toBeLessThanOrEqual(2_000);
  }, 90_000);
});

/** The draft's approval time, read from the store the dead daemon left (the last line of that draft). */
async function draftRecordOffline(live: LiveDaemonFixture, d: Rec): Promise<string | null> {
  const { readFile } = await import("node:fs/promises");
  const { join } = await import("node:path");
  const lines = (await readFile(join(live.daemon.harnessDir, "telegram_drafts.jsonl"), "utf8")).split("\n").filter(Boolean);
  const last = lines
    .map((l) => JSON.parse(l))
    .filter((r) => r.draft_id === d.draft_id)
    .at(-1);
  expect(last).toMatchObject({ status: "approved", undo_shown_at: null });
  return last?.approval?.at ?? null;
}
