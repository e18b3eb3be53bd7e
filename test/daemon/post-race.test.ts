import { describe, expect, it } from "vitest";
import { eventually, type DaemonProcess } from "../support/daemon-process.js";
import { auditLines, OWNER, payload, useLiveDaemon } from "../support/live-fixture.js";

/**
 * Issue 32, deliverable 5: a decision on a post Telegram has just accepted,
 * before the daemon has its id, counts; it is never refused as unknown.
 */

const live = useLiveDaemon();

type Rec = Record<string, any>;

async function get(d: DaemonProcess, id: string): Promise<Rec> {
  return (await d.request("GET", `/drafts/${id}`)).body;
}

describe("a decision the moment the post appears", () => {
  it("a 👍 delivered before Telegram's answer to the post's sendMessage waits for its id and approves", async () => {
    await live.start({ UNDO_WINDOW: "1h" });
    let reaction = 0;
    // Telegram has the post and gives the owner's 👍 on it to the daemon; only then does the daemon hear its id.
    live.double.answerWhen("sendMessage", async (result) => {
      const messageId = (result as { message_id: number }).message_id;
      reaction = live.double.injectReaction({ chatId: OWNER, messageId, userId: OWNER, newEmojis: ["👍"] }).update.update_id;
      await eventually(() => live.double.deliveredUpdateIds().includes(reaction), 20_000, "the 👍 delivered to the daemon");
    });
    const res = await live.daemon.request("POST", "/drafts", payload("Approved at first sight"));
    expect(res.status).toBe(201);
    const id = res.body.draft_id as string;
    await eventually(async () => (await get(live.daemon, id)).status === "approved", 20_000, "the 👍 approves");
    const lines = await auditLines(live.daemon.harnessDir);
    expect(lines.filter((l) => l.kind === "decision_refused")).toEqual([]);
  }, 60_000);
});
