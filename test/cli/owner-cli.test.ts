import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { AuditLog, verifyAuditChain } from "../../src/audit/audit-log.js";
import type { ApiServer } from "../../src/http/server.js";
import { serve, TOKEN } from "../http/api-helpers.js";
import { buildStatusReport } from "../../src/owner/status-report.js";
import { captureLog, memoryCore, payload } from "../http/memory-core.js";
import { jsonLine, runBin } from "../support/cli-process.js";
import { noticeEntry, transitionLine } from "../audit/entries.js";
import { pathExists } from "../support/daemon-process.js";
import { harnessKey } from "../support/audit-key.js";

let work: string;
let harness: string;

beforeEach(async () => {
  work = await mkdtemp(join(tmpdir(), "owner-cli-"));
  harness = join(work, ".harness");
});

afterEach(async () => {
  await rm(work, { recursive: true, force: true });
});

const cli = (args: string[], env: Record<string, string> = {}) => runBin(args, { cwd: work, env });

/** The audit log opened as the daemon opens it (its key made at the first start). */
function openAsDaemon(): Promise<AuditLog> {
  return AuditLog.open({ path: join(harness, "swarm.jsonl"), log: captureLog(), key: { path: join(harness, "audit_key"), create: true } });
}

async function auditLines(): Promise<Array<Record<string, any>>> {
  const text = await readFile(join(harness, "swarm.jsonl"), "utf8");
  return text
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l));
}

describe("draft-review halt and resume", () => {
  it("create and remove HARNESS_DIR/HALT, audited in the CLI's own chain", async () => {
    const halt = await cli(["halt"]);
    expect(halt.code, halt.stderr).toBe(0);
    expect(halt.stdout).toMatch(/^Sends halted by the owner/);
    expect(await pathExists(join(harness, "HALT"))).toBe(true);
    expect(JSON.parse(await readFile(join(harness, "HALT"), "utf8"))).toMatchObject({ channel: "cli", user_id: null });

    const again = jsonLine(await cli(["halt", "--json"]));
    expect(again).toEqual({
      action: "halt",
      changed: false,
      kill_switch: { halted: true, reason: expect.stringMatching(/halted by the owner/) },
      review_chat: "unchanged",
    });

    const resume = await cli(["resume"]);
    expect(resume.code).toBe(0);
    expect(resume.stdout).toBe(
      "The owner's halt is lifted. ✅ Sends enabled.\nThe daemon is not running, so the review chat was not told; it starts halted (or not) as HALT says.\n",
    );
    expect(await pathExists(join(harness, "HALT"))).toBe(false);
    expect((await cli(["resume"])).stdout).toMatch(/^There was no owner halt to lift/);

    const lines = await auditLines();
    expect(lines.map((l) => [l.source, l.kind, l.channel, l.changed])).toEqual([
      ["draft-review-cli", "owner_halt", "cli", true],
      ["draft-review-cli", "owner_halt", "cli", false],
      ["draft-review-cli", "owner_resume", "cli", true],
      ["draft-review-cli", "owner_resume", "cli", false],
    ]);
    expect(lines[0]).toMatchObject({ user_id: null, os_user: expect.any(String) });
  });

  it("resume says when TAO_SWARM_ENABLED=0 in .env still halts", async () => {
    await writeFile(join(work, ".env"), "TAO_SWARM_ENABLED=0\n");
    await cli(["halt"]);
    const resume = await cli(["resume", "--json"]);
    expect(jsonLine(resume)).toEqual({
      action: "resume",
      changed: true,
      kill_switch: { halted: true, reason: "TAO_SWARM_ENABLED=0 in .env" },
      review_chat: "daemon_not_running",
    });
    expect((await cli(["resume"])).stdout).toBe(
      "There was no owner halt to lift. Sends are still halted: TAO_SWARM_ENABLED=0 in .env.\nNothing changed, so the review chat was not told.\n",
    );
  });

  it("leaves the daemon's chain intact while the daemon's log stays open, and audit verify checks both", async () => {
    // As the daemon opens it: the key is made at its first start, with the key anchor as its first line.
    const daemonLog = await openAsDaemon();
    await daemonLog.append([transitionLine("d_1")]);
    expect((await cli(["halt"])).code).toBe(0);
    await daemonLog.append([transitionLine("d_2")]);
    expect((await cli(["resume"])).code).toBe(0);
    await daemonLog.append([transitionLine("d_3")]);
    await daemonLog.close();
    expect(await verifyAuditChain(join(harness, "swarm.jsonl"), "telegram-draft-for-review", await harnessKey(harness))).toEqual({
      ok: true,
      lines: 4,
    });
    // The CLI's lines carry the daemon's proof.
    const lines = await auditLines();
    expect(lines.filter((l) => l.source === "draft-review-cli").every((l) => /^[0-9a-f]{64}$/.test(l.mac))).toBe(true);

    const verify = await cli(["audit", "verify"]);
    expect(verify.code, verify.stderr).toBe(0);
    expect(verify.stdout).toContain("telegram-draft-for-review: 4 lines, chain intact");
    expect(verify.stdout).toContain("draft-review-cli: 2 lines, chain intact");
  });

  it("a daemon that never ran: the CLI makes no key, its unproven lines are vouched for by the daemon's first start", async () => {
    expect((await cli(["halt"])).code).toBe(0);
    expect((await cli(["resume"])).code).toBe(0);
    expect(await pathExists(join(harness, "audit_key"))).toBe(false);
    expect((await auditLines()).some((l) => "mac" in l)).toBe(false);
    const before = await cli(["audit", "verify"]);
    expect(before.code, before.stdout).toBe(0);
    expect(before.stdout).toContain("no audit key");
    const daemonLog = await openAsDaemon();
    expect(daemonLog.loggedHalt()).toMatchObject({ at: expect.any(Number) });
    await daemonLog.close();
    const after = await cli(["audit", "verify"]);
    expect(after.code, after.stdout).toBe(0);
    expect(after.stdout).toContain(
      "draft-review-cli: 2 lines, chain intact (2 from before the audit key, before the key anchor at line 3: history the key cannot prove; " +
        "none of them made a decision surface or ended a halt)",
    );
  });

  it("refuses arguments and documents its exit codes", async () => {
    expect((await cli(["halt", "now"])).code).toBe(1);
    const help = await cli(["halt", "--help"]);
    expect(help.stdout).toMatch(/HARNESS_DIR\/HALT[\s\S]*Exit codes:\n {2}0 {2}done/);
  });
});

describe("draft-review audit verify", () => {
  it("names a line that claims our source without valid proof, lists other writers' lines, and exits 1", async () => {
    const log = await openAsDaemon();
    await log.append([noticeEntry("a"), noticeEntry("b"), noticeEntry("c")]);
    await log.close();
    const path = join(harness, "swarm.jsonl");
    const text = await readFile(path, "utf8");
    // Line 2 edited; another writer's line appended (as line 5).
    await writeFile(path, `${text.replace('"text":"a"', '"text":"A"')}{"source":"scribe","kind":"note"}\n`);
    const run = await cli(["audit", "verify"]);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain("a chain is BROKEN, or a line claims our source without valid proof");
    expect(run.stdout).toMatch(/telegram-draft-for-review: BROKEN at line 2: a line claims this source without valid proof/);
    expect(run.stdout).toMatch(/line 2 \(byte \d+\) claims telegram-draft-for-review without valid proof: its proof does not verify/);
    expect(run.stdout).toContain("another writer's lines (scribe): 1, at line 5; not ours to vouch for");
    const json = jsonLine(await cli(["audit", "verify", "--json", "--source", "telegram-draft-for-review"]));
    expect(json).toMatchObject({
      ok: false,
      chains: [{ source: "telegram-draft-for-review", ok: false, line: 2 }],
      unproven: [{ line: 2 }],
    });
  });

  it("an unknown --source exits 2 naming the known sources", async () => {
    await (await openAsDaemon()).close();
    const run = await cli(["audit", "verify", "--source", "../../x"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      'unknown --source "../../x": the known sources are telegram-draft-for-review (the daemon) and draft-review-cli (the CLI)',
    );
    expect(run.stdout).toBe("");
  });

  it("exit 1 when there is no audit log, saying where it looked", async () => {
    const run = await cli(["audit", "verify"]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/there is no audit log at .*swarm\.jsonl: check HARNESS_DIR/);
  });
});

describe("draft-review status", () => {
  let server: ApiServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it("shows the daemon's report, or JSON with --json", async () => {
    const core = memoryCore();
    await core.intake.submit(payload());
    const status = async () =>
      buildStatusReport({
        mode: "live",
        nowMs: core.clock.now(),
        drafts: core.desk.list(),
        killSwitch: { halted: true, reason: "halted by the owner (/halt or draft-review halt)" },
        digestHour: 8,
      });
    server = await serve(core, { status });
    const env = { DRAFT_API_PORT: String(server.port), DRAFT_API_TOKEN: TOKEN };
    const human = await cli(["status"], env);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toContain("draft-review (live mode)\n⛔ Sends HALTED: halted by the owner");
    expect(human.stdout).toContain("Awaiting a decision: 1 pending, 0 deferred, 0 halted");
    expect(human.stdout).toContain("Daily digest: at 08:00");
    const json = jsonLine(await cli(["status", "--json"], env));
    expect(json).toMatchObject({ mode: "live", kill_switch: { halted: true }, queue: { pending: 1, queued: 0 }, digest_hour: 8 });
  });

  it("when the daemon is down, answers from the store with what .env and HALT say, and says so", async () => {
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, "127.0.0.1", r));
    const port = (probe.address() as { port: number }).port;
    await new Promise((r) => probe.close(r));
    await cli(["halt"]);
    const run = await cli(["status"], { DRAFT_API_PORT: String(port), DRAFT_API_TOKEN: TOKEN });
    expect(run.code).toBe(0);
    expect(run.stderr).toContain(
      `the daemon is not running (nothing answers at http://127.0.0.1:${port}); read ${join(harness, "telegram_drafts.jsonl")} directly, read-only`,
    );
    expect(run.stdout).toContain("draft-review (daemon not running; read from the store)\n⛔ Sends HALTED: halted by the owner");
  });
});
