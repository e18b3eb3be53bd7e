/**
 * A reaction, reply or button on the review post of a draft that has moved to
 * archive/ (DRAFT_RETENTION): never a decision, always audited with the draft
 * (read from archive/, through the catalog's message-id keys: no history in
 * memory), and a reviewer is answered in the review chat, as other refusals
 * are. Through the real daemon against the Bot API double.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TelegramDouble } from "../telegram-double/index.js";
import { eventually, type DaemonProcess } from "../support/daemon-process.js";
import { auditLines, liveDaemon, liveDouble, OWNER, payload, STRANGER } from "../support/live-fixture.js";
import { figures } from "./support/hostile-kit.js";

const ENV = { DRAFT_RETENTION: "1s", TELEGRAM_RATE_SCALE: "50" };
const ANSWER = "⚠️ Not applied: this draft is archived";

let double: TelegramDouble;
let daemon: DaemonProcess;
let draftId: string;
let post: number;

beforeAll(async () => {
  double = await liveDouble();
  daemon = await liveDaemon(double, ENV);
  const res = await daemon.request("POST", "/drafts", payload("Sent, then archived"));
  expect(res.status).toBe(201);
  draftId = res.body.draft_id;
  post = res.body.review_message_id;
  double.injectReaction({ chatId: OWNER, messageId: post, userId: OWNER, newEmojis: ["👍"] });
  const sentAt = await eventually(async () => {
    const r = (await daemon.request("GET", `/drafts/${draftId}`)).body;
    return r.status === "sent" ? Date.parse(r.updated_at) : null;
  });
  const dirs = { cwd: daemon.cwd, harnessDir: daemon.harnessDir };
  expect(await daemon.stop("SIGTERM")).toBe(0);
  // The next start finds it past DRAFT_RETENTION and archives it.
  const due = sentAt + 1_100 - Date.now();
  if (due > 0) await new Promise((r) => setTimeout(r, due));
  daemon = await liveDaemon(double, ENV, dirs);
  await daemon.waitForLog((l) => l.msg === "archived final drafts older than DRAFT_RETENTION");
  expect((await daemon.request("GET", "/drafts")).body.drafts).toEqual([]);
  expect((await daemon.request("GET", `/drafts/${draftId}`)).body.status).toBe("sent");
});

afterAll(async () => {
  await daemon?.stop("SIGKILL");
  await double.stop();
});

/** The refusal audited for `updateId`, once it is there. */
async function refusalOf(updateId: number): Promise<Record<string, any>> {
  return eventually(
    async () => (await auditLines(daemon.harnessDir)).find((l) => l.kind === "decision_refused" && l.update_id === updateId),
    10_000,
    `refusal of update ${updateId}`,
  );
}

/** Answers the bot gave in the review chat that reply to the archived draft's post. */
function answers(): string[] {
  return double
    .messages(OWNER)
    .filter((m) => m.text.startsWith(ANSWER))
    .map((m) => m.text);
}

describe("the review post of an archived draft", () => {
  it("a reviewer's 👍, a reply and a stranger's 👍 are refused, audited with the draft, and the reviewer is answered", async () => {
    const t0 = performance.now();
    const sendsBefore = double.calls("sendMessage").length;
    const thumbs = double.injectReaction({ chatId: OWNER, messageId: post, userId: OWNER, oldEmojis: ["👍"], newEmojis: ["👍", "😴"] });
    const a = await refusalOf(thumbs.update.update_id);
    expect(a).toMatchObject({ reason: "archived", draft_id: draftId, review_message_id: post });
    expect(JSON.stringify(a)).toContain("Sent, then archived");
    await eventually(() => answers().length === 1, 10_000, "the answer in the review chat");
    expect(answers()[0]).toMatch(/archived \(sent \d{4}-\d{2}-\d{2} \d{2}:\d{2}, older than DRAFT_RETENTION\)/);

    const reply = double.injectMessage({ chatId: OWNER, userId: OWNER, text: "Margot: one more change", replyToMessageId: post });
    expect(await refusalOf(reply.update.update_id)).toMatchObject({ reason: "archived", draft_id: draftId });
    await eventually(() => answers().length === 2, 10_000, "the second answer");

    const stranger = double.injectReaction({ chatId: OWNER, messageId: post, userId: STRANGER, newEmojis: ["👍"] });
    expect(await refusalOf(stranger.update.update_id)).toMatchObject({ reason: "not_a_reviewer" });

    // Nothing was decided: the record is unchanged and nothing went to the destination.
    expect((await daemon.request("GET", `/drafts/${draftId}`)).body).toMatchObject({ status: "sent" });
    const destinationSends = double
      .calls("sendMessage")
      .slice(sendsBefore)
      .filter((c) => String((c.params as any).chat_id) !== String(OWNER));
    expect(destinationSends).toEqual([]);
    figures("archived-post", { refusals: 3, answers: answers().length, seconds: Number(((performance.now() - t0) / 1000).toFixed(1)) });
  });
});
