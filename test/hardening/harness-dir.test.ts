import { chmod, chown, mkdir, readFile, stat, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { freshDirs } from "../support/daemon-process.js";
import { useLiveDaemon } from "../support/live-fixture.js";

// Issue 12 item 4: HARNESS_DIR is ours alone.

const live = useLiveDaemon();

/** Starts the daemon on `dirs` and expects it to refuse: resolves with its exit code and stderr. */
async function refusedStart(dirs: { cwd: string; harnessDir: string }, env: Record<string, string> = {}) {
  const daemon = await live.start(env, { dirs, waitUntilRunning: false });
  const code = await Promise.race([
    daemon.exited,
    new Promise<"running">(
      (r) =>
        void daemon
          .waitForLog((l) => l.msg === "draft-review is running", 15_000)
          .then(
            () => r("running"),
            () => {},
          ),
    ),
  ]);
  return { code, stderr: daemon.rawStderr() };
}

const canChown = typeof process.getuid === "function" && process.getuid() === 0;
const OTHER_UID = 65534; // nobody

describe("HARNESS_DIR must be the daemon user's alone (live daemon)", () => {
  it("refuses a HARNESS_DIR that others can write to, saying `chmod 700`", async () => {
    const dirs = await freshDirs();
    await mkdir(dirs.harnessDir);
    await chmod(dirs.harnessDir, 0o777);
    const { code, stderr } = await refusedStart(dirs);
    expect(code).toBe(78);
    expect(stderr).toContain(`${dirs.harnessDir} is writable by group and others (mode 0777): \`chmod 700 ${dirs.harnessDir}\``);
  });

  it("refuses a planted swarm.jsonl symlink, and writes nothing through it", async () => {
    const dirs = await freshDirs();
    await mkdir(dirs.harnessDir, { mode: 0o700 });
    const victim = join(dirs.cwd, "victim.txt");
    await writeFile(victim, "someone else's file\n");
    await symlink(victim, join(dirs.harnessDir, "swarm.jsonl"));
    const { code, stderr } = await refusedStart(dirs);
    expect(code).toBe(78);
    expect(stderr).toContain(`${join(dirs.harnessDir, "swarm.jsonl")} is a symbolic link`);
    expect(await readFile(victim, "utf8")).toBe("someone else's file\n");
  });

  it("refuses an api_token that others can read (no longer a warning)", async () => {
    const dirs = await freshDirs();
    await mkdir(dirs.harnessDir, { mode: 0o700 });
    await writeFile(join(dirs.harnessDir, "api_token"), "planted-token-0123456789abcdef\n");
    await chmod(join(dirs.harnessDir, "api_token"), 0o644);
    const { code, stderr } = await refusedStart(dirs, { DRAFT_API_TOKEN: "" });
    expect(code).toBe(78);
    expect(stderr).toMatch(/api_token can be read by other users \(mode 0644\).*delete it and restart the daemon/);
    // Refused after the core was open: every part closed again (the stack of closers), the lock released.
    await expect(stat(join(dirs.harnessDir, "daemon.lock"))).rejects.toThrow(/ENOENT/);
  });

  it.runIf(canChown)("refuses a store that another user put there (a forged `approved` line), before reading it", async () => {
    const dirs = await freshDirs();
    await mkdir(dirs.harnessDir, { mode: 0o700 });
    const store = join(dirs.harnessDir, "telegram_drafts.jsonl");
    await writeFile(store, "", { mode: 0o644 });
    await chown(store, OTHER_UID, OTHER_UID);
    const { code, stderr } = await refusedStart(dirs);
    expect(code).toBe(78);
    expect(stderr).toContain(`${store} is owned by uid ${OTHER_UID}, not by this user`);
  });

  it("creates a missing HARNESS_DIR with mode 0700 and says so", async () => {
    const dirs = await freshDirs();
    const daemon = await live.start({}, { dirs });
    expect((await stat(dirs.harnessDir)).mode & 0o777).toBe(0o700);
    expect(daemon.logs.some((l) => l.msg === "created HARNESS_DIR, readable and writable by this user only")).toBe(true);
  });
});
