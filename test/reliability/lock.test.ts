/**
 * One daemon per HARNESS_DIR (issue 4), end to end with real processes: a
 * second daemon on the same directory refuses to start, names the process
 * that holds the lock and exits non-zero, and the first one is not disturbed;
 * two started at once leave exactly one running; a lock left by kill -9 is
 * taken over.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { LOCK_FILE } from "../../src/store/lock.js";
import { eventually, freshDirs, type DaemonProcess } from "../support/daemon-process.js";
import { useLiveDaemon } from "../support/live-fixture.js";
import { daemonEnv, FRIENDS, OWNER, report, sweepDouble } from "./support/sweep-world.js";

const live = useLiveDaemon({ double: sweepDouble });

function start(dirs: { cwd: string; harnessDir: string }, wait = true): Promise<DaemonProcess> {
  return live.start(daemonEnv(live.double), { dirs, waitUntilRunning: wait });
}

async function submit(d: DaemonProcess, text: string): Promise<number> {
  const res = await d.request("POST", "/drafts", {
    draft_text: text,
    destination_chat_id: String(FRIENDS[0]),
    drafted_by_role: "Scribe",
    originating_intent_id: "lock",
  });
  return res.status;
}

describe("one daemon per HARNESS_DIR", () => {
  it("refuses a second daemon, naming the pid that holds the lock, and leaves the first undisturbed", async () => {
    const dirs = await freshDirs();
    const first = await start(dirs);
    // Another working directory, the same HARNESS_DIR.
    const other = { cwd: (await freshDirs()).cwd, harnessDir: dirs.harnessDir };
    const t0 = Date.now();
    const second = await start(other, false);
    const code = await second.exited;
    const ms = Date.now() - t0;
    const stderr = second.rawStderr();
    expect(code).not.toBe(0);
    expect(code).not.toBeNull();
    expect(stderr).toContain(`another draft-review daemon (pid ${first.child.pid})`);
    expect(stderr).toContain(join(dirs.harnessDir, LOCK_FILE));
    expect(stderr).toContain("cannot start");
    expect(stderr).not.toContain("unexpected error");
    // The first daemon still holds the lock, still polls alone, still takes drafts.
    expect(first.child.exitCode).toBeNull();
    expect(await submit(first, "Still here after a second daemon tried")).toBe(201);
    expect(first.logs.some((l) => /409|Conflict/.test(String(l.msg)))).toBe(false);
    expect(existsSync(join(dirs.harnessDir, LOCK_FILE))).toBe(true);
    report("lock second-daemon", { exit_code: code, refused_in_ms: ms, names_pid: true, first_undisturbed: true });
  }, 60_000);

  it("two daemons started at once: exactly one runs, the other names it", async () => {
    const dirs = await freshDirs();
    const [a, b] = await Promise.all([start(dirs, false), start(dirs, false)]);
    const outcome = (d: DaemonProcess) =>
      Promise.race([
        d.waitForLog((l) => l.msg === "draft-review is running", 30_000).then(() => "running"),
        d.exited.then((c) => `exit ${c}`),
      ]);
    const [ra, rb] = await Promise.all([outcome(a!), outcome(b!)]);
    expect([ra, rb].sort()).toEqual(["exit 1", "running"].sort());
    const [winner, loser] = ra === "running" ? [a!, b!] : [b!, a!];
    expect(loser.rawStderr()).toContain(`pid ${winner.child.pid}`);
    report("lock simultaneous-start", { running: 1, refused: 1, refused_exit_code: loser.child.exitCode });
  }, 60_000);

  it("takes over the lock a kill -9 left, and removes it on a clean stop", async () => {
    const dirs = await freshDirs();
    const first = await start(dirs);
    await first.stop("SIGKILL");
    expect(existsSync(join(dirs.harnessDir, LOCK_FILE))).toBe(true);
    const next = await start(dirs);
    expect(next.logs.some((l) => String(l.msg).startsWith("took over a stale daemon lock") && l.stalePid === first.child.pid)).toBe(true);
    expect(await submit(next, "After a takeover")).toBe(201);
    await eventually(() => live.double.messages(OWNER).length === 1, 10_000, "posted for review");
    expect(await next.stop("SIGTERM")).toBe(0);
    expect(existsSync(join(dirs.harnessDir, LOCK_FILE))).toBe(false);
    report("lock stale-takeover", { took_over_from_pid: first.child.pid, clean_stop_removes_lock: true });
  }, 60_000);
});
