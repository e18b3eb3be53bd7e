/**
 * Issue 28 point 3, through the real daemon and the Bot API double: a damaged
 * last line of the update journal (updates.jsonl) is cut off at start; when
 * it held a tap Telegram had already confirmed (it will never deliver it
 * again), the review chat is told which draft and that the owner may need to
 * decide again, and the log names the journal and says what is true. An
 * interrupted write (an unterminated last line) costs nothing and says so.
 */
import { appendFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { harnessPaths } from "../../src/app/paths.js";
import { encodeLine } from "../../src/store/line-codec.js";
import type { Injected } from "../telegram-double/inject.js";
import { freshDirs } from "../support/daemon-process.js";
import { draftRecord, OWNER, payload, submitPending, useLiveDaemon } from "../support/live-fixture.js";

const live = useLiveDaemon();

/** Telegram confirms the update as a getUpdates past it does (the daemon's next poll did so before the stop). */
async function confirm(updateId: number): Promise<void> {
  const res = await fetch(`${live.double.url}/bot${live.double.token}/getUpdates`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ offset: updateId + 1, timeout: 0, allowed_updates: live.double.allowedUpdates }),
  });
  expect(res.status).toBe(200);
}

/** A daemon with one pending draft, stopped, and a 👍 on its post that Telegram holds. */
async function pendingWithTap(): Promise<{ dirs: { cwd: string; harnessDir: string }; draftId: string; tap: Injected }> {
  const dirs = await freshDirs();
  const d = await live.start({}, { dirs });
  const draft = await submitPending(d, payload("Decided, then the journal broke"));
  await d.stop("SIGTERM");
  const tap = live.double.injectReaction({ chatId: OWNER, messageId: draft.review_message_id, userId: OWNER, newEmojis: ["👍"] });
  expect(tap.queued).toBe(true);
  return { dirs, draftId: draft.draft_id, tap };
}

/** The journal line the daemon wrote for a fetched update (received, with its body). */
function journalLine(tap: Injected): string {
  const id = tap.update.update_id;
  return encodeLine({ draft_id: `u${id}`, update_id: id, state: "received", update: tap.update });
}

const told = (from: number) =>
  live.double
    .messages(OWNER)
    .slice(from)
    .filter((m) => m.text.startsWith("⚠️ A decision of yours may not have been applied"));

describe("a damaged last line of the update journal", () => {
  it("held a tap Telegram had confirmed: the review chat names the draft and asks to decide again; the log names the journal", async () => {
    const { dirs, draftId, tap } = await pendingWithTap();
    await confirm(tap.update.update_id);
    // The line the journal had for it, damaged after it was written: one byte of the text changed, the id still readable.
    const line = journalLine(tap);
    await appendFile(harnessPaths(dirs.harnessDir).updates, line.replace('"received"', '"receivex"'));
    const before = live.double.messages(OWNER).length;
    const d = await live.start({}, { dirs });
    const journalPath = harnessPaths(dirs.harnessDir).updates;
    const cutLog = await d.waitForLog((l) => String(l.msg).startsWith("the update journal's last line was damaged after it was written"));
    expect(cutLog).toMatchObject({ path: journalPath, update_ids: [tap.update.update_id] });
    expect(d.logs.some((l) => String(l.msg).includes("draft store"))).toBe(false);
    await d.waitForLog((l) => String(l.msg).startsWith("the update journal's damaged last line held a tap Telegram had already confirmed"));
    const [message] = await waitTold(before);
    expect(message!.text).toContain("The update journal (updates.jsonl) had a damaged last line, cut off at this start.");
    expect(message!.text).toContain("It held a tap Telegram had already confirmed, so Telegram will not deliver it again");
    expect(message!.text).toContain("It was about:\n• Scribe → Destination: “Decided, then the journal broke” (pending)");
    expect(message!.text).toContain("If you had decided, decide again.");
    expect(message!.text).not.toContain(draftId);
    expect((await draftRecord(d, draftId)).status).toBe("pending");
    // Once: a restart right after says nothing more (the line is gone from the journal).
    const d2 = await live.restart();
    await d2.waitForLog((l) => l.msg === "draft-review is running");
    expect(told(before)).toHaveLength(1);
  });

  it("garbled beyond reading while Telegram no longer has what came after: told it may be lost, with the drafts awaiting a decision", async () => {
    const { dirs, tap } = await pendingWithTap();
    await confirm(tap.update.update_id);
    await appendFile(harnessPaths(dirs.harnessDir).updates, `${"#".repeat(journalLine(tap).length - 1)}\n`);
    const before = live.double.messages(OWNER).length;
    const d = await live.start({}, { dirs });
    await d.waitForLog((l) => String(l.msg).startsWith("the update journal's damaged last line could not be read"));
    const [message] = await waitTold(before);
    expect(message!.text).toContain("a tap made just before the stop may be lost");
    expect(message!.text).toContain(
      "It may have been about one of the drafts awaiting a decision:\n• Scribe → Destination: “Decided, then the journal broke”",
    );
  });

  it("held a tap Telegram had not confirmed: it is delivered again and applied; nothing is said in the chat", async () => {
    const { dirs, draftId, tap } = await pendingWithTap();
    await appendFile(harnessPaths(dirs.harnessDir).updates, journalLine(tap).replace('"received"', '"receivex"'));
    const before = live.double.messages(OWNER).length;
    const d = await live.start({}, { dirs });
    await d.waitForLog((l) => String(l.msg).startsWith("the update journal's cut end cost no decision"));
    expect((await draftRecord(d, draftId)).status).not.toBe("pending");
    expect(told(before)).toEqual([]);
  });

  it("an interrupted write (an unterminated last line) costs nothing, and the log says so", async () => {
    const { dirs, tap } = await pendingWithTap();
    await appendFile(harnessPaths(dirs.harnessDir).updates, journalLine(tap).slice(0, 30));
    const before = live.double.messages(OWNER).length;
    const d = await live.start({}, { dirs });
    await d.waitForLog((l) => String(l.msg).startsWith("the update journal ended in an interrupted write"));
    await d.waitForLog((l) => String(l.msg).startsWith("the update journal's cut end cost no decision: an interrupted write"));
    expect(told(before)).toEqual([]);
  });
});

function waitTold(from: number): Promise<ReturnType<typeof told>> {
  return live
    .reviewChatMessage(from, (t) => t.startsWith("⚠️ A decision of yours may not have been applied"), "the lost-decision message")
    .then(() => told(from));
}
