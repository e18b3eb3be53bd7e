/**
 * Issue 20, point 8 (the CLI and intake parts), through the real daemon, the
 * Bot API double and the real `draft-review` process: halt/resume from the
 * CLI tell the review chat; status run away from HARNESS_DIR says it does not
 * know; get of an unknown id suggests `draft-review list`; the intake names
 * every bad field at once.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runBin } from "../support/cli-process.js";
import { TEST_API_TOKEN, type DaemonProcess } from "../support/daemon-process.js";
import { OWNER, payload, useLiveDaemon } from "../support/live-fixture.js";

const live = useLiveDaemon({ scope: "file", start: true });
const elsewhere: string[] = [];
afterAll(async () => {
  for (const d of elsewhere) await rm(d, { recursive: true, force: true });
});

/** The CLI as the owner runs it in the daemon's directory. */
function cli(d: DaemonProcess, args: string[], env: Record<string, string> = {}) {
  const port = new URL(d.apiUrl).port;
  return runBin(args, { cwd: d.cwd, env: { HARNESS_DIR: d.harnessDir, DRAFT_API_PORT: port, DRAFT_API_TOKEN: TEST_API_TOKEN, ...env } });
}

describe("draft-review halt and resume with the daemon running", () => {
  it("tell the review chat, as /halt and /resume do", async () => {
    const before = live.double.messages(OWNER).length;
    const halt = await cli(live.daemon, ["halt"]);
    expect(halt.code, halt.stderr).toBe(0);
    expect(halt.stdout).toContain("The review chat was told.");
    await live.reviewChatMessage(before, /^⛔ Sends halted from the command line/, "the halt notice");
    const resume = await cli(live.daemon, ["resume", "--json"]);
    expect(JSON.parse(resume.stdout)).toMatchObject({ action: "resume", changed: true, review_chat: "told" });
    await live.reviewChatMessage(before, /^The owner's halt was lifted from the command line/, "the resume notice");
    // The API token is the swarm's: the same change is told once, however often the notice is asked for.
    expect((await live.daemon.request("POST", "/owner-switch?action=resume")).status).toBe(409);
  });

  it("the API refuses a notice the HALT file does not show", async () => {
    const res = await live.daemon.request("POST", "/owner-switch?action=halt");
    expect(res.status).toBe(409);
  });
});

describe("draft-review status away from the daemon's HARNESS_DIR", () => {
  it("says it does not know, not that sends are enabled", async () => {
    await cli(live.daemon, ["halt"]);
    const dir = await mkdtemp(join(tmpdir(), "elsewhere-"));
    elsewhere.push(dir);
    const port = new URL(live.daemon.apiUrl).port;
    // Another directory: no .env, no HARNESS_DIR, so no API token either (the daemon answers 401).
    const run = await runBin(["status"], { cwd: dir, env: { DRAFT_API_PORT: port } });
    const said = run.stdout + run.stderr;
    expect(said).not.toContain("Sends enabled");
    expect(said).toMatch(/Sends: unknown/);
    expect(run.code).toBe(1);
    await cli(live.daemon, ["resume"]);
  });
});

describe("draft-review get of an unknown id", () => {
  it("suggests `draft-review list`, not the API", async () => {
    const run = await cli(live.daemon, ["get", "d_nope"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("`draft-review list`");
    expect(run.stderr).not.toContain("GET /drafts");
  });
});

describe("draft-review list", () => {
  it("names the destination as the review post does, not by its id alone", async () => {
    const res = await live.daemon.request("POST", "/drafts", payload("Named in the list"));
    expect(res.status).toBe(201);
    const run = await cli(live.daemon, ["list"]);
    expect(run.code, run.stderr).toBe(0);
    const line = run.stdout.split("\n").find((l) => l.includes("Named in the list"))!;
    expect(line).toMatch(/Scribe +→ Destination \(-1001234567890\)/);
  });
});

describe("the intake answer to a payload with several bad fields", () => {
  it("names all of them at once", async () => {
    const res = await live.daemon.request("POST", "/drafts", { draft_text: "", destination_chat_id: "nope", drafted_by_role: "Boss" });
    expect(res.status).toBe(400);
    for (const field of ["draft_text", "destination_chat_id", "drafted_by_role", "originating_intent_id"])
      expect(res.body.error).toContain(`${field}:`);
    expect(res.body.field).toBe("draft_text");
  });
});
