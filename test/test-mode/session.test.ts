import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { freshDirs, removeFreshDirs } from "../support/daemon-process.js";
import { draft, testModeSession } from "../support/test-mode-process.js";

/** Each session runs in fresh dirs; they go once it has ended. */
afterEach(removeFreshDirs);

async function lines(path: string): Promise<Array<Record<string, any>>> {
  return (await readFile(path, "utf8"))
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l));
}

/** Runs one session per step, on the same files: each step needs the ids the previous one printed. */
const session = testModeSession;

describe("test mode (TAO_DRAFT_REVIEW_TEST=1)", () => {
  it("runs the seed's verification: 👍 sends, ❌ revises, ⏳ defers, silence expires", async () => {
    const dirs = await freshDirs();
    const posted = await session(dirs, [
      draft("send me"),
      { cmd: "submit", draft: draft("revise me") },
      draft("defer me"),
      draft("let me expire"),
    ]);
    for (const a of posted) expect(a).toEqual({ draft_id: expect.any(String), review_message_id: expect.any(Number), status: "pending" });
    const [s, r, d, e] = posted as Array<{ draft_id: string; review_message_id: number }>;

    const decided = await session(dirs, [
      { cmd: "react", review_message_id: s!.review_message_id, emoji: "👍" },
      { cmd: "react", review_message_id: r!.review_message_id, emoji: "❌" },
      { cmd: "react", review_message_id: d!.review_message_id, emoji: "⏳" },
      { cmd: "advance", by: "24h" },
      { cmd: "get", draft_id: d!.draft_id },
      { cmd: "advance", by: "24h" },
      { cmd: "get", draft_id: e!.draft_id },
      { cmd: "get", draft_id: d!.draft_id },
    ]);
    expect(decided[0]).toEqual({ draft_id: s!.draft_id, status: "sent" });
    expect(decided[1]).toEqual({ draft_id: r!.draft_id, status: "revise" });
    expect(decided[2]).toEqual({ draft_id: d!.draft_id, status: "deferred" });
    expect(decided[3]!.transitions).toEqual([expect.objectContaining({ draft_id: e!.draft_id, from: "pending", to: "expired" })]);
    expect(decided[4]).toMatchObject({ status: "deferred" });
    expect(decided[5]!.transitions).toEqual([expect.objectContaining({ draft_id: d!.draft_id, from: "deferred", to: "expired" })]);
    expect(decided[6]).toMatchObject({ draft_id: e!.draft_id, status: "expired", review_message_id: e!.review_message_id });
    expect(decided[7]).toMatchObject({ status: "expired" });

    const store = await lines(join(dirs.harnessDir, "telegram_drafts.jsonl"));
    const last = new Map(store.map((l) => [l.draft_id, l]));
    expect([...last.values()].map((l) => l.status).sort()).toEqual(["expired", "expired", "revise", "sent"]);
    for (const rec of last.values()) {
      for (const f of [
        "draft_id",
        "review_message_id",
        "destination_chat_id",
        "destination_thread_id",
        "draft_text",
        "status",
        "drafted_by_role",
        "originating_intent_id",
        "drafted_at",
        "expires_at",
      ]) {
        expect(rec).toHaveProperty(f);
      }
    }
    const audit = await lines(join(dirs.harnessDir, "swarm.jsonl"));
    const sentPath = audit.filter((l) => l.draft_id === s!.draft_id && l.kind === "transition").map((l) => l.to);
    expect(sentPath).toEqual(["queued", "pending", "approved", "sending", "sent"]);
    expect(audit.find((l) => l.draft_id === r!.draft_id && l.to === "revise")).toMatchObject({
      emoji: "❌",
      channel: "test",
      draft_text: "revise me",
    });
  });

  it("refuses decisions after a final state and by non-reviewers, and audits them", async () => {
    const dirs = await freshDirs();
    const [a] = await session(dirs, [draft("hello")]);
    const answers = await session(dirs, [
      { cmd: "react", review_message_id: a!.review_message_id, emoji: "👍", user_id: 999 },
      { cmd: "react", review_message_id: a!.review_message_id, emoji: "👎" },
      { cmd: "react", review_message_id: a!.review_message_id, emoji: "👍" },
    ]);
    expect(answers).toEqual([
      { draft_id: a!.draft_id, status: "pending", refused: "not_a_reviewer" },
      { draft_id: a!.draft_id, status: "revise" },
      { draft_id: a!.draft_id, status: "revise", refused: "final_state" },
    ]);
    const refused = (await lines(join(dirs.harnessDir, "swarm.jsonl"))).filter((l) => l.kind === "decision_refused");
    expect(refused.map((l) => [l.user_id, l.reason])).toEqual([
      [999, "not_a_reviewer"],
      [100000001, "final_state"],
    ]);
    expect(refused[0]).toMatchObject({ draft_text: "hello", emoji: "👍", channel: "test" });
  });

  it("answers bad lines with an error and goes on; exits 0 at end of input", async () => {
    const dirs = await freshDirs();
    const answers = await session(dirs, [
      "not json",
      "[1,2]",
      { cmd: "fly" },
      draft(""),
      draft("x", { surprise: true }),
      { cmd: "react", review_message_id: 424242, emoji: "👍" },
      { cmd: "react", review_message_id: 1, emoji: "🔥" },
      { cmd: "advance", by: "soon" },
      { cmd: "get", draft_id: "nope" },
      draft("still alive"),
    ]);
    for (const a of answers.slice(0, 9)) expect(a).toHaveProperty("error");
    expect(answers[3]).toMatchObject({ field: "draft_text" });
    expect(answers[4]).toMatchObject({ field: "surprise" });
    expect(answers[9]).toMatchObject({ status: "pending" });
  });

  // Issue 19 row 12: a huge `advance` hung at 95% CPU; a smaller huge one broke every later advance.
  it("refuses an advance past its limit with an error naming it; the session and later advances go on", async () => {
    const dirs = await freshDirs();
    const answers = await session(
      dirs,
      [
        { cmd: "advance", by: "100000001d" },
        { cmd: "advance", by: "99999999d" },
        { cmd: "advance", by: "3651d" },
        { cmd: "advance", by: "1h" },
        draft("still alive"),
      ],
      undefined,
      20_000,
    );
    for (const a of answers.slice(0, 3))
      expect(a).toEqual({ error: expect.stringMatching(/^by: ".+" is longer than the limit of 3650d$/) });
    expect(answers[3]).toEqual({ now: expect.stringMatching(/^\d{4}-\d\d-\d\dT/), transitions: [] });
    expect(answers[4]).toMatchObject({ status: "pending" });
  });

  it("replays an idempotency key without posting again, and refuses it with another payload", async () => {
    const dirs = await freshDirs();
    const answers = await session(dirs, [
      draft("once", { idempotency_key: "k1" }),
      draft("once", { idempotency_key: "k1" }),
      draft("twice", { idempotency_key: "k1" }),
    ]);
    expect(answers[1]).toEqual(answers[0]);
    expect(answers[2]!.error).toMatch(/^idempotency_key: .*different payload/);
  });

  it("honours the kill switch in test mode too", async () => {
    const dirs = await freshDirs();
    const [a] = await session(dirs, [draft("halt me")]);
    const [r] = await session(dirs, [{ cmd: "react", review_message_id: a!.review_message_id, emoji: "👍" }], { TAO_SWARM_ENABLED: "0" });
    expect(r).toEqual({ draft_id: a!.draft_id, status: "halted" });
  });
});
