import { copyFile, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { resolveApiToken } from "../../src/app/api-token.js";
import type { ApiServer } from "../../src/http/server.js";
import { serve, TOKEN } from "../http/api-helpers.js";
import { memoryCore, payload } from "../http/memory-core.js";
import { freePort, runBin } from "../support/cli-process.js";

const ROOT = resolve(import.meta.dirname, "../..");
const BIN = join(ROOT, "bin/draft-review.js");

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the real bin as a child process (async: the server answering it lives in this process). */
function cli(
  args: string[],
  opts: { stdin?: string; env?: Record<string, string | undefined>; cwd?: string; bin?: string } = {},
): Promise<Run> {
  return runBin(args, { cwd: opts.cwd ?? work, env: opts.env, stdin: opts.stdin, bin: opts.bin });
}

/** Exactly one JSON line on stdout, parsed. */
function oneJsonLine(run: Run): any {
  const lines = run.stdout.split("\n").filter((l) => l !== "");
  expect(lines, `stdout: ${run.stdout}\nstderr: ${run.stderr}`).toHaveLength(1);
  return JSON.parse(lines[0]!);
}

let work: string;
let server: ApiServer;
let core: ReturnType<typeof memoryCore>;
let env: Record<string, string>;

beforeEach(async () => {
  work = await mkdtemp(join(tmpdir(), "cli-"));
  core = memoryCore();
  server = await serve(core);
  env = { DRAFT_API_HOST: "127.0.0.1", DRAFT_API_PORT: String(server.port), DRAFT_API_TOKEN: TOKEN };
});

afterEach(async () => {
  await server.close();
  await rm(work, { recursive: true, force: true });
});

describe("draft-review submit", () => {
  it("exit 0 and the answer as one JSON line for a new draft", async () => {
    const run = await cli(["submit"], { stdin: JSON.stringify(payload()), env });
    expect(run.code).toBe(0);
    const answer = oneJsonLine(run);
    expect(answer).toEqual({ draft_id: expect.stringMatching(/^d_/), review_message_id: expect.any(Number), status: "pending" });
    expect(core.desk.get(answer.draft_id)?.status).toBe("pending");
  });

  it("exit 0 for an idempotent replay, with the same draft", async () => {
    const body = JSON.stringify(payload({ idempotency_key: "cli-1" }));
    const first = oneJsonLine(await cli(["submit"], { stdin: body, env }));
    const again = await cli(["submit"], { stdin: body, env });
    expect(again.code).toBe(0);
    expect(oneJsonLine(again)).toEqual(first);
    expect(core.desk.list()).toHaveLength(1);
  });

  it("reads --file (relative to the working directory)", async () => {
    await writeFile(join(work, "draft.json"), JSON.stringify(payload()));
    const run = await cli(["submit", "--file", "draft.json"], { env });
    expect(run.code).toBe(0);
    expect(oneJsonLine(run).status).toBe("pending");
  });

  it("exit 2 for a payload the daemon refuses, naming the field", async () => {
    const run = await cli(["submit"], { stdin: JSON.stringify(payload({ draft_text: "" })), env });
    expect(run.code).toBe(2);
    expect(oneJsonLine(run)).toMatchObject({ field: "draft_text", error: expect.stringContaining("draft_text") });
  });

  it("exit 2 for a reused idempotency_key with another payload (409)", async () => {
    await cli(["submit"], { stdin: JSON.stringify(payload({ idempotency_key: "cli-2" })), env });
    const run = await cli(["submit"], { stdin: JSON.stringify(payload({ idempotency_key: "cli-2", draft_text: "changed" })), env });
    expect(run.code).toBe(2);
    expect(oneJsonLine(run).error).toMatch(/idempotency_key/);
  });

  it("exit 2 for invalid JSON on stdin, without asking the daemon", async () => {
    await server.close(); // nobody listens: an attempt to connect would be exit 1
    const run = await cli(["submit"], { stdin: '{"draft_text": ', env });
    expect(run.code).toBe(2);
    expect(oneJsonLine(run).error).toMatch(/not valid JSON/);
    const empty = await cli(["submit"], { stdin: "", env });
    expect(empty.code).toBe(2);
    expect(oneJsonLine(empty).error).toMatch(/empty/);
  });

  it("exit 2 for a payload over 64 KiB, without asking the daemon", async () => {
    const run = await cli(["submit"], { stdin: JSON.stringify(payload({ draft_text: "x".repeat(70_000) })), env });
    expect(run.code).toBe(2);
    expect(oneJsonLine(run).error).toMatch(/larger than 65536 bytes/);
    expect(core.desk.list()).toHaveLength(0);
  });

  it("exit 1 when the daemon is down, saying so and how to start it", async () => {
    const port = await freePort();
    const run = await cli(["submit"], { stdin: JSON.stringify(payload()), env: { ...env, DRAFT_API_PORT: String(port) } });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`the daemon is not running at http://127.0.0.1:${port}: start it with \`npm start\``);
    expect(oneJsonLine(run).error).toMatch(/not running/);
  });

  it("exit 1 with a wrong token, saying how to fix it", async () => {
    const run = await cli(["submit"], { stdin: JSON.stringify(payload()), env: { ...env, DRAFT_API_TOKEN: "wrong-token-0123456789" } });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/refused the API token/);
    expect(run.stderr).not.toContain(TOKEN);
    expect(core.desk.list()).toHaveLength(0);
  });

  it("reads the token from HARNESS_DIR/api_token, and HARNESS_DIR and the port from .env", async () => {
    const harness = join(work, "state");
    const fileToken = await resolveApiToken({ api: { token: null } }, harness);
    await server.close();
    server = await serve(core, { token: fileToken });
    await writeFile(join(work, ".env"), `DRAFT_API_PORT=${server.port}\nHARNESS_DIR=state\n`);
    const run = await cli(["submit"], { stdin: JSON.stringify(payload()), env: { DRAFT_API_PORT: undefined } });
    expect(run.code, run.stderr).toBe(0);
    expect(oneJsonLine(run).status).toBe("pending");
  });

  it("exit 1 without any token, saying to start the daemon once or set DRAFT_API_TOKEN", async () => {
    const run = await cli(["submit"], { stdin: JSON.stringify(payload()), env: { DRAFT_API_PORT: String(server.port) } });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/start the daemon once.*or set DRAFT_API_TOKEN/);
  });

  it("the process environment wins over .env", async () => {
    await writeFile(join(work, ".env"), "DRAFT_API_PORT=1\n");
    const run = await cli(["submit"], { stdin: JSON.stringify(payload()), env });
    expect(run.code, run.stderr).toBe(0);
  });

  it("exit 1 for an unknown option", async () => {
    const run = await cli(["submit", "--nope"], { stdin: "{}", env });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/--nope/);
  });
});

describe("draft-review get and list", () => {
  it("get prints the record; exit 2 for an unknown id", async () => {
    const created = oneJsonLine(await cli(["submit"], { stdin: JSON.stringify(payload()), env }));
    const got = await cli(["get", created.draft_id, "--json"], { env });
    expect(got.code).toBe(0);
    expect(oneJsonLine(got)).toMatchObject({ draft_id: created.draft_id, status: "pending" });
    const missing = await cli(["get", "d_missing", "--json"], { env });
    expect(missing.code).toBe(2);
    expect(oneJsonLine(missing).error).toMatch(/no draft/);
    const human = await cli(["get", created.draft_id], { env });
    expect(human.code).toBe(0);
    expect(human.stdout).toContain(`draft_id: ${created.draft_id}\n`);
    expect(human.stdout).toMatch(/status: pending\n[\s\S]*draft_text:\nHello from the swarm\n$/);
    const humanMissing = await cli(["get", "d_missing"], { env });
    expect(humanMissing.code).toBe(2);
    expect(humanMissing.stdout).toBe("");
    expect(humanMissing.stderr).toMatch(/no draft with id "d_missing"; `draft-review list` lists the drafts there are/);
    expect(humanMissing.stderr).not.toContain("GET /drafts");
  });

  it("list filters by status; exit 2 for an unknown status", async () => {
    await cli(["submit"], { stdin: JSON.stringify(payload()), env });
    const pending = await cli(["list", "--status", "pending", "--json"], { env });
    expect(pending.code).toBe(0);
    expect(oneJsonLine(pending).drafts).toHaveLength(1);
    expect(oneJsonLine(await cli(["list", "--status", "sent", "--json"], { env })).drafts).toHaveLength(0);
    const bad = await cli(["list", "--status", "nope"], { env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/unknown status "nope"/);
    const human = await cli(["list"], { env });
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/^d_\S+ +pending +Scribe +→ -1001234567890 .*“Hello from the swarm”\n$/);
    expect((await cli(["list", "-s", "sent"], { env })).stdout).toBe("no drafts\n");
  });

  it("get without an id is a usage error", async () => {
    const run = await cli(["get"], { env });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/get <draft_id>/);
  });
});

describe("draft-review itself", () => {
  it("--help lists the commands and the exit codes", async () => {
    const run = await cli(["--help"]);
    expect(run.code).toBe(0);
    for (const word of ["submit", "get", "list", "Exit codes", "0 ", "1 ", "2 ", "DRAFT_API_TOKEN"]) expect(run.stdout).toContain(word);
    const sub = await cli(["submit", "--help"]);
    expect(sub.code).toBe(0);
    expect(sub.stdout).toMatch(/--file/);
    expect(sub.stdout).toMatch(/Exit codes/);
  });

  it("exit 1 for an unknown command, or none", async () => {
    const unknown = await cli(["frobnicate"]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/unknown command "frobnicate".*--help/);
    const none = await cli([]);
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(/Usage/);
  });

  it("says to run npm ci when dist is missing", async () => {
    await mkdir(join(work, "pkg/bin"), { recursive: true });
    await copyFile(BIN, join(work, "pkg/bin/draft-review.js"));
    const run = await cli(["submit"], { bin: join(work, "pkg/bin/draft-review.js") });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("run `npm ci` (or `npm run build`) first");
  });
});
