import { describe, expect } from "vitest";
import { eventually, type DaemonProcess } from "../support/daemon-process.js";
import { auditLines, OWNER, payload, draftRecord, submitPending, liveTest, type LiveDaemonFixture } from "../support/live-fixture.js";

/**
 * Issue 20, point 7 (contract v3, "Reminders"): a draft still awaiting a
 * decision when REMIND_BEFORE of its time is left gets one reminder, as a
 * reply to its post (so it notifies); once, across restarts; one a restart
 * missed goes out at start; REMIND_BEFORE=0 sends none. Through the real
 * daemon and the Bot API double.
 */

// Each test has a Bot API double and daemons of its own, and the tests run at once: most of each is waiting on the real clock.
const it = liveTest();

const get = draftRecord;
const submitPosted = (d: DaemonProcess, text: string) => submitPending(d, payload(text));

const reminders = (live: LiveDaemonFixture, postId: number) =>
  live.double.messages(OWNER).filter((m) => m.replyToMessageId === postId && m.text.startsWith("⏰"));

/** Waits until the draft expired (a positive signal that comes after any reminder it could get). */
function expired(d: DaemonProcess, id: string): Promise<unknown> {
  return eventually(async () => (await get(d, id)).status === "expired", 15_000, "the draft expired");
}

describe.concurrent("REMIND_BEFORE", () => {
  it("reminds once, as a reply to the post, when that much time is left; a restart does not repeat it", async ({ live }) => {
    await live.start({ DRAFT_TTL: "6s", REMIND_BEFORE: "4s" });
    const d = await submitPosted(live.daemon, "Hi team, a draft nobody looks at.");
    const [reminder] = await eventually(
      () => (reminders(live, d.review_message_id).length > 0 ? reminders(live, d.review_message_id) : null),
      10_000,
      "the reminder",
    );
    expect(reminder!.text).toMatch(
      /^⏰ Reminder: this draft \(Scribe, for Destination\) expires \w{3} \d+ \w{3} \d\d:\d\d and is not sent unless you decide, here or on its post\./,
    );
    // Sent at about expires_at - REMIND_BEFORE, not at the post.
    expect(reminder!.at).toBeGreaterThanOrEqual(Date.parse(d.expires_at) - 4_000 - 50);
    // Its intent is audited before the message, the notice once it is out: wait for that line rather than read at once.
    const audited = await eventually(
      async () => {
        const lines = (await auditLines(live.daemon.harnessDir)).filter((l) => l.kind === "notice" && l.reminder_for !== undefined);
        return lines.some((l) => l.intent === undefined) ? lines : null;
      },
      10_000,
      "the reminder's audit line",
    );
    expect(audited).toMatchObject([
      { draft_id: d.draft_id, reminder_for: d.expires_at, intent: true, text: "" },
      { draft_id: d.draft_id, reminder_for: d.expires_at, text: reminder!.text },
    ]);
    expect(audited[1]).not.toHaveProperty("intent");
    await live.restart({ DRAFT_TTL: "6s", REMIND_BEFORE: "4s" });
    await expired(live.daemon, d.draft_id);
    expect(reminders(live, d.review_message_id)).toHaveLength(1);
  });

  it("a reminder that fell due while the daemon was down goes out at start", async ({ live }) => {
    await live.start({ DRAFT_TTL: "10s", REMIND_BEFORE: "7s" });
    const d = await submitPosted(live.daemon, "Hi team, reminded after a restart.");
    await live.daemon.stop("SIGKILL");
    const due = Date.parse(d.expires_at) - 7_000;
    await eventually(() => Date.now() > due + 200, 10_000, "the reminder's time passed while down");
    expect(reminders(live, d.review_message_id)).toHaveLength(0);
    await live.restart({ DRAFT_TTL: "10s", REMIND_BEFORE: "7s" });
    await eventually(() => reminders(live, d.review_message_id).length === 1, 10_000, "the reminder at start");
    await expired(live.daemon, d.draft_id);
    expect(reminders(live, d.review_message_id)).toHaveLength(1);
  });

  it("a reminder Telegram took while the daemon never heard back (the crash window) is not posted again after a restart", async ({
    live,
  }) => {
    await live.start({ DRAFT_TTL: "8s", REMIND_BEFORE: "6s" });
    const d = await submitPosted(live.daemon, "Hi team, reminded once only.");
    // Telegram accepts the reminder, then the answer is lost: as a crash right after the send.
    live.double.dropResponseAfterAccept("sendMessage");
    await eventually(() => reminders(live, d.review_message_id).length === 1, 10_000, "the reminder reached Telegram");
    const intent = await eventually(async () =>
      (await auditLines(live.daemon.harnessDir)).find((l) => l.kind === "notice" && l.intent === true && l.draft_id === d.draft_id),
    );
    expect(intent).toMatchObject({ reminder_for: d.expires_at });
    await live.restart({ DRAFT_TTL: "8s", REMIND_BEFORE: "6s" });
    await expired(live.daemon, d.draft_id);
    expect(reminders(live, d.review_message_id)).toHaveLength(1);
  });

  it("REMIND_BEFORE=0 sends none, and a draft decided before sends none", async ({ live }) => {
    await live.start({ DRAFT_TTL: "3s", REMIND_BEFORE: "0" });
    const a = await submitPosted(live.daemon, "Hi team, no reminders here.");
    await expired(live.daemon, a.draft_id);
    expect(reminders(live, a.review_message_id)).toHaveLength(0);
    await live.restart({ DRAFT_TTL: "4s", REMIND_BEFORE: "3s" });
    const b = await submitPosted(live.daemon, "Hi team, decided in time.");
    live.double.injectMessage({ chatId: OWNER, userId: OWNER, text: "not now", replyToMessageId: b.review_message_id });
    await eventually(async () => (await get(live.daemon, b.draft_id)).status === "revise", 10_000, "revise");
    const c = await submitPosted(live.daemon, "Hi team, a later draft that expires.");
    await expired(live.daemon, c.draft_id);
    expect(reminders(live, c.review_message_id)).toHaveLength(1);
    expect(reminders(live, b.review_message_id)).toHaveLength(0);
  });
});
