import { describe, expect, it } from "vitest";
import { eventually, freshDirs } from "../support/daemon-process.js";
import { auditLines, GROUP, OWNER, payload, useLiveDaemon } from "../support/live-fixture.js";
import { draft, testModeSession } from "../support/test-mode-process.js";

// Issue 19 row 10 (contract v3 "Test mode is inert for a live daemon"): a test-mode session run once
// in the live HARNESS_DIR leaves drafts whose review message ids were made up. Before, a live 👍 on
// the real message with that id sent the test draft to its real destination.

const live = useLiveDaemon();

describe("test-mode drafts in a live HARNESS_DIR", () => {
  it("are never matched, sent, listed as waiting or replayed by a live daemon", async () => {
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
