import { rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect } from "vitest";
import type { ShownVersion } from "../telegram-double/index.js";
import { eventually } from "../support/daemon-process.js";
import { draftRecord, GROUP, OWNER, payload, submitPending, liveTest } from "../support/live-fixture.js";

/**
 * Issue 25, point 2 (contract v4, "Halted when approved"), through the real
 * daemon and the Bot API double's history of what the post showed when.
 */

// Each test has a Bot API double and daemons of its own, and the tests run at once: most of each is waiting on the real clock.
const it = liveTest({ env: { UNDO_WINDOW: "3s" } });

const keyboard = (v: ShownVersion | undefined) => JSON.stringify(v?.replyMarkup ?? null);
const offersSend = (v: ShownVersion | undefined) => keyboard(v).includes("👍 Send");

describe.concurrent("an approval while sends are halted (the owner's HALT)", () => {
  it("is answered as halted at once, never with a send time or Undo; after the halt, 👍 Send is offered again and sends after a full window", async ({
    live,
  }) => {
    await live.start();
    const d = await submitPending(live.daemon, payload("Approved during a halt"));
    const history = () => live.double.history(OWNER, d.review_message_id);
    const halt = join(live.daemon.harnessDir, "HALT");
    await writeFile(halt, "{}\n", { mode: 0o600 });
    await eventually(async () => (await live.daemon.request("GET", "/status")).body.kill_switch.halted === true, 10_000, "halted");

    live.double.injectReaction({ chatId: OWNER, messageId: d.review_message_id, userId: OWNER, newEmojis: ["👍"] });
    const halted = await eventually(async () => {
      const rec = await draftRecord(live.daemon, d.draft_id);
      return rec.status === "halted" ? rec : null;
    });
    expect(halted).toMatchObject({ halt_lasts: true, approval: null, send_after: null, reason: expect.stringMatching(/^kill switch: /) });
    const shownHalted = await eventually(() => history().find((v) => v.text?.startsWith("⛔")), 10_000, "the post says halted");
    expect(shownHalted.text).toMatch(/^⛔ Approved, but not sent: kill switch: .*👍 Send comes back here when the halt ends\./);
    // While the halt lasts, no 👍 that could only halt again: no button, and no legend that says "👍 send" (issue 35, point 8).
    expect(offersSend(shownHalted)).toBe(false);
    expect(shownHalted.text).not.toContain("👍 send ·");

    await rm(halt);
    const offered = await eventually(() => history().find((v) => v.at > shownHalted.at && offersSend(v)), 10_000, "👍 Send offered again");
    expect(offered.text).toMatch(/^⛔ Not sent: kill switch: .*The halt is over: 👍 Send approves it again\./);
    expect((await draftRecord(live.daemon, d.draft_id)).halt_lasts).toBe(false);
    // The 👍 reaction from before the halt still sits on the post and counts for nothing: the post says what to do.
    expect(offered.text).toContain("A 👍 reaction given before does not count: take it away and add it again.");
    expect(offered.text).toContain("👍 send ·");
    // Until now the post never showed a send time nor ↩️ Undo.
    expect(history().some((v) => /Sending at|↩️ Undo/.test(`${v.text} ${keyboard(v)}`))).toBe(false);

    // A tap on the 👍 Send it offers now: a new approval, bound to the post as re-shown.
    live.double.injectCallback({ chatId: OWNER, messageId: d.review_message_id, userId: OWNER, data: `v1:send:${d.draft_id}` });
    const sent = await eventually(
      async () => {
        const rec = await draftRecord(live.daemon, d.draft_id);
        return rec.status === "sent" ? rec : null;
      },
      20_000,
      "sent",
    );
    const undoShown = history().find((v) => keyboard(v).includes("↩️ Undo"))!;
    const out = live.double.messages(GROUP).find((m) => m.text === "Approved during a halt")!;
    expect(out.at - undoShown.at).toBeGreaterThanOrEqual(3_000);
    expect(Date.parse(sent.sent_at) - Date.parse(sent.undo_shown_at)).toBeGreaterThanOrEqual(3_000);
  }, 60_000);
});

describe.concurrent("a halt that begins while an approval waits out its undo window (/halt)", () => {
  it("halts the draft at once: its post says so within 2 s, never sent; after /resume 👍 Send is offered again and a new 👍 sends", async ({
    live,
  }) => {
    await live.start({ UNDO_WINDOW: "15s" });
    const d = await submitPending(live.daemon, payload("Approved, then the owner halts"));
    const history = () => live.double.history(OWNER, d.review_message_id);
    live.double.injectReaction({ chatId: OWNER, messageId: d.review_message_id, userId: OWNER, newEmojis: ["👍"] });
    const undo = await eventually(() => history().find((v) => keyboard(v).includes("↩️ Undo")), 10_000, "the ↩️ Undo shown");
    // Its window counts from that edit's acceptance, once the daemon has heard it.
    const approved = await eventually(async () => {
      const rec = await draftRecord(live.daemon, d.draft_id);
      return rec.status === "approved" && rec.undo_shown_at ? rec : null;
    });

    let before = live.double.messages(OWNER).length;
    const haltAt = Date.now();
    live.double.injectMessage({ chatId: OWNER, userId: OWNER, text: "/halt" });
    await live.reviewChatMessage(before, /^⛔ Sends halted/, "the /halt answer");
    const shownHalted = await eventually(() => history().find((v) => v.at > undo.at && v.text?.startsWith("⛔")), 10_000, "halted");
    // At once: within 2 s of the /halt, long before the window (15 s) would have ended.
    expect(shownHalted.at - haltAt).toBeLessThan(2_000);
    expect(shownHalted.text).toMatch(
      /^⛔ Approved, but not sent: kill switch: halted by the owner.*👍 Send comes back here when the halt ends\./,
    );
    expect(keyboard(shownHalted)).not.toContain("↩️ Undo");
    expect(offersSend(shownHalted)).toBe(false);
    expect(await draftRecord(live.daemon, d.draft_id)).toMatchObject({
      status: "halted",
      halt_lasts: true,
      approval: null,
      send_after: null,
      reason: expect.stringMatching(/^kill switch: /),
    });

    before = live.double.messages(OWNER).length;
    live.double.injectMessage({ chatId: OWNER, userId: OWNER, text: "/resume" });
    const ask = await live.reviewChatMessage(before, /^⚠️ Resume sends\?/, "the /resume question");
    const data = JSON.stringify(ask.replyMarkup).match(/owner:resume:[0-9a-f]+/)![0];
    live.double.injectCallback({ chatId: OWNER, messageId: ask.messageId, userId: OWNER, data });
    const offered = await eventually(() => history().find((v) => v.at > shownHalted.at && offersSend(v)), 10_000, "👍 Send again");
    expect(offered.text).toMatch(/^⛔ Not sent: kill switch: .*The halt is over: 👍 Send approves it again\./);

    // A new 👍 (the tap the post offers): a new approval with a full window of its own, sent once.
    live.double.injectCallback({ chatId: OWNER, messageId: d.review_message_id, userId: OWNER, data: `v1:send:${d.draft_id}` });
    const sent = await eventually(
      async () => {
        const rec = await draftRecord(live.daemon, d.draft_id);
        return rec.status === "sent" ? rec : null;
      },
      30_000,
      "sent",
    );
    // The first approval's window ended long ago (its send time passed before the second one's): one message only.
    expect(Date.parse(sent.sent_at)).toBeGreaterThan(Date.parse(approved.send_after));
    const out = live.double.messages(GROUP).filter((m) => m.text === "Approved, then the owner halts");
    expect(out).toHaveLength(1);
    expect(Date.parse(sent.sent_at) - Date.parse(sent.undo_shown_at)).toBeGreaterThanOrEqual(15_000);
  }, 90_000);

  it("TAO_SWARM_ENABLED=0 written to .env during the window halts the draft at once; its post says so", async ({ live }) => {
    await live.start({ UNDO_WINDOW: "30s" });
    const d = await submitPending(live.daemon, payload("Approved, then .env halts"));
    const history = () => live.double.history(OWNER, d.review_message_id);
    live.double.injectReaction({ chatId: OWNER, messageId: d.review_message_id, userId: OWNER, newEmojis: ["👍"] });
    const undo = await eventually(() => history().find((v) => keyboard(v).includes("↩️ Undo")), 10_000, "the ↩️ Undo shown");
    const haltAt = Date.now();
    await writeFile(join(live.daemon.cwd, ".env"), "TAO_SWARM_ENABLED=0\n", { mode: 0o600 });
    const shownHalted = await eventually(() => history().find((v) => v.at > undo.at && v.text?.startsWith("⛔")), 10_000, "halted");
    expect(shownHalted.at - haltAt).toBeLessThan(2_000);
    expect(shownHalted.text).toMatch(/^⛔ Approved, but not sent: kill switch: TAO_SWARM_ENABLED=0 in \.env/);
    expect(await draftRecord(live.daemon, d.draft_id)).toMatchObject({ status: "halted", halt_lasts: true, approval: null });
    expect(live.double.messages(GROUP)).toHaveLength(0);
  }, 60_000);
});
