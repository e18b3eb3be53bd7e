import { readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { eventually, pathExists, type DaemonProcess } from "../support/daemon-process.js";
import { jsonLine, runBin } from "../support/cli-process.js";
import {
  auditLines,
  draftRecord,
  GROUP,
  OWNER,
  payload,
  submitPending,
  liveTest,
  type LiveDaemonFixture,
} from "../support/live-fixture.js";

/**
 * Issue 25 point 6 (contract v4, "His own details, one tap"): the owner's own
 * phone and email were redacted and ✏️ Edit handed back "[phone]" and
 * "[email]". The post offers "🔓 Keep the removed items": a new text version
 * with the originals, posted and bound like an ✏️ edit. Through the real
 * daemon and the Bot API double.
 */

// Each test has a Bot API double and daemons of its own, and the tests run at once: most of each is waiting on the real clock.
const it = liveTest();

type Rec = Record<string, any>;

const FAST = { TELEGRAM_RATE_SCALE: "20", UNDO_WINDOW: "0" };
const PHONE = "+61 412 345 678";
const EMAIL = "sam@northwind.io";
const ORIGINAL = `Hi Anna, call me on ${PHONE} or mail ${EMAIL} if anything changes before Thursday. Thanks, Sam`;
const REDACTED = "Hi Anna, call me on [phone] or mail [email] if anything changes before Thursday. Thanks, Sam";

const post = (live: LiveDaemonFixture, id: number) => live.double.message(OWNER, id);
const keyboard = (live: LiveDaemonFixture, id: number): Array<Array<{ text: string; callback_data?: string }>> =>
  (post(live, id)?.reply_markup?.inline_keyboard as any) ?? [];
/** Messages the bot sent into the review chat as replies to `id`. */
const repliesTo = (live: LiveDaemonFixture, id: number) => live.double.messages(OWNER).filter((m) => m.replyToMessageId === id);
const keptFile = (d: DaemonProcess, id: string) => join(d.harnessDir, "removed_items", `${id}.json`);
const tapKeep = (live: LiveDaemonFixture, messageId: number, draftId: string) =>
  live.double.injectCallback({ chatId: OWNER, messageId, userId: OWNER, data: `v1:keep:${draftId}` });

/** Waits until the draft awaits a decision on a post other than `oldPost`; returns the record. */
function repostedAfter(d: DaemonProcess, id: string, oldPost: number): Promise<Rec> {
  return eventually(
    async () => {
      const rec = await draftRecord(d, id);
      return rec.status === "pending" && rec.review_message_id !== oldPost ? rec : null;
    },
    10_000,
    "the new version is posted",
  );
}

describe.concurrent("🔓 Keep the removed items", () => {
  it("makes version 2 with the originals, bound like an ✏️ edit: the old post is replaced, the new one sends exactly what it shows", async ({
    live,
  }) => {
    const d = await live.start(FAST);
    const v1 = await submitPending(d, payload(ORIGINAL));
    expect(v1).toMatchObject({ draft_text: REDACTED, text_version: 1, redaction: { mode: "redact", removed: { phone: 1, email: 1 } } });
    const first = post(live, v1.review_message_id)!;
    expect(first.text).toContain(
      "🔒 2 items removed: phone ending 678, email at northwind.io. 🔓 Keep them, or add your own to PII_ALLOW.",
    );
    expect(keyboard(live, v1.review_message_id).at(-1)).toEqual([
      { text: "🔓 Keep the removed items", callback_data: `v1:keep:${v1.draft_id}` },
    ]);
    // The originals are kept aside, privately; the store and the shared audit log carry only the redacted text.
    expect((await stat(keptFile(d, v1.draft_id))).mode & 0o777).toBe(0o600);
    expect((await stat(join(d.harnessDir, "removed_items"))).mode & 0o777).toBe(0o700);
    for (const file of ["telegram_drafts.jsonl", "swarm.jsonl"])
      expect(await readFile(join(d.harnessDir, file), "utf8"), file).not.toMatch(/412 345 678|sam@northwind\.io/);
    expect(JSON.stringify(d.logs)).not.toMatch(/412 345 678|sam@northwind\.io/);

    tapKeep(live, v1.review_message_id, v1.draft_id);
    const v2 = await repostedAfter(d, v1.draft_id, v1.review_message_id);
    await eventually(() => live.double.answeredCallbacks().length === 1, 10_000, "the tap answered");
    expect(live.double.lastAnsweredCallback?.text).toBe("Kept: the removed items are back in a new version, posted below.");
    expect(v2).toMatchObject({
      draft_text: ORIGINAL,
      text_version: 2,
      original_text: REDACTED,
      superseded_posts: [v1.review_message_id],
      redaction: { mode: "reviewer", restored: true, hints: ["phone ending 678", "email at northwind.io"] },
    });
    const fresh = post(live, v2.review_message_id)!;
    expect(fresh.text).toContain("🔓 Version 2 keeps the removed items (phone ending 678, email at northwind.io).\nChanges: ");
    expect(fresh.text).toContain(`\n${ORIGINAL}\n`);
    expect(fresh.text).not.toContain("🔒");
    expect(fresh.text).not.toContain("Edit to restore");
    const marked = (fresh.entities ?? []).filter((e) => e.type === "bold").map((e) => fresh.text!.slice(e.offset, e.offset + e.length));
    expect(marked).toEqual([PHONE, EMAIL]);
    expect(JSON.stringify(keyboard(live, v2.review_message_id))).not.toContain("Keep the removed items");
    await eventually(
      () => post(live, v1.review_message_id)?.text?.startsWith("🔓 Replaced by version 2 (the removed items kept)"),
      10_000,
      "old post replaced",
    );
    expect(keyboard(live, v1.review_message_id)).toEqual([]);
    // Kept once the draft got its next version: the originals file is gone.
    await eventually(async () => !(await pathExists(keptFile(d, v1.draft_id))), 10_000, "originals dropped");

    // A 👍 on the replaced post counts for nothing and points to the live post.
    live.double.injectReaction({ chatId: OWNER, messageId: v1.review_message_id, userId: OWNER, newEmojis: ["👍"] });
    await eventually(
      () => repliesTo(live, v2.review_message_id).some((m) => m.text.includes("out of date")),
      10_000,
      "pointer to the live post",
    );
    expect(repliesTo(live, v2.review_message_id)[0]!.text).toMatch(
      /^⚠️ Not applied: that post is out of date\. Decide on the live post, version 2/,
    );
    expect((await draftRecord(d, v1.draft_id)).status).toBe("pending");
    expect(live.double.messages(GROUP)).toHaveLength(0);

    live.double.injectReaction({ chatId: OWNER, messageId: v2.review_message_id, userId: OWNER, newEmojis: ["👍"] });
    await eventually(() => live.double.messages(GROUP).length === 1, 10_000, "the kept text is sent");
    expect(live.double.messages(GROUP)[0]!.text).toBe(ORIGINAL);

    const audit = await auditLines(d.harnessDir);
    const edit = audit.filter((l) => l.kind === "transition" && l.event === "edit");
    expect(edit).toEqual([
      expect.objectContaining({
        draft_id: v1.draft_id,
        from: "pending",
        to: "queued",
        restored: true,
        draft_text: ORIGINAL,
        previous_text: REDACTED,
        text_version: 2,
        user_id: OWNER,
        channel: "button",
      }),
    ]);
    expect(audit.find((l) => l.to === "approved")).toMatchObject({ draft_text: ORIGINAL, text_version: 2 });
    expect(await readdir(join(d.harnessDir, "removed_items"))).toEqual([]);
    // The report counts a draft whose only edit kept the removed items as restored, not as edited.
    const report = jsonLine(await runBin(["report", "--json"], { cwd: d.cwd, env: { HARNESS_DIR: d.harnessDir } }));
    expect(report.roles.Scribe).toMatchObject({ drafts: 1, sent: 1, edited: 0, restored: 1 });
  });

  it("drops the originals once the draft is sent as it stands, and offers nothing after an ✏️ edit: a tap on the old post is refused", async ({
    live,
  }) => {
    const d = await live.start(FAST);
    const sent = await submitPending(d, payload(ORIGINAL, { originating_intent_id: "as-is" }));
    expect(await pathExists(keptFile(d, sent.draft_id))).toBe(true);
    live.double.injectReaction({ chatId: OWNER, messageId: sent.review_message_id, userId: OWNER, newEmojis: ["👍"] });
    await eventually(() => live.double.messages(GROUP).length === 1, 10_000, "sent redacted");
    expect(live.double.messages(GROUP)[0]!.text).toBe(REDACTED);
    await eventually(async () => !(await pathExists(keptFile(d, sent.draft_id))), 10_000, "originals dropped after the send");

    const v1 = await submitPending(d, payload(ORIGINAL, { originating_intent_id: "edited" }));
    live.double.injectMessage({
      chatId: OWNER,
      userId: OWNER,
      text: "✏️ Hi Anna, call me if anything changes. Thanks, Sam",
      replyToMessageId: v1.review_message_id,
    });
    const v2 = await repostedAfter(d, v1.draft_id, v1.review_message_id);
    expect(JSON.stringify(keyboard(live, v2.review_message_id))).not.toContain("Keep the removed items");
    await eventually(async () => !(await pathExists(keptFile(d, v1.draft_id))), 10_000, "originals dropped after the edit");
    tapKeep(live, v1.review_message_id, v1.draft_id);
    await eventually(() => live.double.answeredCallbacks().length === 1, 10_000, "the tap answered");
    expect(live.double.lastAnsweredCallback?.text).toBe("Not applied: this post is out of date. See the live post (linked in the chat).");
    await eventually(
      () => repliesTo(live, v2.review_message_id).some((m) => m.text.includes("out of date")),
      10_000,
      "pointer to the live post",
    );
    expect(await draftRecord(d, v1.draft_id)).toMatchObject({
      text_version: 2,
      draft_text: "Hi Anna, call me if anything changes. Thanks, Sam",
    });
    const refused = (await auditLines(d.harnessDir)).filter((l) => l.kind === "decision_refused");
    expect(refused.map((l) => l.reason)).toEqual(["not_live_post"]);
  });

  it("still restores after a restart between intake and the tap", async ({ live }) => {
    const d = await live.start(FAST);
    const v1 = await submitPending(d, payload(ORIGINAL));
    const again = await live.restart(FAST);
    tapKeep(live, v1.review_message_id, v1.draft_id);
    const v2 = await repostedAfter(again, v1.draft_id, v1.review_message_id);
    expect(v2).toMatchObject({ draft_text: ORIGINAL, text_version: 2 });
  });

  it("refuses a kept original edited in place (its own sha256 left as it was): it must redact to exactly what the post showed (issue 32, D4)", async ({
    live,
  }) => {
    const d = await live.start(FAST);
    const draft = await submitPending(d, payload(ORIGINAL, { originating_intent_id: "tampered" }));
    const kept = JSON.parse(await readFile(keptFile(d, draft.draft_id), "utf8"));
    // Another number and one more sentence: the label would still name the original items.
    const tampered = { ...kept, text: kept.text.replace(PHONE, "+61 499 999 999") + " Wire the deposit today." };
    await writeFile(keptFile(d, draft.draft_id), JSON.stringify(tampered), { mode: 0o600 });
    tapKeep(live, draft.review_message_id, draft.draft_id);
    await eventually(() => repliesTo(live, draft.review_message_id).length === 1, 10_000, "the answer");
    expect(repliesTo(live, draft.review_message_id)[0]!.text).toMatch(/^🔓 Not applied: the removed items are no longer kept/);
    expect(await draftRecord(d, draft.draft_id)).toMatchObject({ status: "pending", text_version: 1, draft_text: REDACTED });
    expect(live.double.messages(GROUP)).toHaveLength(0);
  });

  it("answers clearly when the kept originals are damaged or missing, and changes nothing", async ({ live }) => {
    const d = await live.start(FAST);
    const damaged = await submitPending(d, payload(ORIGINAL, { originating_intent_id: "damaged" }));
    const whole = await readFile(keptFile(d, damaged.draft_id), "utf8");
    await writeFile(keptFile(d, damaged.draft_id), whole.slice(0, 40));
    tapKeep(live, damaged.review_message_id, damaged.draft_id);
    await eventually(() => repliesTo(live, damaged.review_message_id).length === 1, 10_000, "the answer");
    expect(repliesTo(live, damaged.review_message_id)[0]!.text).toMatch(/^🔓 Not applied: the removed items are no longer kept/);
    await eventually(() => live.double.answeredCallbacks().length === 1, 10_000, "the tap answered");
    expect(live.double.lastAnsweredCallback?.text).toBe("Not applied: the removed items are no longer kept (see the chat).");

    // Another draft's originals copied over this one's: not this draft's text, never restored.
    const other = await submitPending(d, payload(`Mail ${EMAIL}, please.`, { originating_intent_id: "swapped" }));
    await writeFile(keptFile(d, damaged.draft_id), await readFile(keptFile(d, other.draft_id), "utf8"));
    tapKeep(live, damaged.review_message_id, damaged.draft_id);
    await eventually(() => repliesTo(live, damaged.review_message_id).length === 2, 10_000, "the second answer");
    await d.stop("SIGKILL");
    const missing = await live.start(FAST, { dirs: { cwd: d.cwd, harnessDir: d.harnessDir } });
    await rm(keptFile(missing, other.draft_id));
    tapKeep(live, other.review_message_id, other.draft_id);
    await eventually(() => repliesTo(live, other.review_message_id).length === 1, 10_000, "the answer about the missing file");
    expect(repliesTo(live, other.review_message_id)[0]!.text).toMatch(/^🔓 Not applied: the removed items are no longer kept/);

    // A removed_items that is no directory: the draft is still taken (as redacted), and the button says the items are gone.
    await rm(join(missing.harnessDir, "removed_items"), { recursive: true });
    await writeFile(join(missing.harnessDir, "removed_items"), "not a directory", { mode: 0o600 });
    const unkept = await submitPending(missing, payload(`Ring ${PHONE}.`, { originating_intent_id: "unkept" }));
    await missing.waitForLog((l) => l.msg === "could not keep the removed items of a redacted draft; 🔓 will say they are gone");
    tapKeep(live, unkept.review_message_id, unkept.draft_id);
    await eventually(() => repliesTo(live, unkept.review_message_id).length === 1, 10_000, "the answer about the unkept items");
    expect(repliesTo(live, unkept.review_message_id)[0]!.text).toMatch(/^🔓 Not applied: the removed items are no longer kept/);

    for (const id of [damaged.draft_id, other.draft_id, unkept.draft_id])
      expect(await draftRecord(missing, id)).toMatchObject({ status: "pending", text_version: 1 });
    expect((await auditLines(missing.harnessDir)).filter((l) => l.event === "edit")).toEqual([]);
    expect(missing.logs.find((l) => l.msg === "the removed items of a draft cannot be put back")).toMatchObject({
      draft_id: other.draft_id,
    });
  });
});
