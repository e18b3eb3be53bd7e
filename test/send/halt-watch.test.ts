import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { SimulatedClock } from "../../src/clock/simulated-clock.js";
import { ownerHalt, ownerResume } from "../../src/owner/owner-switch.js";
import { readHaltRecord } from "../../src/send/halt-record.js";
import { approvalHalt, haltVoidsApproval, watchKillSwitch } from "../../src/send/halt-watch.js";
import { envKillSwitch } from "../../src/send/kill-switch.js";
import { T0 } from "../support/drafts.js";

// Issue 19 item 3: a halt's start and end are on disk, so a halt that came and went before a restart still voids older approvals.

const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

async function harness() {
  const dir = await mkdtemp(join(tmpdir(), "halt-watch-"));
  dirs.push(dir);
  const haltPath = join(dir, "HALT");
  const recordPath = join(dir, "halt_record.json");
  const clock = new SimulatedClock(T0);
  const open = () =>
    watchKillSwitch(envKillSwitch({ processValue: undefined, envFilePath: join(dir, ".env"), ownerHaltPath: haltPath }), {
      clock,
      pollMs: 0,
      recordPath,
    });
  return { dir, haltPath, recordPath, clock, open };
}

const iso = (ms: number) => new Date(ms).toISOString();

describe("the halt record (HARNESS_DIR/halt_record.json)", () => {
  it("a halt seen and lifted in one run voids an older approval in the next run, not a later one", async () => {
    const h = await harness();
    const first = h.open();
    expect(await first.check()).toEqual({ halted: false });
    expect((await readHaltRecord(h.recordPath)).kind).toBe("none");
    const approvedAt = iso(h.clock.now());
    await h.clock.advance(1_000);
    await writeFile(h.haltPath, "{}\n");
    expect((await first.check()).halted).toBe(true);
    expect(await readHaltRecord(h.recordPath)).toMatchObject({ record: { began_at: iso(T0 + 1_000), ended_at: null } });
    await h.clock.advance(1_000);
    await rm(h.haltPath);
    expect(await first.check()).toEqual({ halted: false });
    expect(await readHaltRecord(h.recordPath)).toMatchObject({ record: { ended_at: iso(T0 + 2_000) } });
    first.stop();

    // kill -9 and a start: the new process's memory is empty, the record is not.
    await h.clock.advance(1_000);
    const next = h.open();
    await next.check();
    expect(haltVoidsApproval(approvedAt, next.lastHalt())).toMatch(/a halt began after the approval/);
    expect(haltVoidsApproval(iso(T0 + 2_500), next.lastHalt())).toBeNull();
    next.stop();
  });

  it("a halt a stop left lasting, lifted while the daemon was down, ends at the next start (its real end is unknown)", async () => {
    const h = await harness();
    const first = h.open();
    await writeFile(h.haltPath, "{}\n");
    await first.check();
    first.stop();
    await rm(h.haltPath); // by hand, while the daemon is down: nobody records the end
    await h.clock.advance(60_000);
    const next = h.open();
    expect(await next.check()).toEqual({ halted: false });
    expect(await readHaltRecord(h.recordPath)).toMatchObject({ record: { ended_at: iso(T0 + 60_000) } });
    expect(haltVoidsApproval(iso(T0 + 59_999), next.lastHalt())).not.toBeNull();
    next.stop();
  });

  it("a damaged record counts as a halt lasting until now, and is replaced by the next look", async () => {
    const h = await harness();
    await writeFile(h.recordPath, "{not json");
    const w = h.open();
    await w.check();
    expect(haltVoidsApproval(iso(T0 - 1), w.lastHalt())).toMatch(/damaged/);
    expect(await readHaltRecord(h.recordPath)).toMatchObject({ kind: "record", record: { ended_at: iso(T0) } });
    w.stop();
  });

  it("`draft-review halt` and `resume` (no daemon running) record the halt's start and end", async () => {
    const h = await harness();
    const deps = { haltPath: h.haltPath, audit: { append: async () => {} }, now: () => h.clock.now() };
    const actor = { user_id: null, channel: "cli" as const };
    await ownerHalt(deps, actor);
    expect(await readHaltRecord(h.recordPath)).toMatchObject({ record: { began_at: iso(T0), ended_at: null } });
    await h.clock.advance(5_000);
    await ownerResume(deps, actor);
    expect(await readHaltRecord(h.recordPath)).toMatchObject({ record: { began_at: iso(T0), ended_at: iso(T0 + 5_000) } });
    const w = h.open();
    await w.check();
    expect(haltVoidsApproval(iso(T0 + 4_999), w.lastHalt())).not.toBeNull();
    expect(haltVoidsApproval(iso(T0 + 5_001), w.lastHalt())).toBeNull();
    w.stop();
  });
});

describe("a look is dated when it read the switch", () => {
  // Found by test/daemon/restart-decisions.test.ts ("removed while the daemon runs", 7 of 18 runs at load 6): the hook
  // that audits a HALT removed by hand waits on the audit log, and the look then dated the halt's end (and its record)
  // when it was done, after a 👍 made meanwhile, which the halt then voided though it came after the removal.
  it("a halt whose HALT was removed ends when a look read the switch off, not when its slow hook finished", async () => {
    const h = await harness();
    let hookDone: () => void = () => {};
    let hookEntered: () => void = () => {};
    const entered = new Promise<void>((r) => (hookEntered = r));
    let slow = false;
    const watched = watchKillSwitch(
      envKillSwitch({ processValue: undefined, envFilePath: join(h.dir, ".env"), ownerHaltPath: h.haltPath }),
      {
        clock: h.clock,
        pollMs: 0,
        recordPath: h.recordPath,
        beforeVerdict: () => {
          if (!slow) return Promise.resolve();
          hookEntered();
          return new Promise<void>((r) => (hookDone = r));
        },
      },
    );
    await writeFile(h.haltPath, "{}\n");
    expect((await watched.check()).halted).toBe(true);
    await h.clock.advance(1_000);
    await rm(h.haltPath);
    slow = true;
    const look = watched.check();
    await entered;
    await h.clock.advance(500);
    // A 👍 now, after the look read the switch off, while its hook still runs.
    const approvedAt = iso(h.clock.now());
    await h.clock.advance(500);
    hookDone();
    expect(await look).toEqual({ halted: false });
    expect(await readHaltRecord(h.recordPath)).toMatchObject({ record: { ended_at: iso(T0 + 1_000) } });
    expect(haltVoidsApproval(approvedAt, watched.lastHalt())).toBeNull();
    watched.stop();
  });
});

describe("approvalHalt", () => {
  it("a halt that begins while the switch is read is lasting, not a halt that came and went (issue 32: kill-switch's 429 test)", async () => {
    const h = await harness();
    const approvedAt = iso(T0 - 1000);
    let writes = 1;
    const switchOf = watchKillSwitch(
      envKillSwitch({ processValue: undefined, envFilePath: join(h.dir, ".env"), ownerHaltPath: h.haltPath }),
      {
        clock: h.clock,
        pollMs: 0,
        // HALT is written after the first look read the switch and before its verdict is used; its watcher notes it.
        beforeVerdict: async () => {
          if (writes-- !== 1) return;
          await writeFile(h.haltPath, "{}\n");
          switchOf.noteHalt(`${h.haltPath} changed`);
        },
      },
    );
    expect(await approvalHalt(switchOf, approvedAt)).toEqual({
      reason: "kill switch: halted by the owner (/halt or draft-review halt)",
      lasting: true,
    });
    await rm(h.haltPath);
    expect(await approvalHalt(switchOf, approvedAt)).toMatchObject({ lasting: false });
    switchOf.stop();
  });
});

describe("onHaltStarted", () => {
  it("is heard once when a look finds a halt after one that did not, not at every look while it lasts; again after it ended", async () => {
    const h = await harness();
    const w = h.open();
    let started = 0;
    let ended = 0;
    w.onHaltStarted(() => started++);
    w.onHaltEnded(() => ended++);
    await w.check();
    expect(started).toBe(0);
    await writeFile(h.haltPath, "{}\n");
    await w.check();
    await w.check();
    expect(started).toBe(1);
    await rm(h.haltPath);
    await w.check();
    expect([started, ended]).toEqual([1, 1]);
    await writeFile(join(h.dir, ".env"), "TAO_SWARM_ENABLED=0\n");
    await w.check();
    expect(started).toBe(2);
    w.stop();
  });
});
