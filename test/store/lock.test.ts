import { spawn, spawnSync } from "node:child_process";
import { readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { acquireLock, LockHeldError } from "../../src/store/lock.js";
import { memoryLog, tempDir } from "./helpers.js";

const bootId = await readFile("/proc/sys/kernel/random/boot_id", "utf8").then(
  (s) => s.trim(),
  () => "",
);

describe("acquireLock", () => {
  it("writes our pid, refuses a second holder, and frees the file on release", async () => {
    const dir = join(await tempDir(), "harness");
    const lock = await acquireLock(dir);
    const path = join(dir, "daemon.lock");
    expect((await readFile(path, "utf8")).split("\n")[0]).toBe(String(process.pid));
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    const err = await acquireLock(dir).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LockHeldError);
    expect((err as Error).message).toContain(`pid ${process.pid}`);
    await lock.release();
    await lock.release();
    await expect(stat(path)).rejects.toMatchObject({ code: "ENOENT" });
    await (await acquireLock(dir)).release();
  });

  it("names the pid of another live daemon", async () => {
    const dir = await tempDir();
    const child = spawn(process.execPath, ["-e", "setTimeout(() => {}, 30000)"], { stdio: "ignore" });
    try {
      await writeFile(join(dir, "daemon.lock"), `${child.pid}\n${bootId}\n`);
      const err = await acquireLock(dir).catch((e: unknown) => e);
      expect(err).toMatchObject({ name: "LockHeldError", pid: child.pid });
      expect((err as Error).message).toMatch(new RegExp(`pid ${child.pid}.*stop it`));
    } finally {
      child.kill("SIGKILL");
    }
  });

  it("takes over a lock whose process is gone, with a warning", async () => {
    const dir = await tempDir();
    const dead = spawnSync(process.execPath, ["-e", ""]).pid;
    await writeFile(join(dir, "daemon.lock"), `${dead}\n${bootId}\n`);
    const log = memoryLog();
    const lock = await acquireLock(dir, log);
    expect(log.warns[0]).toMatchObject({ obj: { stalePid: dead }, msg: expect.stringMatching(/stale/) });
    expect((await readFile(join(dir, "daemon.lock"), "utf8")).startsWith(`${process.pid}\n`)).toBe(true);
    await lock.release();
  });

  it("takes over a lock from before a reboot even if its pid is alive now", async () => {
    const dir = await tempDir();
    await writeFile(join(dir, "daemon.lock"), `1\nsome-other-boot\n`);
    const log = memoryLog();
    const lock = await acquireLock(dir, log);
    expect(log.warns[0]?.obj).toMatchObject({ stalePid: 1, staleBoot: bootId !== "" });
    await lock.release();
  });

  it.each([
    ["empty", ""],
    ["garbled", "\u0000\u0000garbage, not a pid\n\u00ff\n"],
    ["a negative pid", "-1\n"],
  ])("takes over an %s lock file, says so, and holds the lock afterwards", async (_kind, content) => {
    const dir = await tempDir();
    const path = join(dir, "daemon.lock");
    await writeFile(path, content);
    const log = memoryLog();
    const lock = await acquireLock(dir, log);
    expect(log.warns).toHaveLength(1);
    expect(log.warns[0]!.msg).toMatch(/stale/);
    expect((await readFile(path, "utf8")).split("\n")[0]).toBe(String(process.pid));
    expect(await acquireLock(dir).catch((e: unknown) => e)).toBeInstanceOf(LockHeldError);
    await lock.release();
    await expect(stat(path)).rejects.toMatchObject({ code: "ENOENT" });
  });
});
