import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { eventually, type DaemonProcess } from "../support/daemon-process.js";
import { auditLines, GROUP, OWNER, payload, liveTest, type LiveDaemonFixture } from "../support/live-fixture.js";

/**
 * Issue 32, deliverable 5: a decision on a post Telegram has just accepted,
 * before the daemon has its id, counts; it is never refused as unknown.
 */

// Each test has a Bot API double and daemons of its own, and the tests run at once: most of each is waiting on the real clock.
const it = liveTest();

type Rec = Record<string, any>;

async function get(d: DaemonProcess, id: string): Promise<Rec> {
  return (await d.request("GET", `/drafts/${id}`)).body;
}

describe.concurrent("a decision the moment the post appears", () => {
  it("a 👍 delivered before Telegram's answer to the post's sendMessage waits for its id and approves", async ({ live }) => {
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

/** How far along the send path a status is (the API must never be behind the store file). */
const RANK: Record<string, number> = { queued: 0, pending: 1, approved: 2, sending: 3, sent: 4 };

/** The status the store file gives the draft now (its last whole line for it: one being appended is not there yet). */
async function fileStatus(harnessDir: string, draftId: string): Promise<string> {
  const text = await readFile(join(harnessDir, "telegram_drafts.jsonl"), "utf8");
  const lines = text
    .slice(0, text.lastIndexOf("\n") + 1)
    .split("\n")
    .filter(Boolean);
  return lines
    .map((l) => JSON.parse(l) as Rec)
    .filter((r) => r.draft_id === draftId)
    .at(-1)?.status;
}

describe.concurrent("GET /drafts/<id> and the store file", () => {
  it("while a send is in flight, the API never answers an older status than the file said just before", async ({ live }) => {
    await live.start({ UNDO_WINDOW: "0" });
    const res = await live.daemon.request("POST", "/drafts", payload("Polled all the way", { destination_chat_id: String(GROUP) }));
    const id = res.body.draft_id as string;
    await eventually(async () => (await get(live.daemon, id)).status === "pending", 10_000, "posted");
    live.double.delayNext("sendMessage", 1_500);
    live.double.injectReaction({ chatId: OWNER, messageId: res.body.review_message_id, userId: OWNER, newEmojis: ["👍"] });
    const seen = new Set<string>();
    for (let api = ""; api !== "sent"; ) {
      const file = await fileStatus(live.daemon.harnessDir, id);
      api = (await get(live.daemon, id)).status;
      seen.add(`${file}->${api}`);
      expect(RANK[api], `the file said ${file}, then the API ${api}`).toBeGreaterThanOrEqual(RANK[file]!);
    }
    expect([...seen].some((s) => s.startsWith("sending"))).toBe(true);
  }, 60_000);
});

const FAST = { TELEGRAM_RATE_SCALE: "20" };

/**
 * Starts a daemon, submits one draft and kills the daemon the moment Telegram accepted its review post,
 * before the daemon heard the post's id; then starts it again on the same files. Returns the draft's id,
 * the orphaned post, and the post it was made again as.
 */
async function orphanedPost(live: LiveDaemonFixture, text: string): Promise<{ id: string; orphan: number; post: number }> {
  const first = await live.start(FAST);
  let orphan = 0;
  live.double.answerWhen("sendMessage", async (result) => {
    orphan = (result as { message_id: number }).message_id;
    await first.stop("SIGKILL");
  });
  await first.request("POST", "/drafts", payload(text)).catch(() => undefined);
  await first.exited;
  const buttons = JSON.stringify(live.double.message(OWNER, orphan)?.reply_markup ?? {});
  const id = /v1:send:([A-Za-z0-9_-]+)/.exec(buttons)![1]!;
  const again = await live.start(FAST, { dirs: { cwd: first.cwd, harnessDir: first.harnessDir } });
  const rec = await eventually(
    async () => {
      const r = await get(again, id);
      return r.status === "pending" && r.review_message_id !== orphan ? r : null;
    },
    20_000,
    "the draft posted again after the restart",
  );
  return { id, orphan, post: rec.review_message_id };
}

const repliesTo = (live: LiveDaemonFixture, id: number) => live.double.messages(OWNER).filter((m) => m.replyToMessageId === id);

describe.concurrent("a review post Telegram accepted just before a crash", () => {
  it("a reply note on it is matched to its draft (through its buttons) and sends it back with the note", async ({ live }) => {
    const { id, orphan } = await orphanedPost(live, "Seen before the crash");
    live.double.injectMessage({ chatId: OWNER, userId: OWNER, text: "Shorter, please", replyToMessageId: orphan });
    const rec = await eventually(async () => {
      const r = await get(live.daemon, id);
      return r.status === "revise" ? r : null;
    }, 20_000);
    expect(rec.revision_note).toBe("Shorter, please");
    const refused = (await auditLines(live.daemon.harnessDir)).filter((l) => l.kind === "decision_refused");
    expect(refused).toEqual([]);
  }, 90_000);

  it("once the draft has a newer version, a reply on it is refused as a replaced post is and answered with the way to the live post", async ({
    live,
  }) => {
    const { id, orphan, post } = await orphanedPost(live, "Seen before the crash, then edited");
    live.double.injectMessage({ chatId: OWNER, userId: OWNER, text: "✏️ Edited after the crash", replyToMessageId: post });
    const v2 = await eventually(async () => {
      const r = await get(live.daemon, id);
      return r.status === "pending" && r.text_version === 2 && r.review_message_id !== post ? r : null;
    }, 20_000);
    live.double.injectMessage({ chatId: OWNER, userId: OWNER, text: "👍", replyToMessageId: orphan });
    await eventually(() => repliesTo(live, v2.review_message_id).length > 0, 20_000, "the answer on the live post");
    expect(repliesTo(live, v2.review_message_id)[0]!.text).toContain("Decide on the live post, version 2");
    expect((await get(live.daemon, id)).status).toBe("pending");
    const refused = (await auditLines(live.daemon.harnessDir)).filter((l) => l.kind === "decision_refused");
    expect(refused.map((l) => l.reason)).toEqual(["not_live_post"]);
    // A reaction carries only the message id: it is answered too, never silent.
    live.double.injectReaction({ chatId: OWNER, messageId: orphan, userId: OWNER, newEmojis: ["👍"] });
    await eventually(() => live.double.messages(OWNER).some((m) => m.text.includes("not a live review post")), 20_000);
  }, 90_000);
});
