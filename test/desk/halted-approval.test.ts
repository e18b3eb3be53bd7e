import { rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { DraftRecord } from "../../src/drafts/record.js";
import { openTestCore, REVIEWER, submitPosted, type TestCore } from "../support/core.js";
import { eventually } from "../support/daemon-process.js";

// Issue 25, point 2 (contract v4, "Halted when approved"), in process on real files with a
// simulated clock: the kill switch is read when an approval is applied, and the end of the halt
// (the watcher's hook, or a start) gives the drafts it stopped their 👍 back.

let t: TestCore | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const actor = { user_id: REVIEWER, channel: "test" as const, emoji: "👍", update_id: null };

async function approve(core: TestCore, d: DraftRecord) {
  const outcome = await core.core.desk.decide({
    reviewChatId: d.review_chat_id!,
    reviewMessageId: d.review_message_id!,
    decision: "send",
    actor,
  });
  await core.core.desk.settle();
  return outcome;
}

describe("an approval while sends are halted", () => {
  it("is halted at once (no approval, no send time), 👍 comes back when the halt ends, and a 👍 then sends after its window", async () => {
    t = await openTestCore(undefined, { env: { UNDO_WINDOW: "10s" } });
    const halt = join(t.dir, "HALT");
    await writeFile(halt, "{}\n", { mode: 0o600 });
    const d = await submitPosted(t, "Approved while halted");
    const outcome = await approve(t, d);
    expect(outcome.ok).toBe(true);
    expect(t.core.desk.get(d.draft_id)).toMatchObject({
      status: "halted",
      reason: expect.stringMatching(/^kill switch: halted by the owner/),
      approval: null,
      send_after: null,
      halt_lasts: true,
    });
    // The watcher's next look finds the halt over: the draft offers 👍 again.
    await rm(halt);
    await t.core.killSwitch.check();
    await t.core.desk.settle();
    expect(t.core.desk.get(d.draft_id)).toMatchObject({ status: "halted", halt_lasts: false });
    // The owner reads the post and taps (a moment after the halt was last seen).
    await t.clock.advance(1_000, () => t!.core.desk.settle());
    await approve(t, d);
    expect(t.core.desk.get(d.draft_id)).toMatchObject({ status: "approved", undo_shown_at: expect.any(String) });
    await t.clock.advance(9_999, () => t!.core.desk.settle());
    expect(t.sends).toHaveLength(0);
    await t.clock.advance(1, () => t!.core.desk.settle());
    await t.core.desk.settle();
    expect(t.sends.map((s) => s.text)).toEqual(["Approved while halted"]);
  });

  it("a halt that ended while the daemon was down gives the 👍 back at the next start", async () => {
    t = await openTestCore(undefined, { env: { UNDO_WINDOW: "10s" } });
    const halt = join(t.dir, "HALT");
    await writeFile(halt, "{}\n", { mode: 0o600 });
    const d = await submitPosted(t, "Halted across a restart");
    await approve(t, d);
    expect(t.core.desk.get(d.draft_id)).toMatchObject({ status: "halted", halt_lasts: true });
    await t.core.close();
    await rm(halt);
    t = await t.reopen();
    await t.core.desk.settle();
    expect(t.core.desk.get(d.draft_id)).toMatchObject({ status: "halted", halt_lasts: false });
  });

  it("with the switch still on at the next start, the draft stays without its 👍", async () => {
    t = await openTestCore(undefined, { env: { UNDO_WINDOW: "10s", TAO_SWARM_ENABLED: "0" } });
    const d = await submitPosted(t, "Halted by the environment");
    await approve(t, d);
    t = await t.reopen();
    await t.core.desk.settle();
    expect(t.core.desk.get(d.draft_id)).toMatchObject({
      status: "halted",
      halt_lasts: true,
      reason: expect.stringContaining("TAO_SWARM_ENABLED=0"),
    });
    expect(t.sends).toHaveLength(0);
  });
});

describe("a halt that begins while approvals wait (their undo window, a 429 retry)", () => {
  /** Approved, its ↩️ Undo shown, its send waiting out UNDO_WINDOW (10 s). */
  async function waiting(core: TestCore, text: string): Promise<DraftRecord> {
    const d = await submitPosted(core, text);
    await approve(core, d);
    expect(core.core.desk.get(d.draft_id)).toMatchObject({ status: "approved", undo_shown_at: expect.any(String) });
    return d;
  }

  it("HALT (/halt, draft-review halt): halted at once, its post edited; never sent; 👍 comes back when the halt ends", async () => {
    t = await openTestCore(undefined, { env: { UNDO_WINDOW: "10s" } });
    const d = await waiting(t, "Waiting when HALT appears");
    await t.clock.advance(1_000, () => t!.core.desk.settle());
    await writeFile(join(t.dir, "HALT"), "{}\n", { mode: 0o600 });
    // The watcher's look (a change of HALT, or its periodic look).
    await t.core.killSwitch.check();
    await t.core.desk.settle();
    expect(t.core.desk.get(d.draft_id)).toMatchObject({
      status: "halted",
      halt_lasts: true,
      approval: null,
      send_after: null,
      reason: expect.stringMatching(/^kill switch: halted by the owner/),
    });
    // Its post was edited for that version (the edit the halt owed is done: `status_shown`).
    expect(t.core.audit.index.statusEditOwed(d.draft_id)).toBe(false);
    // Past the window: nothing goes out.
    await t.clock.advance(20_000, () => t!.core.desk.settle());
    expect(t.sends).toHaveLength(0);
    await rm(join(t.dir, "HALT"));
    await t.core.killSwitch.check();
    await t.core.desk.settle();
    expect(t.core.desk.get(d.draft_id)).toMatchObject({ status: "halted", halt_lasts: false });
    expect(t.sends).toHaveLength(0);
  });

  it("TAO_SWARM_ENABLED=0 written to .env: halted at once, with the switch's reason", async () => {
    t = await openTestCore(undefined, { env: { UNDO_WINDOW: "10s" } });
    const d = await waiting(t, "Waiting when .env halts");
    await writeFile(join(t.dir, ".env"), "TAO_SWARM_ENABLED=0\n", { mode: 0o600 });
    await t.core.killSwitch.check();
    await t.core.desk.settle();
    expect(t.core.desk.get(d.draft_id)).toMatchObject({
      status: "halted",
      halt_lasts: true,
      reason: expect.stringContaining("TAO_SWARM_ENABLED=0"),
    });
    await t.clock.advance(20_000, () => t!.core.desk.settle());
    expect(t.sends).toHaveLength(0);
  });

  it("the kill switch in the process environment at the next start: halted at start, never its ↩️ Undo again", async () => {
    t = await openTestCore(undefined, { env: { UNDO_WINDOW: "10s" } });
    const d = await waiting(t, "Waiting across a halted start");
    t = await t.reopen({ env: { UNDO_WINDOW: "10s", TAO_SWARM_ENABLED: "0" } });
    expect(t.core.desk.get(d.draft_id)).toMatchObject({
      status: "halted",
      halt_lasts: true,
      approval: null,
      reason: expect.stringContaining("TAO_SWARM_ENABLED=0"),
    });
    await t.clock.advance(20_000, () => t!.core.desk.settle());
    expect(t.sends).toHaveLength(0);
  });

  it("a HALT made and removed between two looks (only the file's change is seen): halted at once, 👍 offered", async () => {
    t = await openTestCore(undefined, { env: { UNDO_WINDOW: "10s" } });
    const d = await waiting(t, "Waiting when HALT comes and goes");
    await t.clock.advance(1_000, () => t!.core.desk.settle());
    const halt = join(t.dir, "HALT");
    await writeFile(halt, "{}\n", { mode: 0o600 });
    await rm(halt);
    const halted = await eventually(() => (t!.core.desk.get(d.draft_id)?.status === "halted" ? t!.core.desk.get(d.draft_id) : null));
    expect(halted).toMatchObject({ halt_lasts: false, reason: expect.stringMatching(/a halt began after the approval/) });
    await t.clock.advance(20_000, () => t!.core.desk.settle());
    expect(t.sends).toHaveLength(0);
  });

  it("an approval waiting on a 429 retry: halted at once, not sent at the retry", async () => {
    const sends: string[] = [];
    let calls = 0;
    t = await openTestCore(undefined, {
      sendCall: async ({ text }) => {
        calls += 1;
        if (calls === 1) return { kind: "retry_after", seconds: 30, reason: "Too Many Requests: retry after 30" };
        sends.push(text);
        return { kind: "ok", messageId: 1 };
      },
    });
    const d = await submitPosted(t, "Waiting on a 429");
    await approve(t, d);
    expect(t.core.desk.get(d.draft_id)).toMatchObject({ status: "approved", reason: expect.stringMatching(/retry after/) });
    await t.clock.advance(1_000, () => t!.core.desk.settle());
    await writeFile(join(t.dir, "HALT"), "{}\n", { mode: 0o600 });
    await t.core.killSwitch.check();
    await t.core.desk.settle();
    expect(t.core.desk.get(d.draft_id)).toMatchObject({ status: "halted", halt_lasts: true, approval: null });
    await t.clock.advance(60_000, () => t!.core.desk.settle());
    expect(sends).toEqual([]);
    expect(calls).toBe(1);
  });
});
