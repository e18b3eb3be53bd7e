import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { jsonLine, runBin } from "../support/cli-process.js";
import { draft, testModeSession } from "../support/test-mode-process.js";

/**
 * Issue 27 point 3 against the real daemon (test mode, its simulated clock
 * from now): two weeks of history, then `draft-review report --json` for the
 * second week: `previous` counts the first, `notes` lists the reviewer's
 * revision notes newest first, at most 10, and a draft whose only edit kept
 * the items redaction removed is `restored`, not `edited`.
 */

const DAY = 86_400_000;
const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

describe("draft-review report --json over two periods", () => {
  it("has previous with the first week's numbers, per role the newest 10 notes of the second, and restored apart from edited", async () => {
    const cwd = await mkdtemp(join(tmpdir(), "report-previous-"));
    dirs.push(cwd);
    const where = { cwd, harnessDir: join(cwd, ".harness") };
    const input: unknown[] = [
      { cmd: "advance", by: "1ms" },
      // Week one: Scribe sent back with a note (post 1) and sent (post 2, the sent message is 4); CoS sent back without a note (post 3).
      draft("Week one, first", { drafted_by_role: "Scribe" }),
      draft("Week one, second", { drafted_by_role: "Scribe" }),
      draft("Week one, CoS", { drafted_by_role: "CoS" }),
      { cmd: "advance", by: "10m" },
      { cmd: "reply", review_message_id: 1, text: "Too long, and not in my voice." },
      { cmd: "react", review_message_id: 2, emoji: "👍" },
      { cmd: "react", review_message_id: 3, emoji: "👎" },
      { cmd: "advance", by: "7d" },
    ];
    // Week two: twelve Scribe drafts (posts 5-16), each sent back with its note a minute after the one before.
    for (let i = 1; i <= 12; i++) input.push(draft(`Week two, ${i}`, { drafted_by_role: "Scribe" }));
    for (let i = 1; i <= 12; i++) {
      input.push({ cmd: "advance", by: "1m" }, { cmd: "reply", review_message_id: 4 + i, text: `note ${i}` });
    }
    // Margot: drafted (post 17), edited by the reviewer (the new version is post 18), then sent (message 19).
    input.push(
      draft("Week two, Margot", { drafted_by_role: "Margot" }),
      { cmd: "reply", review_message_id: 17, text: "✏️ Week two, Margot, edited" },
      { cmd: "react", review_message_id: 18, emoji: "👍" },
      // Margot again (post 20): redaction took the owner's number out; 🔓 keeps it (post 21), then sent.
      draft("Week two, Margot: call me on +61 412 345 678 if the train is late.", { drafted_by_role: "Margot" }),
      { cmd: "keep", review_message_id: 20 },
      { cmd: "react", review_message_id: 21, emoji: "👍" },
      { cmd: "advance", by: "1h" },
    );
    const answers = await testModeSession(where, input, { DRAFT_TTL: "30d" });
    const start = Date.parse(answers[0]!.now);
    expect(answers.filter((a) => a.review_message_id !== undefined).map((a) => a.review_message_id)).toEqual([
      1,
      2,
      3,
      ...Array.from({ length: 12 }, (_, i) => 5 + i),
      17,
      18,
      20,
      21,
    ]);

    const since = new Date(start + 7 * DAY).toISOString();
    const until = new Date(start + 14 * DAY).toISOString();
    const cli = { cwd, env: { HARNESS_DIR: where.harnessDir, TAO_DRAFT_REVIEW_TEST: "1" } };
    const report = jsonLine(await runBin(["report", "--json", "--since", since, "--until", until], cli));
    expect(Object.keys(report)).toEqual(["since", "until", "roles", "destinations", "picks", "previous"]);
    expect(Object.keys(report.previous)).toEqual(["roles", "destinations", "picks"]);

    expect(report.roles.Scribe).toMatchObject({ drafts: 12, revise: 12, sent: 0, restored: 0 });
    expect(report.roles.Scribe.notes).toEqual(Array.from({ length: 10 }, (_, i) => `note ${12 - i}`));
    // The edited draft counts as edited; the one whose only edit kept the removed items counts as restored, not edited.
    expect(report.roles.Margot).toMatchObject({ drafts: 2, sent: 2, edited: 1, restored: 1, notes: [] });
    expect(report.roles.CoS).toMatchObject({ drafts: 0, notes: [] });

    expect(report.previous.roles.Scribe).toMatchObject({ drafts: 2, sent: 1, revise: 1, edited: 0, restored: 0 });
    expect(report.previous.roles.Scribe.notes).toEqual(["Too long, and not in my voice."]);
    expect(report.previous.roles.CoS).toMatchObject({ drafts: 1, revise: 1, notes: [] });
    expect(report.previous.roles.Margot).toMatchObject({ drafts: 0, notes: [] });
    expect(report.previous.destinations).toEqual({ "-1001234567890": expect.objectContaining({ drafts: 3, sent: 1, revise: 2 }) });
    // The contract's row keys, unchanged, for destinations.
    expect(Object.keys(report.destinations["-1001234567890"]).sort()).toEqual(
      ["decision_p50_s", "decision_p90_s", "deferred", "drafts", "edited", "expired", "partly_sent", "revise", "sent", "undone"].sort(),
    );

    // A live report over the same files counts none of test mode's drafts, before or now.
    const live = jsonLine(
      await runBin(["report", "--json", "--since", since, "--until", until], { cwd, env: { HARNESS_DIR: where.harnessDir } }),
    );
    expect(live.roles.Scribe).toMatchObject({ drafts: 0, notes: [] });
    expect(live.previous.roles.Scribe).toMatchObject({ drafts: 0, notes: [] });
  });
});
