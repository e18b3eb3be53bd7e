import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { eventually, type DaemonProcess } from "../support/daemon-process.js";
import { auditLines, FRIEND, GROUP, OWNER, payload, STRANGER, liveTest, type LiveDaemonFixture } from "../support/live-fixture.js";

// Each test has a Bot API double and daemons of its own, and the tests run at once: most of each is waiting on the real clock.
const it = liveTest();

async function submit(d: DaemonProcess, text: string, extra: Record<string, unknown> = {}) {
  const res = await d.request("POST", "/drafts", payload(text, extra));
  expect(res.status).toBe(201);
  return res.body as { draft_id: string; review_message_id: number | null; status: string };
}

/** Submits and waits until the review post is out (the review chat allows one post a second). */
async function submitPosted(d: DaemonProcess, text: string, extra: Record<string, unknown> = {}) {
  const queued = await submit(d, text, extra);
  return eventually(async () => {
    const rec = (await d.request("GET", `/drafts/${queued.draft_id}`)).body;
    return rec.status === "pending" ? (rec as { draft_id: string; review_message_id: number; status: string }) : null;
  });
}

async function statusOf(d: DaemonProcess, id: string): Promise<string> {
  return (await d.request("GET", `/drafts/${id}`)).body.status;
}

const toGroup = (live: LiveDaemonFixture) => live.double.messages(GROUP);

describe.concurrent("live daemon against the Bot API double", () => {
  it("posts a draft for review, sends it on the owner's 👍 and shows the outcome", async ({ live }) => {
    await live.start();
    const text = "Hi team — *not bold*, <b>not html</b>, [not a link](x) _as is_ 🙂";
    const answer = await submit(live.daemon, text);
    expect(answer).toMatchObject({ status: "pending", review_message_id: expect.any(Number) });

    const [post] = live.double.messages(OWNER);
    expect(post!.messageId).toBe(answer.review_message_id);
    expect(post!.parseMode).toBeUndefined();
    expect(post!.text).toContain("✏️ DRAFT (Scribe) — for 👥 “Destination” · supergroup · 1 member");
    expect(post!.text).toContain(`\n${text}\n`);
    expect(JSON.stringify(post!.replyMarkup)).toContain("👍 Send");
    expect(live.double.allowedUpdates).toEqual([
      "message",
      "callback_query",
      "message_reaction",
      "business_connection",
      "business_message",
    ]);

    live.double.injectReaction({ chatId: OWNER, messageId: answer.review_message_id!, userId: OWNER, newEmojis: ["👍"] });
    await eventually(() => toGroup(live).length === 1, 10_000, "the draft reaches the group");
    expect(toGroup(live)[0]!.text).toBe(text);
    expect(toGroup(live)[0]!.parseMode).toBeUndefined();
    await eventually(async () => (await statusOf(live.daemon, answer.draft_id)) === "sent");

    await eventually(
      () => live.double.message(OWNER, answer.review_message_id!)?.text?.startsWith("✅ Sent at"),
      10_000,
      "review message edited",
    );
    expect(live.double.message(OWNER, answer.review_message_id!)?.reply_markup?.inline_keyboard ?? []).toEqual([]);
    const audit = await auditLines(live.daemon.harnessDir);
    const path = audit.filter((l) => l.kind === "transition" && l.draft_id === answer.draft_id).map((l) => l.to);
    expect(path).toEqual(["queued", "pending", "approved", "sending", "sent"]);
    expect(audit.find((l) => l.to === "approved")).toMatchObject({ emoji: "👍", user_id: OWNER, channel: "reaction", draft_text: text });
  });

  it("ignores and audits decisions by strangers, anonymous admins and other chats", async ({ live }) => {
    await live.start();
    const a = await submit(live.daemon, "Only the owner decides");
    const id = a.review_message_id!;
    live.double.injectReaction({ chatId: OWNER, messageId: id, userId: STRANGER, newEmojis: ["👍"] });
    live.double.injectReaction({ chatId: OWNER, messageId: id, actorChat: GROUP, newEmojis: ["👍"] });
    live.double.injectReaction({ chatId: STRANGER, messageId: id, userId: OWNER, newEmojis: ["👍"] });
    live.double.injectMessage({ chatId: OWNER, userId: STRANGER, text: "👍", replyToMessageId: id, username: "owner" });
    await eventually(async () => (await auditLines(live.daemon.harnessDir)).filter((l) => l.kind === "decision_refused").length === 4);
    const refused = (await auditLines(live.daemon.harnessDir)).filter((l) => l.kind === "decision_refused").map((l) => l.reason);
    expect(refused.sort()).toEqual(["anonymous_actor", "not_a_reviewer", "not_a_reviewer", "other_chat"]);
    expect(await statusOf(live.daemon, a.draft_id)).toBe("pending");
    expect(toGroup(live)).toHaveLength(0);
  });

  it("takes decisions from buttons and answers every callback", async ({ live }) => {
    await live.start();
    const a = await submitPosted(live.daemon, "Button me");
    const b = await submitPosted(live.daemon, "Other draft");
    // A button whose data names another draft than the message it sits under does not count.
    live.double.injectCallback({ chatId: OWNER, messageId: a.review_message_id!, userId: OWNER, data: `v1:send:${b.draft_id}` });
    await eventually(() => live.double.answeredCallbacks().length === 1);
    expect(await statusOf(live.daemon, a.draft_id)).toBe("pending");
    live.double.injectCallback({ chatId: OWNER, messageId: a.review_message_id!, userId: STRANGER, data: `v1:send:${a.draft_id}` });
    live.double.injectCallback({ chatId: OWNER, messageId: a.review_message_id!, userId: OWNER, data: `v1:send:${a.draft_id}` });
    await eventually(() => toGroup(live).length === 1, 10_000, "sent by button");
    await eventually(() => live.double.answeredCallbacks().length === 3);
    expect(live.double.answeredCallbacks().map((c) => c.text)).toEqual([
      "Not applied: the draft is pending.",
      "Only the reviewer can decide on drafts.",
      "Approved.",
    ]);
  });

  it("reads replies: free text asks for a revision with the note, ⏳ defers", async ({ live }) => {
    await live.start({ DEFER_FOR: "1h" });
    const a = await submitPosted(live.daemon, "Revise me");
    const b = await submitPosted(live.daemon, "Defer me");
    live.double.injectMessage({
      chatId: OWNER,
      userId: OWNER,
      text: "Make it warmer, mention Friday",
      replyToMessageId: a.review_message_id!,
    });
    live.double.injectMessage({ chatId: OWNER, userId: OWNER, text: "⏳", replyToMessageId: b.review_message_id! });
    await eventually(async () => (await statusOf(live.daemon, a.draft_id)) === "revise");
    await eventually(async () => (await statusOf(live.daemon, b.draft_id)) === "deferred");
    const revised = (await live.daemon.request("GET", `/drafts/${a.draft_id}`)).body;
    expect(revised.revision_note).toBe("Make it warmer, mention Friday");
    const deferred = (await live.daemon.request("GET", `/drafts/${b.draft_id}`)).body;
    expect(Date.parse(deferred.expires_at) - Date.parse(deferred.drafted_at)).toBe(25 * 3_600_000);
    expect(toGroup(live)).toHaveLength(0);
  });

  it("expires an unanswered draft and never sends it", async ({ live }) => {
    await live.start({ DRAFT_TTL: "1s" });
    const a = await submit(live.daemon, "Too late");
    await eventually(async () => (await statusOf(live.daemon, a.draft_id)) === "expired", 10_000);
    live.double.injectReaction({ chatId: OWNER, messageId: a.review_message_id!, userId: OWNER, newEmojis: ["👍"] });
    await eventually(async () =>
      (await auditLines(live.daemon.harnessDir)).some((l) => l.kind === "decision_refused" && l.reason === "final_state"),
    );
    expect(toGroup(live)).toHaveLength(0);
  });

  it("halts an approval when .env flips the kill switch, and sends only after a new approval", async ({ live }) => {
    await live.start();
    const envPath = join(live.daemon.cwd, ".env");
    await writeFile(envPath, "TAO_SWARM_ENABLED=0\n");
    const a = await submit(live.daemon, "Hold it");
    live.double.injectReaction({ chatId: OWNER, messageId: a.review_message_id!, userId: OWNER, newEmojis: ["👍"] });
    await eventually(async () => (await statusOf(live.daemon, a.draft_id)) === "halted");
    await writeFile(envPath, "TAO_SWARM_ENABLED=1\n");
    // The daemon records the halt's end when it sees it (a look each second, or the file watch); a 👍 before
    // that is judged against a halt still lasting, and held again (fail closed). Approve once it is seen.
    await eventually(
      async () => {
        const record = await readFile(join(live.daemon.harnessDir, "halt_record.json"), "utf8").catch(() => "{}");
        return (JSON.parse(record) as { ended_at?: string | null }).ended_at != null;
      },
      10_000,
      "the halt's end recorded",
    );
    live.double.injectReaction({ chatId: OWNER, messageId: a.review_message_id!, userId: OWNER, oldEmojis: ["👍"], newEmojis: [] });
    live.double.injectReaction({ chatId: OWNER, messageId: a.review_message_id!, userId: OWNER, oldEmojis: [], newEmojis: ["👍"] });
    await eventually(() => toGroup(live).length === 1, 10_000, "sent after re-approval");
    await eventually(async () => (await statusOf(live.daemon, a.draft_id)) === "sent");
    // Every send is audited as `sending` before the call: one, and only after the new approval,
    // so turning the switch back on sent nothing by itself. The 👍 made while halted was halted at
    // once (contract v4); the halt's end gave its 👍 back (halted -> halted), unless the new 👍 came first.
    const path = (await auditLines(live.daemon.harnessDir))
      .filter((l) => l.kind === "transition" && l.draft_id === a.draft_id)
      .map((l) => l.to);
    expect(path.slice(0, 3)).toEqual(["queued", "pending", "halted"]);
    expect(path.slice(-3)).toEqual(["approved", "sending", "sent"]);
    expect(path.slice(3, -3).every((s) => s === "halted")).toBe(true);
    expect(toGroup(live)).toHaveLength(1);
  });

  it("fails a draft Telegram refuses (403), with the reason", async ({ live }) => {
    live.double.addChat({ id: FRIEND, type: "private", blocked: true });
    await live.start();
    const a = await submit(live.daemon, "Hello friend", { destination_chat_id: String(FRIEND) });
    live.double.injectReaction({ chatId: OWNER, messageId: a.review_message_id!, userId: OWNER, newEmojis: ["👍"] });
    await eventually(async () => (await statusOf(live.daemon, a.draft_id)) === "failed");
    const d = (await live.daemon.request("GET", `/drafts/${a.draft_id}`)).body;
    expect(d.reason).toBe("403: Forbidden: bot was blocked by the user");
  });

  it("waits out a 429 and sends once", async ({ live }) => {
    await live.start();
    live.double.failNext("sendMessage", { error_code: 429, description: "Too Many Requests: retry after 1", retry_after: 1 });
    const a = await submit(live.daemon, "Patience");
    // The review post took the 429 and was retried; now approve.
    await eventually(async () => (await statusOf(live.daemon, a.draft_id)) === "pending");
    const draft = (await live.daemon.request("GET", `/drafts/${a.draft_id}`)).body;
    live.double.failNext("sendMessage", { error_code: 429, description: "Too Many Requests: retry after 1", retry_after: 1 });
    live.double.injectReaction({ chatId: OWNER, messageId: draft.review_message_id, userId: OWNER, newEmojis: ["👍"] });
    await eventually(async () => (await statusOf(live.daemon, a.draft_id)) === "sent", 10_000);
    expect(toGroup(live)).toHaveLength(1);
  });

  it("never resends when the answer to sendMessage is lost, and tells the reviewer", async ({ live }) => {
    await live.start();
    const a = await submit(live.daemon, "Maybe delivered");
    live.double.dropResponseAfterAccept("sendMessage");
    live.double.injectReaction({ chatId: OWNER, messageId: a.review_message_id!, userId: OWNER, newEmojis: ["👍"] });
    await eventually(async () => (await statusOf(live.daemon, a.draft_id)) === "outcome_unknown", 10_000);
    await eventually(
      () => live.double.messages(OWNER).some((m) => m.text.includes("may or may not have reached")),
      10_000,
      "reviewer told",
    );
    expect(toGroup(live)).toHaveLength(1);
  });

  it("queues drafts past the review chat's rate and posts them at the next free slot", async ({ live }) => {
    await live.start({ TELEGRAM_RATE_SCALE: "1" });
    const answers = await Promise.all([1, 2, 3].map((i) => submit(live.daemon, `Draft ${i}`)));
    expect(answers.map((a) => a.status).sort()).toEqual(["pending", "queued", "queued"]);
    for (const a of answers) await eventually(async () => (await statusOf(live.daemon, a.draft_id)) === "pending", 10_000);
    const posts = live.double.messages(OWNER);
    for (let i = 1; i < posts.length; i++) expect(posts[i]!.at - posts[i - 1]!.at).toBeGreaterThanOrEqual(950);
  });

  it("keeps a decision and the drafts across kill -9, and marks a send cut short as unknown", async ({ live }) => {
    await live.start();
    const a = await submitPosted(live.daemon, "Survive a crash");
    const b = await submitPosted(live.daemon, "Crash mid-send");
    await live.daemon.stop("SIGKILL");

    await live.restart();
    live.double.delayNext("sendMessage", 1500);
    live.double.injectReaction({ chatId: OWNER, messageId: b.review_message_id!, userId: OWNER, newEmojis: ["👍"] });
    await eventually(
      () => live.double.calls("sendMessage").some((c) => String((c.params as any).chat_id) === String(GROUP)),
      10_000,
      "send under way",
    );
    await live.daemon.stop("SIGKILL");
    await eventually(() => toGroup(live).length === 1, 5_000, "the double accepted the cut-short send");

    await live.restart();
    await eventually(async () => (await statusOf(live.daemon, b.draft_id)) === "outcome_unknown", 10_000);
    expect(await statusOf(live.daemon, a.draft_id)).toBe("pending");
    live.double.injectReaction({ chatId: OWNER, messageId: a.review_message_id!, userId: OWNER, newEmojis: ["👍"] });
    await eventually(() => toGroup(live).length === 2, 10_000);
    await eventually(async () => (await statusOf(live.daemon, a.draft_id)) === "sent");
    // Once the daemon has stopped, nothing more can reach the group: the count below is final.
    expect(await live.daemon.stop("SIGTERM")).toBe(0);
    expect(toGroup(live).map((m) => m.text)).toEqual(["Crash mid-send", "Survive a crash"]);
  });

  it("reviews a 4096-character draft (header posted apart, the draft in two parts: the last leaves room for its status) and sends it byte-identical", async ({
    live,
  }) => {
    await live.start();
    let text = "";
    while (text.length < 4095) text += "Grüße 🙂 — line of a long draft, *not markdown*.\n";
    text = text.slice(0, 4095);
    if (/[\uD800-\uDBFF]$/.test(text)) text = text.slice(0, 4094) + "x";
    text += ".";
    expect(text.length).toBe(4096);
    const a = await submit(live.daemon, text);
    expect(a.status).toBe("pending");
    const posts = live.double.messages(OWNER);
    expect(posts).toHaveLength(3);
    expect(posts[0]!.text).toContain("✏️ DRAFT (Scribe)");
    expect(posts[2]!.messageId).toBe(a.review_message_id);
    // Cut at a line break: the first part, then the rest (the message with the buttons, its legend under it).
    expect(text.startsWith(`${posts[1]!.text}\n`)).toBe(true);
    expect(posts[2]!.text.startsWith(text.slice(posts[1]!.text.length + 1))).toBe(true);
    live.double.injectReaction({ chatId: OWNER, messageId: a.review_message_id!, userId: OWNER, newEmojis: ["👍"] });
    await eventually(() => toGroup(live).length === 1, 10_000, "long draft sent");
    expect(toGroup(live)[0]!.text).toBe(text);
    await eventually(async () => (await statusOf(live.daemon, a.draft_id)) === "sent");
  });

  it("keeps a decision Telegram delivered even when the daemon dies right after confirming it", async ({ live }) => {
    await live.start();
    const a = await submitPosted(live.daemon, "Decided, then killed");
    // The send first resolves the destination again (getChat): held here, so the kill lands before
    // the send begins. (A kill during the send is outcome_unknown by design; tested above.)
    live.double.delayNext("getChat", 1500);
    const { update } = live.double.injectReaction({ chatId: OWNER, messageId: a.review_message_id, userId: OWNER, newEmojis: ["👍"] });
    // Kill as soon as the runner has confirmed the update (its next getUpdates asks for a later
    // offset): Telegram will never deliver it again, so only the journal can still have it
    // if the handler had not finished.
    const confirmed = (c: { params: Record<string, unknown> }) => Number(c.params.offset) > update.update_id;
    await eventually(() => live.double.calls("getUpdates").some(confirmed), 10_000, "update confirmed");
    await live.daemon.stop("SIGKILL");
    expect(live.double.pendingUpdates()).toHaveLength(0);
    await live.restart();
    await eventually(async () => (await statusOf(live.daemon, a.draft_id)) === "sent", 10_000);
    // Once the daemon has stopped, nothing more can reach the group: the count below is final.
    expect(await live.daemon.stop("SIGTERM")).toBe(0);
    expect(toGroup(live).map((m) => m.text)).toEqual(["Decided, then killed"]);
  });

  it("stops cleanly on SIGTERM", async ({ live }) => {
    await live.start();
    expect(await live.daemon.stop("SIGTERM")).toBe(0);
  });
});
