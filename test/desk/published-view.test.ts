import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { AuditEntry } from "../../src/audit/audit-schema.js";
import { auditEventFeed } from "../../src/desk/event-feed.js";
import { openTestCore, REVIEWER, submitPosted, type TestCore } from "../support/core.js";

let t: TestCore | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

/** The status the store file gives the draft now (its last line). */
async function fileStatus(dir: string, draftId: string): Promise<string | undefined> {
  const lines = (await readFile(join(dir, "telegram_drafts.jsonl"), "utf8")).split("\n").filter(Boolean);
  return lines
    .map((l) => JSON.parse(l) as { draft_id: string; status: string })
    .filter((r) => r.draft_id === draftId)
    .at(-1)?.status;
}

/** Holds the audit line of the next change to `to` until `release` is called: the store file has the change, the feed not yet. */
function holdAuditOf(core: TestCore["core"], to: string): { release: () => void } {
  let release = (): void => {};
  const gate = new Promise<void>((r) => (release = r));
  const append = core.audit.append.bind(core.audit);
  core.audit.append = async (entries: readonly AuditEntry[]) => {
    if (entries.some((e) => e.kind === "transition" && e.to === to)) await gate;
    return append(entries);
  };
  return { release };
}

describe("the API's view of a draft (issue 32, deliverable 5)", () => {
  it("never answers an older status than the store file: a read during a change waits for it, and its event is in the feed", async () => {
    t = await openTestCore();
    const d = await submitPosted(t, "defer me");
    const held = holdAuditOf(t.core, "deferred");
    const decided = t.core.desk.decide({
      reviewChatId: d.review_chat_id!,
      reviewMessageId: d.review_message_id!,
      decision: "defer",
      actor: { user_id: REVIEWER, channel: "reaction", emoji: "😴", update_id: 5 },
    });
    // The store's write is done (its line is in the file); the audit line waits at the gate.
    for (let i = 0; (await fileStatus(t.dir, d.draft_id)) !== "deferred"; i++) {
      if (i > 2_000) throw new Error("the store file never showed the change");
      await new Promise((r) => setImmediate(r));
    }
    const found = t.core.desk.find(d.draft_id);
    const listed = t.core.desk.committed().then(() => t!.core.desk.list("deferred").map((x) => x.draft_id));
    held.release();
    expect((await found)?.status).toBe("deferred");
    expect(await listed).toEqual([d.draft_id]);
    expect((await decided).ok).toBe(true);
    const feed = auditEventFeed(t.core.audit);
    expect((await feed.after(0, 100)).events.map((e) => e.to)).toContain("deferred");
  });
});
