/**
 * A 5 MB body, as a role that pastes too much would send it, gets the API's
 * 413 JSON answer with each common client: Node's fetch, Python's urllib and
 * curl. (Answering before the body is read makes urllib fail with "Broken
 * pipe" instead.) Each test prints the answer its client saw.
 */
import { execFile, spawnSync } from "node:child_process";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { closeServersAfterEach, start, TOKEN } from "./api-helpers.js";

closeServersAfterEach();
const run = promisify(execFile);
const FIVE_MB = JSON.stringify({
  draft_text: "x".repeat(5 * 1024 * 1024),
  destination_chat_id: "-100123",
  drafted_by_role: "Scribe",
  originating_intent_id: "i",
});
const has = (cmd: string) => spawnSync(cmd, ["--version"], { stdio: "ignore" }).status === 0;
const PYTHON = has("python3");
const CURL = has("curl");

function expect413(status: number, body: string): void {
  expect(status).toBe(413);
  expect(JSON.parse(body)).toEqual({ error: expect.stringMatching(/^the request body is larger than 65536 bytes/) });
}

describe("413 for an oversized body, readable by every common client", () => {
  it("Node's fetch", async () => {
    const { server } = await start();
    const res = await fetch(`${server.url}/drafts`, {
      method: "POST",
      headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
      body: FIVE_MB,
    });
    const body = await res.text();
    console.log(`[413] node fetch: ${res.status} ${body.trim()}`);
    expect413(res.status, body);
  });

  it.runIf(PYTHON)("Python's urllib", async () => {
    const { server } = await start();
    const script = [
      "import sys, urllib.request, urllib.error",
      "body = ('{\"draft_text\": \"' + 'x' * (5 * 1024 * 1024) + '\"}').encode()",
      `req = urllib.request.Request(sys.argv[1] + '/drafts', data=body, method='POST', headers={'Authorization': 'Bearer ${TOKEN}', 'Content-Type': 'application/json'})`,
      "try:",
      "    urllib.request.urlopen(req, timeout=30)",
      "    print('no error')",
      "except urllib.error.HTTPError as e:",
      "    print(e.code, e.read().decode())",
    ].join("\n");
    const { stdout } = await run("python3", ["-c", script, server.url]);
    console.log(`[413] python urllib: ${stdout.trim()}`);
    const [status, ...rest] = stdout.trim().split(" ");
    expect413(Number(status), rest.join(" "));
  });

  it.runIf(CURL)("curl", async () => {
    const { server } = await start();
    const file = join(await mkdtemp(join(tmpdir(), "draft-413-")), "big.json");
    await writeFile(file, FIVE_MB);
    const { stdout } = await run("curl", [
      "-sS",
      "-o",
      "-",
      "-w",
      "\n%{http_code}",
      "-X",
      "POST",
      `${server.url}/drafts`,
      "-H",
      `Authorization: Bearer ${TOKEN}`,
      "-H",
      "Content-Type: application/json",
      "--data-binary",
      `@${file}`,
    ]);
    const lines = stdout.trim().split("\n");
    console.log(`[413] curl: ${lines.at(-1)} ${lines.slice(0, -1).join("")}`);
    expect413(Number(lines.at(-1)), lines.slice(0, -1).join("\n"));
  });

  it.skipIf(PYTHON && CURL)("says which clients were not tried", () => {
    console.log(`[413] skipped: ${[PYTHON ? "" : "python3", CURL ? "" : "curl"].filter(Boolean).join(" and ")} not installed`);
  });
});
