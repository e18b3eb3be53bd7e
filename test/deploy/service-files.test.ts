import { spawn, spawnSync } from "node:child_process";
import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";

// Issue 12 item 8: a sandboxed service.

const UNIT = resolve(import.meta.dirname, "../../deploy/systemd/draft-review.service");
const PLIST = resolve(import.meta.dirname, "../../deploy/launchd/com.tao.draft-review.plist");
const analyze = spawnSync("systemd-analyze", ["--version"], { encoding: "utf8" });
const hasAnalyze = analyze.status === 0;

/** The unit's settings, one entry per line (later lines of the same key kept in order). */
async function unitSettings(): Promise<Array<[string, string]>> {
  const text = await readFile(UNIT, "utf8");
  return text
    .split("\n")
    .filter((l) => /^[A-Za-z]+=/.test(l))
    .map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)] as [string, string]);
}

describe("deploy/systemd/draft-review.service", () => {
  it.runIf(hasAnalyze)("`systemd-analyze security --offline=true` rates it 3.0 or below", () => {
    const r = spawnSync("systemd-analyze", ["security", "--offline=true", UNIT], { encoding: "utf8" });
    const score = /Overall exposure level for draft-review\.service: (\d+\.\d)/.exec(r.stdout + r.stderr);
    expect(score, r.stdout + r.stderr).not.toBeNull();
    expect(Number(score![1])).toBeLessThanOrEqual(3.0);
  });

  it("gives the daemon what a Node service needs: its HARNESS_DIR writable, the network, JIT memory", async () => {
    const settings = new Map(await unitSettings());
    expect(settings.get("ProtectSystem")).toBe("strict");
    expect(settings.get("ProtectHome")).toBe("read-only");
    expect(settings.get("ReadWritePaths")).toBe("%h/telegram-draft-for-review/.harness");
    expect(settings.get("RestrictAddressFamilies")).toBe("AF_INET AF_INET6 AF_UNIX");
    // V8 needs writable+executable memory; MemoryDenyWriteExecute=yes would kill node at start.
    expect(settings.get("MemoryDenyWriteExecute")).toBe("no");
    expect(settings.get("NoNewPrivileges")).toBe("yes");
    expect(settings.get("RestartPreventExitStatus")).toBe("78");
  });
});

describe("deploy/launchd/com.tao.draft-review.plist", () => {
  it("keeps files private (Umask 077), no core dumps, and documents the sandbox-exec profile", async () => {
    const plist = await readFile(PLIST, "utf8");
    expect(plist).toMatch(/<key>Umask<\/key>\s*<integer>63<\/integer>/);
    expect(plist).toMatch(/<key>Core<\/key>\s*<integer>0<\/integer>/);
    expect(plist).toContain("deploy/launchd/draft-review.sb");
    const profile = await readFile(resolve(import.meta.dirname, "../../deploy/launchd/draft-review.sb"), "utf8");
    expect(profile).toContain("(deny file-write*)");
  });
});

// Issue 28 point 1: a refusal to start because of data (exit 78) is not restarted in a loop by either service.
const WRAPPER = resolve(import.meta.dirname, "../../deploy/launchd/run-daemon.sh");

/** Runs the launchd wrapper around `node -e script`; `signal` is sent to the wrapper once the script says "ready". */
function runWrapped(script: string, signal?: NodeJS.Signals): Promise<{ code: number | null; stderr: string; stdout: string }> {
  return new Promise((done, fail) => {
    const child = spawn("/bin/sh", [WRAPPER, process.execPath, "-e", script], { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => {
      stdout += c.toString();
      if (signal && stdout.includes("ready")) child.kill(signal);
    });
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
    child.on("error", fail);
    child.on("close", (code) => done({ code, stderr, stdout }));
  });
}

describe("no restart loop on a refusal to start (exit 78)", () => {
  it("systemd: Restart=on-failure, but never on 78", async () => {
    const settings = new Map(await unitSettings());
    expect(settings.get("Restart")).toBe("on-failure");
    expect(settings.get("RestartPreventExitStatus")).toBe("78");
  });

  it("launchd: the plist runs node through run-daemon.sh and restarts only a failed exit", async () => {
    const plist = await readFile(PLIST, "utf8");
    expect(plist).toMatch(
      /<key>ProgramArguments<\/key>\s*<array>\s*<string>\/bin\/sh<\/string>\s*<string>[^<]*\/deploy\/launchd\/run-daemon\.sh<\/string>\s*<string>[^<]*node<\/string>\s*<string>dist\/main\.js<\/string>/,
    );
    expect(plist).toMatch(/<key>KeepAlive<\/key>\s*<dict>\s*<key>SuccessfulExit<\/key>\s*<false\/>/);
  });

  it("run-daemon.sh turns 78 into a clean exit (launchd leaves it stopped) and says so; passes every other code on", async () => {
    const refused = await runWrapped("process.stderr.write('draft-review: cannot start.\\n'); process.exit(78)");
    expect(refused.code).toBe(0);
    expect(refused.stderr).toContain("draft-review: cannot start.");
    expect(refused.stderr).toContain("refused to start (exit 78");
    expect(refused.stderr).toContain("launchctl kickstart");
    expect((await runWrapped("process.exit(1)")).code).toBe(1);
    expect((await runWrapped("process.exit(0)")).code).toBe(0);
  });

  it("run-daemon.sh passes SIGTERM on to the daemon and exits with the daemon's own code once it has stopped", async () => {
    const script =
      "process.on('SIGTERM', () => setTimeout(() => { process.stdout.write('drained'); process.exit(0); }, 200)); process.stdout.write('ready'); setInterval(() => {}, 1000)";
    const run = await runWrapped(script, "SIGTERM");
    expect(run.stdout).toContain("drained");
    expect(run.code).toBe(0);
    const failing = await runWrapped(
      "process.on('SIGTERM', () => process.exit(3)); process.stdout.write('ready'); setInterval(() => {}, 1000)",
      "SIGTERM",
    );
    expect(failing.code).toBe(3);
  });
});
