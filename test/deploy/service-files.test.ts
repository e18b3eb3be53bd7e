import { spawnSync } from "node:child_process";
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
