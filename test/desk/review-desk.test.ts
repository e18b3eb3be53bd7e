import { readFile, rm, truncate, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Actor } from "../../src/drafts/record.js";
import type { SendCallOutcome } from "../../src/channels/telegram/send-call.js";
import { openTestCore, REVIEWER, submitPosted, type TestCore } from "../support/core.js";
import { HOUR } from "../support/drafts.js";

let t: TestCore | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const actor = (update_id: number | null, user_id = REVIEWER, emoji = "👍"): Actor => ({ user_id, channel: "reaction", emoji, update_id });

async function audit(dir: string) {
  return (await readFile(join(dir, "swarm.jsonl"), "utf8"))
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l));
}

describe("ReviewDesk", () => {
  it("acts once on a decision Telegram delivers twice (same update_id)", async () => {
    t = await openTestCore();
    const d = await submitPosted(t, "defer me once");
    const request = {
      reviewChatId: d.review_chat_id!,
      reviewMessageId: d.review_message_id!,
      decision: "defer" as const,
      actor: actor(77, REVIEWER, "😴"),
    };
    expect((await t.core.desk.decide(request)).ok).toBe(true);
    expect(await t.core.desk.decide(request)).toMatchObject({ ok: false, reason: "duplicate_update" });
    await t.core.desk.settle();
    expect(Date.parse(t.core.desk.get(d.draft_id)!.expires_at) - Date.parse(d.drafted_at)).toBe(48 * HOUR);
    // And after a restart, from the audit log.
    t = await t.reopen();
    expect(await t.core.desk.decide(request)).toMatchObject({ ok: false, reason: "duplicate_update" });
  });

  it("refuses and audits a decision on a message of another chat", async () => {
    t = await openTestCore();
    const d = await submitPosted(t, "wrong chat");
    const r = await t.core.desk.decide({ reviewChatId: "-999", reviewMessageId: d.review_message_id!, decision: "send", actor: actor(1) });
    expect(r).toMatchObject({ ok: false, reason: "unknown_review_message" });
    const refused = (await audit(t.dir)).filter((l) => l.kind === "decision_refused");
    expect(refused).toEqual([expect.objectContaining({ reason: "unknown_review_message", chat_id: "-999", user_id: REVIEWER })]);
  });

  it("expires drafts whose time passed while it was down, and never sends them", async () => {
    t = await openTestCore();
    const d = await submitPosted(t, "stale");
    await t.core.close();
    t.clock.advance(25 * HOUR);
    t = await t.reopen();
    expect(t.core.desk.get(d.draft_id)!.status).toBe("expired");
    expect(t.sends).toHaveLength(0);
  });

  it("marks a send cut short by a crash as outcome_unknown, tells the reviewer, and never resends", async () => {
    t = await openTestCore();
    const d = await submitPosted(t, "cut short");
    // The crash window: the approval and the send intent reached the store; the
    // outcome (and the audit line) did not.
    const approval = { actor: actor(5), at: d.updated_at, text_sha256: d.text_sha256 };
    await t.core.store.append([{ ...d, status: "sending", approval, version: d.version + 1 }]);
    const notices: string[] = [];
    t = await t.reopen({
      reviewChat: (existing) => {
        const chat = new (class {
          claimFreeSlot = () => true;
          post = async () => ({ reviewChatId: "100000001", reviewMessageId: 1 });
          showStatus = async () => undefined;
          notify = async (_d: unknown, text: string) => notices.push(text) + 10;
          askConfirmation = async () => ({ messageId: 2, question: "?" });
          offerAsBot = async () => 3;
          markSuperseded = async () => {};
          promptEdit = async () => 1;
          answer = async () => 4;
          askApproval = async () => ({ messageId: 3, question: "?" });
          close = async () => {};
          reopenReminder = async () => {};
          remind = async () => ({ text: "reminder", messageId: 5 });
        })();
        void existing;
        return chat;
      },
    });
    expect(t.core.desk.get(d.draft_id)!.status).toBe("outcome_unknown");
    expect(notices).toEqual([expect.stringContaining("may or may not have reached")]);
    expect(t.sends).toHaveLength(0);
    // The audit log got the change that never reached it before the "crash", marked recovered.
    const lines = (await audit(t.dir)).filter((l) => l.draft_id === d.draft_id && l.kind === "transition");
    expect(lines.map((l) => [l.from, l.to, l.event])).toEqual([
      [null, "queued", "created"],
      ["queued", "pending", "posted"],
      [null, "sending", "recovered"],
      ["sending", "outcome_unknown", "send_unknown"],
    ]);
  });

  it("never resends when the store lost the line of a send that the audit log shows had begun", async () => {
    t = await openTestCore();
    const d = await submitPosted(t, "bit rot");
    const approval = { actor: actor(6), at: d.updated_at, text_sha256: d.text_sha256 };
    const approved = { ...d, status: "approved" as const, approval, version: d.version + 1 };
    await t.core.store.append([approved]);
    // The sending line reached the audit log; its store line was damaged and cut off at start.
    const { transitionEntry } = await import("../../src/desk/audit-entries.js");
    await t.core.audit.append([
      transitionEntry("pending", approved, { type: "recovered" }),
      transitionEntry("approved", { ...approved, status: "sending", version: approved.version + 1 }, { type: "send_intent" }),
    ]);
    t = await t.reopen();
    expect(t.core.desk.get(d.draft_id)).toMatchObject({
      status: "outcome_unknown",
      reason: expect.stringContaining("store lost its last change"),
    });
    expect(t.sends).toHaveLength(0);
  });

  /**
   * The crash the sweep found: a change's store line and audit line are written at once, and a
   * kill left the `sent` (or `failed`) audit line durable and the store's line torn. The store's
   * last good state is `sending`; the audit log knows the outcome.
   */
  async function sendThenTearStoreTail(outcome: SendCallOutcome, dropCheckpoint: boolean) {
    t = await openTestCore(undefined, { sendCall: async () => outcome });
    const d = await submitPosted(t, `torn after ${outcome.kind}`);
    await t.core.desk.decide({ reviewChatId: d.review_chat_id!, reviewMessageId: d.review_message_id!, decision: "send", actor: actor(8) });
    await t.core.desk.settle();
    const done = t.core.desk.get(d.draft_id)!;
    await t.core.close();
    const store = join(t.dir, "telegram_drafts.jsonl");
    const text = await readFile(store, "utf8");
    const lastLine = text.lastIndexOf("\n", text.length - 2) + 1;
    expect(text.slice(lastLine)).toContain(`"status":"${done.status}"`);
    await truncate(store, Buffer.byteLength(text.slice(0, lastLine + 40)));
    // Without the checkpoint the audit log is scanned; with it, the index comes from the checkpoint.
    if (dropCheckpoint) await rm(join(t.dir, "audit_index.json"));
    t = await t.reopen();
    const lines = (await audit(t.dir)).filter((l) => l.draft_id === d.draft_id && l.kind === "transition");
    return { done, now: t.core.desk.get(d.draft_id)!, path: lines.map((l) => l.to) };
  }

  for (const dropCheckpoint of [false, true]) {
    it(`keeps a send the audit log shows \`sent\` when the store lost that line (checkpoint ${dropCheckpoint ? "gone" : "kept"})`, async () => {
      const { done, now, path } = await sendThenTearStoreTail({ kind: "ok", messageId: 4242 }, dropCheckpoint);
      expect(done).toMatchObject({ status: "sent", sent_message_id: 4242 });
      expect(now).toMatchObject({ status: "sent", sent_message_id: 4242, sent_at: done.sent_at, version: done.version });
      expect(t!.sends).toHaveLength(0);
      expect(path).toEqual(["queued", "pending", "approved", "sending", "sent"]);
    });
  }

  it("keeps a failed send failed when the store lost that line", async () => {
    const { done, now, path } = await sendThenTearStoreTail({ kind: "refused", reason: "Forbidden: bot was blocked by the user" }, true);
    expect(done).toMatchObject({ status: "failed" });
    expect(now).toMatchObject({ status: "failed", reason: done.reason, version: done.version });
    expect(path).toEqual(["queued", "pending", "approved", "sending", "failed"]);
  });

  it("sends an approval the daemon had not started on after a restart", async () => {
    t = await openTestCore();
    const d = await submitPosted(t, "resume me");
    await writeFile(join(t.dir, ".env"), "TAO_SWARM_ENABLED=0\n");
    await t.core.desk.decide({ reviewChatId: d.review_chat_id!, reviewMessageId: d.review_message_id!, decision: "send", actor: actor(9) });
    await t.core.desk.settle();
    expect(t.core.desk.get(d.draft_id)!.status).toBe("halted");
    await writeFile(join(t.dir, ".env"), "TAO_SWARM_ENABLED=1\n");
    t = await t.reopen();
    // Halted is not re-sent by itself: only a new approval sends.
    expect(t.core.desk.get(d.draft_id)!.status).toBe("halted");
    expect(t.sends).toHaveLength(0);
  });
});
