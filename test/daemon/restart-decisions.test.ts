import { rm } from "node:fs/promises";
import { describe, expect } from "vitest";
import { harnessPaths } from "../../src/app/paths.js";
import { runBin } from "../support/cli-process.js";
import { eventually, type DaemonProcess } from "../support/daemon-process.js";
import { auditLines, GROUP, liveTest, OWNER, payload, type LiveDaemonFixture } from "../support/live-fixture.js";

/**
 * Issue 19 item 3, "Decisions across restarts", against the real daemon
 * (kill -9, restart) and the Bot API double, which keeps the updates made
 * while the daemon is down until it asks for them again:
 * - a halt that began after an approval voids it, also when it was lifted
 *   before a restart and the send falls due after it;
 * - updates that waited while the daemon was down are applied, in order,
 *   before any send that falls due at start; an undo counts if Telegram dated
 *   it inside the window;
 * - an approval given before expires_at is a decision: the draft is sent
 *   when its undo window ends, not dropped as "expired without a decision".
 */

// Each test has a double and daemons of its own, and the tests run at once: most of each is an undo window on the real clock.
const it = liveTest();

type Rec = Record<string, any>;

const get = async (d: DaemonProcess, id: string): Promise<Rec> => (await d.request("GET", `/drafts/${id}`)).body;
const toGroup = (live: LiveDaemonFixture) => live.double.messages(GROUP);
const reviewChat = (live: LiveDaemonFixture) => live.double.messages(OWNER).map((m) => m.text);

async function submitPosted(d: DaemonProcess, text: string): Promise<Rec> {
  const res = await d.request("POST", "/drafts", payload(text));
  expect(res.status).toBe(201);
  return eventually(async () => {
    const rec = await get(d, res.body.draft_id);
    return rec.status === "pending" ? rec : null;
  });
}

/** The owner's 👍 on the post; resolves with the record once it waits out its undo window (counted from the Undo shown). */
async function approve(live: LiveDaemonFixture, d: DaemonProcess, draft: Rec): Promise<Rec> {
  live.double.injectReaction({ chatId: OWNER, messageId: draft.review_message_id, userId: OWNER, newEmojis: ["👍"] });
  return eventually(async () => {
    const rec = await get(d, draft.draft_id);
    return rec.status === "approved" && rec.send_after && rec.undo_shown_at ? rec : null;
  });
}

/** The draft's record once its status is one of `statuses` (the expected one and the one the bug gave). */
const outcome = (live: LiveDaemonFixture, id: string, statuses: string[], timeoutMs: number): Promise<Rec> =>
  eventually(
    async () => {
      const rec = await get(live.daemon, id);
      return statuses.includes(rec.status) ? rec : null;
    },
    timeoutMs,
    `status ${statuses.join(" or ")}`,
  );

/** Resolves once the wall clock is past `iso` (a precondition, not a proof that nothing happened). */
const past = (iso: string, marginMs = 0) => eventually(() => Date.now() > Date.parse(iso) + marginMs, 30_000, `past ${iso}`);

describe.concurrent("a halt that began after an approval voids it across a restart", () => {
  it("/halt inside the undo window halts the draft at once; a confirmed /resume and kill -9 do not bring the approval back: never sent", async ({
    live,
  }) => {
    const env = { UNDO_WINDOW: "15s" };
    await live.start(env);
    const a = await approve(live, live.daemon, await submitPosted(live.daemon, "Approved before the halt"));

    let before = live.double.messages(OWNER).length;
    live.double.injectMessage({ chatId: OWNER, userId: OWNER, text: "/halt" });
    await live.reviewChatMessage(before, /^⛔ Sends halted/, "the /halt answer");
    // Halted at once (contract v4, "Halted when approved"), not at the window's end.
    const halted = await outcome(live, a.draft_id, ["halted"], 10_000);
    expect(halted).toMatchObject({ approval: null, send_after: null, halt_lasts: true });
    expect(Date.now()).toBeLessThan(Date.parse(a.send_after));
    before = live.double.messages(OWNER).length;
    live.double.injectMessage({ chatId: OWNER, userId: OWNER, text: "/resume" });
    const ask = await live.reviewChatMessage(before, /^⚠️ Resume sends\?/, "the /resume question");
    const data = JSON.stringify(ask.replyMarkup).match(/owner:resume:[0-9a-f]+/)![0];
    before = live.double.messages(OWNER).length;
    live.double.injectCallback({ chatId: OWNER, messageId: ask.messageId, userId: OWNER, data });
    await live.reviewChatMessage(before, /^Your halt is lifted/, "the halt lifted");
    await eventually(async () => (await get(live.daemon, a.draft_id)).halt_lasts === false, 10_000, "👍 offered again");

    // Still inside the window; then the process dies, and the window's end passes.
    expect(Date.now()).toBeLessThan(Date.parse(a.send_after));
    await live.restart(env);
    await past(a.send_after, 500);

    const after = await get(live.daemon, a.draft_id);
    expect(after).toMatchObject({ status: "halted", approval: null, halt_lasts: false });
    expect(after.reason).toMatch(/^kill switch: halted by the owner/);
    expect(toGroup(live)).toHaveLength(0);
  }, 60_000);

  it("`draft-review halt` and `resume` while the daemon is down void an approval still in its window", async ({ live }) => {
    const env = { UNDO_WINDOW: "15s" };
    await live.start(env);
    const a = await approve(live, live.daemon, await submitPosted(live.daemon, "Approved, then halted from the shell"));
    const { cwd, harnessDir } = live.daemon;
    await live.daemon.stop("SIGKILL");
    for (const command of ["halt", "resume"]) {
      const run = await runBin([command], { cwd, env: { HARNESS_DIR: harnessDir } });
      expect(run.code, run.stderr).toBe(0);
    }
    expect(Date.now()).toBeLessThan(Date.parse(a.send_after));
    await live.start(env, { dirs: { cwd, harnessDir } });

    const halted = await outcome(live, a.draft_id, ["halted", "sent"], 30_000);
    expect(halted.status).toBe("halted");
    expect(halted.reason).toMatch(/a halt began after the approval/);
    expect(toGroup(live)).toHaveLength(0);
  }, 60_000);
});

describe.concurrent("updates that waited while the daemon was down come before the sends that fell due", () => {
  it("a 👍 removed inside the window while the daemon was down undoes the approval at start: pending, never sent", async ({ live }) => {
    const env = { UNDO_WINDOW: "4s" };
    await live.start(env);
    const a = await approve(live, live.daemon, await submitPosted(live.daemon, "Undo me while you are down"));
    await live.daemon.stop("SIGKILL");
    // Telegram dates the change now, inside the window, and keeps the update for the next getUpdates.
    const removal = live.double.injectReaction({
      chatId: OWNER,
      messageId: a.review_message_id,
      userId: OWNER,
      oldEmojis: ["👍"],
      newEmojis: [],
    });
    expect(removal.update.message_reaction!.date * 1000).toBeLessThan(Date.parse(a.send_after));
    // The window is over before the daemon is back: its send is due at start.
    await past(a.send_after, 500);
    await live.restart(env);

    const undone = await outcome(live, a.draft_id, ["pending", "sent"], 15_000);
    expect(undone.status).toBe("pending");
    expect(undone).toMatchObject({ approval: null, send_after: null });
    expect(toGroup(live)).toHaveLength(0);
    expect(reviewChat(live).some((t) => t.startsWith("↩️ Too late to undo"))).toBe(false);
    const line = (await auditLines(live.daemon.harnessDir)).find((l) => l.kind === "transition" && l.event === "undo");
    expect(line).toMatchObject({ from: "approved", to: "pending", update_id: removal.update.update_id });
    expect(Date.parse(line!.acted_at)).toBe(removal.update.message_reaction!.date * 1000);
  }, 60_000);

  it("a ↩️ Undo tap that waited while the daemon was down counts (Telegram does not date a tap; the draft is unsent)", async ({ live }) => {
    const env = { UNDO_WINDOW: "4s" };
    await live.start(env);
    const a = await approve(live, live.daemon, await submitPosted(live.daemon, "Undo me by button while you are down"));
    await live.daemon.stop("SIGKILL");
    live.double.injectCallback({ chatId: OWNER, messageId: a.review_message_id, userId: OWNER, data: `v1:undo:${a.draft_id}` });
    await past(a.send_after, 500);
    await live.restart(env);

    expect((await outcome(live, a.draft_id, ["pending", "sent"], 15_000)).status).toBe("pending");
    await eventually(() => live.double.answeredCallbacks().length === 1);
    expect(live.double.answeredCallbacks()[0]!.text).toBe("Undone: the draft awaits your decision again.");
    expect(toGroup(live)).toHaveLength(0);
  }, 60_000);
});

describe.concurrent("an approval given before expires_at is a decision", () => {
  it("a draft whose undo window ends after expires_at is sent when the window ends, not expired", async ({ live }) => {
    await live.start({ DRAFT_TTL: "8s", UNDO_WINDOW: "10s" });
    const d = await submitPosted(live.daemon, "Approved just in time");
    const a = await approve(live, live.daemon, d);
    expect(Date.parse(a.send_after)).toBeGreaterThan(Date.parse(a.expires_at));

    const sent = await outcome(live, a.draft_id, ["sent", "expired"], 30_000);
    expect(sent.status).toBe("sent");
    expect(Date.parse(sent.sent_at)).toBeGreaterThanOrEqual(Date.parse(a.send_after));
    expect(toGroup(live).map((m) => m.text)).toEqual(["Approved just in time"]);
    expect(reviewChat(live).some((t) => t.includes("Expired without a decision"))).toBe(false);
  }, 60_000);
});

describe.concurrent("decisions that waited while the daemon was down are judged by when they were made (issue 32, B1)", () => {
  it("a 👍 reaction, a 👍 Send tap and a reply 👍 made while down, then `draft-review halt` and `resume`: none is sent, each is offered again", async ({
    live,
  }) => {
    const env = { UNDO_WINDOW: "0" };
    await live.start(env);
    const drafts = [];
    for (const text of ["By reaction", "By button", "By reply"]) drafts.push(await submitPosted(live.daemon, text));
    const { cwd, harnessDir } = live.daemon;
    await live.daemon.stop("SIGTERM");
    const [byReaction, byButton, byReply] = drafts as [Rec, Rec, Rec];
    // Telegram keeps the owner's decisions until the daemon asks again.
    live.double.injectReaction({ chatId: OWNER, messageId: byReaction.review_message_id, userId: OWNER, newEmojis: ["👍"] });
    live.double.injectCallback({
      chatId: OWNER,
      messageId: byButton.review_message_id,
      userId: OWNER,
      data: `v1:send:${byButton.draft_id}`,
    });
    live.double.injectMessage({ chatId: OWNER, userId: OWNER, text: "👍", replyToMessageId: byReply.review_message_id });
    // Then, still while down, a halt and its end from the shell: after every decision above.
    for (const command of ["halt", "resume"]) {
      const run = await runBin([command], { cwd, env: { HARNESS_DIR: harnessDir } });
      expect(run.code, run.stderr).toBe(0);
    }
    await live.start(env, { dirs: { cwd, harnessDir } });
    for (const d of drafts) {
      const halted = await outcome(live, d.draft_id, ["halted", "sent", "approved", "sending"], 30_000);
      expect(halted.status, d.draft_text).toBe("halted");
      expect(halted.reason).toMatch(/^kill switch: /);
    }
    expect(toGroup(live)).toHaveLength(0);
    // Each post offers 👍 Send again (the halt is over); a new 👍, made after the resume, sends.
    const post = (id: number) => live.double.message(OWNER, id);
    for (const d of drafts)
      await eventually(() => JSON.stringify(post(d.review_message_id)?.reply_markup ?? {}).includes("v1:send:"), 10_000, "👍 Send again");
    live.double.injectCallback({
      chatId: OWNER,
      messageId: byButton.review_message_id,
      userId: OWNER,
      data: `v1:send:${byButton.draft_id}`,
    });
    await outcome(live, byButton.draft_id, ["sent"], 30_000);
    expect(toGroup(live).map((m) => m.text)).toEqual(["By button"]);
  }, 90_000);
});

// Last, and one test at a time, not beside the file's other tests. On a loaded machine this test once failed one run in
// three: not the removal's audit line (it was there within 100 ms), but B's 👍 after it, halted as "a halt began after
// the approval": a look of the kill switch dated the halt's end (and the halt record's) when its audit hook was done,
// after the 👍, not when it read HALT gone. Looks are now dated when they read the switch (test/send/halt-watch.test.ts).
describe("HARNESS_DIR/HALT removed by hand ends the owner's halt, once, in the audit log", () => {
  /** The owner's /halt, answered. */
  async function halt(live: LiveDaemonFixture): Promise<void> {
    const before = live.double.messages(OWNER).length;
    live.double.injectMessage({ chatId: OWNER, userId: OWNER, text: "/halt" });
    await live.reviewChatMessage(before, /^⛔ Sends halted/, "the /halt answer");
  }
  /** The daemon's owner_resume lines for a HALT removed by hand. */
  const removals = async (harnessDir: string) =>
    (await auditLines(harnessDir)).filter((l) => l.kind === "owner_resume" && l.channel === "file");

  it("removed while the daemon runs: the end is audited at once; a 👍 given after it is sent after a restart, the approval from before the halt stays void", async ({
    live,
  }) => {
    const env = { UNDO_WINDOW: "8s" };
    await live.start(env);
    // Both posted first, so that nothing stands between A's approval and the halt but the /halt itself: on a busy
    // machine, posting B in between let A's window run out before the halt (it failed on two machines).
    const posted = await submitPosted(live.daemon, "Approved before the halt");
    const b = await submitPosted(live.daemon, "Approved once HALT was removed");
    const a = await approve(live, live.daemon, posted);
    await halt(live);
    expect(Date.now()).toBeLessThan(Date.parse(a.send_after));
    const { harnessDir } = live.daemon;
    await rm(harnessPaths(harnessDir).ownerHalt);
    const [removal] = await eventually(async () => {
      const lines = await removals(harnessDir);
      return lines.length > 0 ? lines : null;
    });
    expect(removal).toMatchObject({ source: "telegram-draft-for-review", user_id: null, changed: true, mac: expect.any(String) });
    const approved = await approve(live, live.daemon, b);
    expect(Date.parse(approved.approval.at)).toBeGreaterThan(Date.parse(removal!.ts));

    // A restart inside B's window: the log's halt ended at the removal, not at this start.
    expect(Date.now()).toBeLessThan(Date.parse(approved.send_after));
    await live.restart(env);
    const sent = await outcome(live, b.draft_id, ["sent", "halted"], 30_000);
    expect(sent.status).toBe("sent");
    expect(toGroup(live).map((m) => m.text)).toEqual(["Approved once HALT was removed"]);
    const halted = await outcome(live, a.draft_id, ["halted", "sent"], 30_000);
    expect(halted.status).toBe("halted");
    // Halted when the halt began (contract v4, "Halted when approved"), and void since.
    expect(halted).toMatchObject({ approval: null, reason: expect.stringMatching(/^kill switch: halted by the owner/) });
    expect(await removals(harnessDir)).toHaveLength(1);
  }, 60_000);

  it("removed while the daemon is down: the next start ends the halt then (once); a 👍 after that start survives the next restart", async ({
    live,
  }) => {
    const env = { UNDO_WINDOW: "8s" };
    await live.start(env);
    const a = await approve(live, live.daemon, await submitPosted(live.daemon, "Approved before the halt"));
    const b = await submitPosted(live.daemon, "Approved after the start that found HALT gone");
    await halt(live);
    const { cwd, harnessDir } = live.daemon;
    await live.daemon.stop("SIGTERM");
    await rm(harnessPaths(harnessDir).ownerHalt);
    const started = Date.now();
    await live.start(env, { dirs: { cwd, harnessDir } });
    const [removal] = await removals(harnessDir);
    expect(Date.parse(removal!.ts)).toBeGreaterThanOrEqual(started);
    const approved = await approve(live, live.daemon, b);

    expect(Date.now()).toBeLessThan(Date.parse(approved.send_after));
    await live.restart(env);
    const sent = await outcome(live, b.draft_id, ["sent", "halted"], 30_000);
    expect(sent.status).toBe("sent");
    const halted = await outcome(live, a.draft_id, ["halted", "sent"], 30_000);
    expect(halted.status).toBe("halted");
    expect(toGroup(live).map((m) => m.text)).toEqual(["Approved after the start that found HALT gone"]);
    expect(await removals(harnessDir)).toHaveLength(1);
  }, 60_000);
});
