/**
 * `draft-review list`, `get` and `status` when the daemon is not running:
 * they read HARNESS_DIR's store read-only (no lock taken, nothing written, a
 * torn last line skipped and left in place) and say so on stderr.
 */
import { appendFile, readdir, readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { freePort, jsonLine, runBin } from "../support/cli-process.js";
import { openTestCore, submitPosted, submitRevised } from "../support/core.js";
import { freshDirs } from "../support/daemon-process.js";
import { draft, testModeSession } from "../support/test-mode-process.js";

async function storeWithDrafts() {
  const t = await openTestCore();
  const a = await submitPosted(t, "First draft, pending");
  const b = t.core.desk.get(await submitRevised(t, "Second draft, revised", "Margot: check the Q2 numbers"))!;
  await t.close();
  return { dir: t.dir, a, b };
}

describe("the CLI without the daemon", () => {
  it("list, get and status read the store read-only and say so", async () => {
    const { dir, a, b } = await storeWithDrafts();
    const storePath = join(dir, "telegram_drafts.jsonl");
    // A torn last line (a crash mid-write) is skipped, and left for the daemon to cut.
    await appendFile(storePath, '{"draft_id":"d_torn","vers');
    const before = await readFile(storePath);
    const filesBefore = (await readdir(dir)).sort();
    const env = { HARNESS_DIR: dir, DRAFT_API_PORT: String(await freePort()), DRAFT_API_TOKEN: "t".repeat(32) };
    const run = (args: string[]) => runBin(args, { cwd: dirname(dir), env });
    const said = `the daemon is not running (nothing answers at http://127.0.0.1:${env.DRAFT_API_PORT}); read ${storePath} directly, read-only`;

    const list = await run(["list", "--json"]);
    expect(list.code).toBe(0);
    expect(list.stderr).toContain(said);
    expect(jsonLine(list).drafts.map((d: { draft_id: string; status: string }) => [d.draft_id, d.status])).toEqual([
      [a.draft_id, "pending"],
      [b.draft_id, "revise"],
    ]);
    const revised = await run(["list", "--status", "revise"]);
    expect(revised.code).toBe(0);
    expect(revised.stdout).toContain(b.draft_id);
    expect(revised.stdout).not.toContain(a.draft_id);
    expect((await run(["list", "--status", "nonsense"])).code).toBe(2);

    const got = await run(["get", b.draft_id, "--json"]);
    expect(got.code).toBe(0);
    expect(got.stderr).toContain(said);
    expect(jsonLine(got)).toMatchObject({ draft_id: b.draft_id, status: "revise", revision_note: "Margot: check the Q2 numbers" });
    const text = await run(["get", a.draft_id]);
    expect(text.stdout).toContain("First draft, pending");
    const missing = await run(["get", "d_nope", "--json"]);
    expect(missing.code).toBe(2);
    expect(jsonLine(missing).error).toMatch(/no draft with id "d_nope"/);

    const status = await run(["status", "--json"]);
    expect(status.code).toBe(0);
    expect(status.stderr).toContain(said);
    expect(jsonLine(status)).toMatchObject({
      daemon: "not running",
      read_from: storePath,
      queue: { pending: 1 },
      drafts_total: 2,
      kill_switch: { halted: false },
    });

    // Read-only: the store is byte for byte the same, and no lock or other file appeared.
    expect(await readFile(storePath)).toEqual(before);
    expect((await readdir(dir)).sort()).toEqual(filesBefore);
  });

  it("get finds a draft that moved to archive/ (DRAFT_RETENTION), still read-only", async () => {
    const t = await openTestCore(undefined, { env: { DRAFT_RETENTION: "1h" } });
    const b = t.core.desk.get(await submitRevised(t, "Revised, then archived"))!;
    await t.clock.advance(2 * 3_600_000);
    expect(await t.core.desk.archiveOld()).toBe(1);
    await t.close();
    const filesBefore = (await readdir(join(t.dir, "archive"))).sort();
    const env = { HARNESS_DIR: t.dir, DRAFT_API_PORT: String(await freePort()), DRAFT_API_TOKEN: "t".repeat(32) };
    const got = await runBin(["get", b.draft_id, "--json"], { cwd: dirname(t.dir), env });
    expect(got.code).toBe(0);
    expect(jsonLine(got)).toMatchObject({ draft_id: b.draft_id, status: "revise", draft_text: "Revised, then archived" });
    expect((await readdir(join(t.dir, "archive"))).sort()).toEqual(filesBefore);
  });

  // Issue 33: a draft to another channel shows where it went, who the post said would read it, and where it is now.
  it("get shows a channel draft's destination, its audience's lines and its sent_ref", async () => {
    const dirs = await freshDirs();
    const destination = { channel: "email", to: ["anna@example.org"], cc: ["bob@example.org"], subject: "Thursday" };
    const [posted] = await testModeSession(dirs, [
      draft("Hi Anna, Thursday 10:00 works.", { destination_chat_id: undefined, destination_thread_id: undefined, destination }),
    ]);
    const id = posted!.draft_id as string;
    await testModeSession(dirs, [{ cmd: "react", review_message_id: posted!.review_message_id, emoji: "👍" }, { cmd: "advance" }]);
    const env = { HARNESS_DIR: dirs.harnessDir, DRAFT_API_PORT: String(await freePort()), DRAFT_API_TOKEN: "t".repeat(32) };
    const got = await runBin(["get", id], { cwd: dirs.cwd, env });
    expect(got.code, got.stderr).toBe(0);
    expect(got.stdout).toContain(
      'destination: {"channel":"email","to":["anna@example.org"],"cc":["bob@example.org"],"bcc":[],"subject":"Thursday",',
    );
    expect(got.stdout).toMatch(/\nchannel_audience: email, 2 readers, read \S+Z \(.+\)\n/);
    expect(got.stdout).toContain(
      ["", "  Email “Thursday”", "  to: anna@example.org", "  cc: bob@example.org", "  🧪 test mode: not read from the service", ""].join(
        "\n",
      ),
    );
    expect(got.stdout).not.toContain("fingerprint");
    expect(got.stdout).toMatch(/\nsent_ref: \{"reference":"[0-9a-f-]{36}","test_mode":"offline: nothing left this machine"\}\n/);
    expect(got.stdout).toMatch(/status: sent\n[\s\S]*draft_text:\nHi Anna, Thursday 10:00 works\.\n$/);
  });

  it("with no store yet: an empty list, and status says there are no drafts", async () => {
    const { dir } = await storeWithDrafts();
    const empty = join(dir, "empty-harness");
    const env = { HARNESS_DIR: empty, DRAFT_API_PORT: String(await freePort()), DRAFT_API_TOKEN: "t".repeat(32) };
    const list = await runBin(["list", "--json"], { cwd: dir, env });
    expect(list.code).toBe(0);
    expect(jsonLine(list)).toEqual({ drafts: [] });
    expect(jsonLine(await runBin(["status", "--json"], { cwd: dir, env }))).toMatchObject({ drafts_total: 0 });
  });
});
