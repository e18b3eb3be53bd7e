import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, describe, expect } from "vitest";
import { eventually, freshDirs, removeFreshDirs } from "../support/daemon-process.js";
import { auditLines, draftRecord, GROUP, OWNER, payload, submitPending, liveTest } from "../support/live-fixture.js";
import { draft, runTestMode, testModeSession } from "../support/test-mode-process.js";

// Issue 19 row 10 (contract v3 "Test mode is inert for a live daemon"): a test-mode session run once
// in the live HARNESS_DIR leaves drafts whose review message ids were made up. Before, a live 👍 on
// the real message with that id sent the test draft to its real destination.

// Each test has a Bot API double and daemons of its own, and the tests run at once: most of each is waiting on the real clock.
const it = liveTest();
// The tests make their dirs with freshDirs (test mode runs on them before any daemon): removed once all have ended.
afterAll(removeFreshDirs);

describe.concurrent("test-mode drafts in a live HARNESS_DIR", () => {
  it("are never matched, sent, listed as waiting or replayed by a live daemon", async ({ live }) => {
    const dirs = await freshDirs();
    // Test mode with the live review chat's id (as with the live .env): ids 1, 2, 3 are made up.
    const made = await testModeSession(
      dirs,
      [draft("test A, approved"), draft("test B, pending"), draft("test C, keyed", { idempotency_key: "k-shared" })],
      { REVIEW_CHAT_ID: String(OWNER), UNDO_WINDOW: "1s" },
    );
    const [a, b, c] = made as Array<{ draft_id: string; review_message_id: number }>;
    const [approved] = await testModeSession(dirs, [{ cmd: "react", review_message_id: a!.review_message_id, emoji: "👍" }], {
      REVIEW_CHAT_ID: String(OWNER),
      UNDO_WINDOW: "1s",
    });
    expect(approved).toEqual({ draft_id: a!.draft_id, status: "approved" });

    // The live daemon on the same files, its undo window longer than test A's.
    const daemon = await live.start({ UNDO_WINDOW: "2s" }, { dirs });
    const stored = (await daemon.request("GET", `/drafts/${b!.draft_id}`)).body;
    expect(stored).toMatchObject({ status: "pending", test_mode: true, review_message_id: b!.review_message_id });

    // A 👍 on the live review chat's message whose id is test B's made-up one counts for nothing.
    live.double.injectReaction({ chatId: OWNER, messageId: b!.review_message_id, userId: OWNER, newEmojis: ["👍"] });
    const refused = await eventually(
      async () =>
        (await auditLines(dirs.harnessDir)).find((l) => l.kind === "decision_refused" && l.review_message_id === b!.review_message_id),
      10_000,
      "the 👍 refused",
    );
    expect(refused).toMatchObject({ reason: "unknown_review_message", draft_id: null });

    // Not waiting, not replayed: the same idempotency key makes a new live draft.
    expect((await daemon.request("GET", "/drafts?status=pending")).body.drafts).toEqual([]);
    expect((await daemon.request("GET", "/drafts?status=approved")).body.drafts).toEqual([]);
    const keyed = await daemon.request("POST", "/drafts", payload("live, keyed", { idempotency_key: "k-shared" }));
    expect(keyed.status).toBe(201);
    expect(keyed.body.draft_id).not.toBe(c!.draft_id);

    // A live draft approved now is sent 2 s later, after test A's send (its window long over) would have been due.
    // (It may wait for a free slot in the review chat: the reviewer was just answered about the 👍 above.)
    const posted = await eventually(
      async () => (await daemon.request("GET", `/drafts/${keyed.body.draft_id}`)).body.review_message_id as number | null,
      10_000,
      "the live draft posted",
    );
    live.double.injectReaction({ chatId: OWNER, messageId: posted, userId: OWNER, newEmojis: ["👍"] });
    await eventually(() => live.double.messages(GROUP).length > 0, 10_000, "the live draft sent");
    expect(live.double.messages(GROUP).map((m) => m.text)).toEqual(["live, keyed"]);
    for (const t of [a!, b!]) {
      const record = (await daemon.request("GET", `/drafts/${t.draft_id}`)).body;
      expect(record.sent_message_id, t.draft_id).toBeNull();
    }
  });
});

/** The store's lines by draft id, and the whole file. */
async function storeOf(harnessDir: string): Promise<{ text: string; lines: Map<string, string[]>; status: Map<string, string> }> {
  const text = await readFile(join(harnessDir, "telegram_drafts.jsonl"), "utf8");
  const lines = new Map<string, string[]>();
  const status = new Map<string, string>();
  for (const line of text.split("\n").filter((l) => l !== "")) {
    const record = JSON.parse(line) as { draft_id: string; status: string };
    lines.set(record.draft_id, [...(lines.get(record.draft_id) ?? []), line]);
    status.set(record.draft_id, record.status);
  }
  return { text, lines, status };
}

// Issue 26 point 1 (contract v4 "Test mode never touches live drafts"): before, a test-mode run on a crashed live
// directory posted its queued drafts under made-up ids (a 👍 on the real message with such an id sent one unseen), and
// marked approved ones sent without a call.
describe.concurrent("a test-mode run on a crashed live HARNESS_DIR", () => {
  it("leaves every live draft as it was and says how many; the live restart posts the queued ones and sends each approval once", async ({
    live,
  }) => {
    const dirs = await freshDirs();
    // The real pace of a private review chat (one message a second), so drafts wait in `queued`.
    const daemon = await live.start({ UNDO_WINDOW: "5s", TELEGRAM_RATE_SCALE: "1" }, { dirs });
    const r = await submitPending(daemon, payload("R, waiting on a 429"));
    live.double.injectReaction({ chatId: OWNER, messageId: r.review_message_id, userId: OWNER, newEmojis: ["👍"] });
    await eventually(async () => (await draftRecord(daemon, r.draft_id)).status === "approved", 10_000, "R approved");
    // Its send, once the window is over, gets a 429 with a minute to wait.
    live.double.failNext("sendMessage", { error_code: 429, description: "Too Many Requests: retry after 60", retry_after: 60 });
    await eventually(() => live.double.tooManyRequestsCount === 1, 15_000, "R's 429");
    await eventually(async () => (await draftRecord(daemon, r.draft_id)).status === "approved", 10_000, "R waiting");
    const a = await submitPending(daemon, payload("A, inside its undo window"));
    const queued: string[] = [];
    for (let i = 1; i <= 5; i++) queued.push((await daemon.request("POST", "/drafts", payload(`Q${i}, queued`))).body.draft_id);
    live.double.injectReaction({ chatId: OWNER, messageId: a.review_message_id, userId: OWNER, newEmojis: ["👍"] });
    await eventually(async () => (await draftRecord(daemon, a.draft_id)).status === "approved", 10_000, "A approved");
    await daemon.stop("SIGKILL");
    expect(live.double.messages(GROUP)).toEqual([]);

    const before = await storeOf(dirs.harnessDir);
    const stillQueued = queued.filter((id) => before.status.get(id) === "queued");
    expect(stillQueued.length, "drafts left queued by the kill").toBeGreaterThan(0);
    expect([r.draft_id, a.draft_id].map((id) => before.status.get(id))).toEqual(["approved", "approved"]);
    const auditBefore = await readFile(join(dirs.harnessDir, "swarm.jsonl"), "utf8");

    // Test mode with the live .env's review chat, and nothing on stdin: it says what it leaves alone, and writes nothing.
    const env = { REVIEW_CHAT_ID: String(OWNER), UNDO_WINDOW: "5s" };
    const empty = await runTestMode([], { ...dirs, env });
    expect(empty.code, empty.stderr).toBe(0);
    expect(empty.answers).toEqual([]);
    const said = empty.stderr.split("\n").filter((l) => l.includes("live draft"));
    expect(said).toEqual([expect.stringContaining(`leaving 7 live drafts alone in ${dirs.harnessDir}`)]);
    expect(await readFile(join(dirs.harnessDir, "telegram_drafts.jsonl"), "utf8")).toBe(before.text);
    expect(await readFile(join(dirs.harnessDir, "swarm.jsonl"), "utf8")).toBe(auditBefore);

    // Then a session of commands: its own draft works; the live ones are not listed, expired, shown or decided.
    const answers = await testModeSession(
      dirs,
      [
        draft("T, a test-mode draft"),
        { cmd: "list" },
        { cmd: "react", review_message_id: a.review_message_id, emoji: "👎" },
        { cmd: "react", review_message_id: r.review_message_id, emoji: "👍" },
        { cmd: "get", draft_id: stillQueued[0] },
        { cmd: "advance", by: "48h" },
      ],
      env,
    );
    const [made, list, onA, onR, got, advanced] = answers;
    expect(made).toMatchObject({ status: "pending" });
    expect(list).toEqual({ drafts: [expect.objectContaining({ draft_id: made!.draft_id, test_mode: true })] });
    expect(onA!.error).toContain(`belongs to live draft ${a.draft_id}`);
    expect(onR!.error).toContain(`belongs to live draft ${r.draft_id}`);
    expect(got!.error).toContain(`${stillQueued[0]} is a live draft`);
    expect(advanced!.transitions).toEqual([expect.objectContaining({ draft_id: made!.draft_id, from: "pending", to: "expired" })]);
    const after = await storeOf(dirs.harnessDir);
    expect(after.text.startsWith(before.text)).toBe(true);
    for (const [id, lines] of before.lines) expect(after.lines.get(id), id).toEqual(lines);
    expect([...after.lines.keys()].filter((id) => !before.lines.has(id))).toEqual([made!.draft_id]);
    const added = (await auditLines(dirs.harnessDir)).slice(auditBefore.split("\n").length - 1);
    expect(added.filter((l) => before.lines.has(l.draft_id))).toEqual([]);

    // The live daemon again: the queued drafts are posted, each approval sent once, nothing else.
    const again = await live.start({ UNDO_WINDOW: "5s" }, { dirs });
    for (const id of stillQueued) {
      const posted = await eventually(
        async () => {
          const rec = await draftRecord(again, id);
          return rec.status === "pending" ? rec : null;
        },
        15_000,
        `${id} posted`,
      );
      expect(live.double.message(OWNER, posted.review_message_id)?.text).toContain(posted.draft_text);
    }
    for (const d of [r, a])
      await eventually(async () => (await draftRecord(again, d.draft_id)).status === "sent", 15_000, `${d.draft_id} sent`);
    expect(
      live.double
        .messages(GROUP)
        .map((m) => m.text)
        .sort(),
    ).toEqual(["A, inside its undo window", "R, waiting on a 429"]);
    expect(live.double.messages().filter((m) => m.text.includes("T, a test-mode draft"))).toEqual([]);
    const pending = (await again.request("GET", "/drafts?status=pending")).body.drafts as Array<{ draft_id: string }>;
    expect(pending.map((d) => d.draft_id).sort()).toEqual(queued.slice().sort());
  }, 90_000);
});
