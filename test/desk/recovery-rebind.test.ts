import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { sendIdentity } from "../../src/drafts/audience.js";
import type { DraftRecord } from "../../src/drafts/record.js";
import { shownOfDraft } from "../../src/desk/surfaces.js";
import { openTestCore, REVIEWER, submitPosted, type TestCore } from "../support/core.js";

// Issue 25 (the reviewer's point 2): after an upgrade, a post whose surface the previous version recorded with
// a sender identity in its older format (before `>id` for a reply, before `owner:<user>:…`) takes decisions again:
// the start re-shows it (an edit), which binds it to what it shows now. Real files, the real desk, test mode's chat.

let t: TestCore | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const actor = { user_id: REVIEWER, channel: "test" as const, emoji: "👍", update_id: null };
const approve = (core: TestCore, d: DraftRecord) =>
  core.core.desk.decide({ reviewChatId: d.review_chat_id!, reviewMessageId: d.review_message_id!, decision: "send", actor });

/** The post's surface line as the previous version wrote it: the same draft, text version and audience, `identity` in the old format. */
async function recordedByPreviousVersion(core: TestCore, d: DraftRecord, identity: string): Promise<void> {
  const where = { chatId: d.review_chat_id!, messageId: d.review_message_id! };
  await core.core.desk.decisionSurfaces.record("decide", where, { ...shownOfDraft(d), identity });
}

const surfaceOf = (core: TestCore, d: DraftRecord) => core.core.desk.decisionSurfaces.at(d.review_chat_id!, d.review_message_id!);

describe("a post whose surface has an old-format identity, at start", () => {
  it("a reply's post recorded as `bot` (no `>id`) is re-shown and bound again: a 👍 on it counts", async () => {
    t = await openTestCore();
    const d = await submitPosted(t, "Yes, Thursday works", { reply_to_message_id: 4711 });
    expect(sendIdentity(d)).toBe("bot>4711");
    await recordedByPreviousVersion(t, d, "bot");
    // What the upgrade left: nothing on the post counts, and the answer points to this same post.
    const before = await approve(t, d);
    expect(before).toMatchObject({ ok: false, reason: "outdated_identity" });

    t = await t.reopen();
    expect(surfaceOf(t, d)).toMatchObject({ identity: "bot>4711", text_version: d.text_version, used: false });
    // The edit that re-bound it is done (its `status_shown`), for the draft as it is.
    expect(t.core.audit.index.statusEditOwed(d.draft_id)).toBe(false);
    const after = await approve(t, d);
    expect(after.ok).toBe(true);
    await t.core.desk.settle();
    expect(t.sends.map((s) => s.text)).toEqual(["Yes, Thursday works"]);
  });

  it("a post that showed another text version is left as it is (its own edit is what re-shows it)", async () => {
    t = await openTestCore();
    const d = await submitPosted(t, "Yes, Friday works", { reply_to_message_id: 4712 });
    const where = { chatId: d.review_chat_id!, messageId: d.review_message_id! };
    await t.core.desk.decisionSurfaces.record("decide", where, { ...shownOfDraft(d), identity: "bot", text_version: d.text_version + 1 });
    t = await t.reopen();
    expect(surfaceOf(t, d)).toMatchObject({ identity: "bot", text_version: d.text_version + 1 });
    expect(await approve(t, d)).toMatchObject({ ok: false, reason: "outdated_version" });
  });

  it("a post already bound to the draft's identity is not edited at start", async () => {
    t = await openTestCore();
    const d = await submitPosted(t, "Yes, Monday works", { reply_to_message_id: 4713 });
    const lines = async () => (await readFile(join(t!.dir, "swarm.jsonl"), "utf8")).split("\n").filter((l) => l.includes('"surface"'));
    const before = await lines();
    t = await t.reopen();
    expect(await lines()).toEqual(before);
    expect(surfaceOf(t, d)).toMatchObject({ identity: "bot>4713" });
  });
});
