import { mkdir, open, readFile, rm, writeFile, type FileHandle } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import { harnessPaths } from "../../src/app/paths.js";
import { AuditLog } from "../../src/audit/audit-log.js";
import { loadCheckpoint } from "../../src/audit/checkpoint.js";
import { ARCHIVE_RETRY_MS } from "../../src/desk/archive-schedule.js";
import type { TelegramDouble } from "../telegram-double/index.js";
import { eventually, freshDirs, type DaemonProcess } from "../support/daemon-process.js";
import { liveDaemon, liveDouble, OWNER, payload as livePayload } from "../support/live-fixture.js";
import { approve, cleanup, figures, memoryLogger, openTestCore, payload, sweepDir, type TestCore } from "./support/hostile-kit.js";
import { readStore } from "./support/sweep-files.js";
import { fillDisk, tinyTmpfs } from "./support/tiny-tmpfs.js";

const DAY = 86_400_000;
const DRAFTS = 4;
const FAILED = "archiving old drafts failed; they stay in the store and are tried again later";

afterEach(() => {
  vi.restoreAllMocks();
});
afterAll(cleanup);

type Mode = "count" | "once" | "disk-full" | "dying-disk";

async function fileHandleProto(dir: string): Promise<FileHandle> {
  const fh = await open(join(dir, "probe"), "w");
  await fh.close();
  return Object.getPrototypeOf(fh) as FileHandle;
}

const fsError = (code: string) => Object.assign(new Error(`${code}: injected fault`), { code });

/**
 * Wraps write, sync and datasync of every FileHandle: counts the calls and,
 * from call `failAt` on, fails as `mode` says until `freed`.
 */
function injectFaults(proto: FileHandle, mode: Mode, failAt: number) {
  type Raw = (this: FileHandle, ...args: any[]) => Promise<any>;
  const state = { calls: 0, failures: 0, freed: false };
  const failing = (n: number, kind: "write" | "sync") => {
    if (mode === "count" || state.freed) return false;
    if (mode === "once") return n === failAt;
    if (mode === "disk-full") return kind === "write" && n >= failAt;
    return kind === "sync" && n >= failAt;
  };
  const realWrite = proto.write as unknown as Raw;
  vi.spyOn(proto, "write").mockImplementation(async function (this: FileHandle, ...args: any[]) {
    const n = ++state.calls;
    if (!failing(n, "write")) return realWrite.apply(this, args);
    state.failures++;
    // A full disk takes part of the first write that does not fit.
    if (state.failures === 1 && Buffer.isBuffer(args[0])) {
      const data = args[0] as Buffer;
      const off = (args[1] as number | undefined) ?? 0;
      const len = (args[2] as number | undefined) ?? data.length - off;
      await realWrite.call(this, data, off, Math.floor(len / 2));
    }
    throw fsError("ENOSPC");
  } as unknown as typeof proto.write);
  for (const name of ["sync", "datasync"] as const) {
    const real = proto[name] as unknown as Raw;
    vi.spyOn(proto, name).mockImplementation(async function (this: FileHandle) {
      const n = ++state.calls;
      if (!failing(n, "sync")) return real.call(this);
      state.failures++;
      throw fsError(mode === "once" ? "ENOSPC" : "EIO");
    });
  }
  return state;
}

/** A core with DRAFTS sent drafts whose retention ends in an hour: the next daily pass archives them. */
async function almostOld(h: string): Promise<{ tc: TestCore; ids: string[] }> {
  await mkdir(h, { recursive: true });
  const tc = await openTestCore(h);
  const ids: string[] = [];
  for (let i = 0; i < DRAFTS; i++) {
    const sub = await tc.core.intake.submit(payload(`Archive me ${i}`, { idempotency_key: `key-${i}` }));
    if (!sub.ok) throw new Error("submit");
    await approve(tc, sub.answer.review_message_id!, i + 1);
    ids.push(sub.answer.draft_id);
  }
  await tc.core.desk.settle();
  // Daily passes run at +1d, +2d...; the one at +30d archives them.
  await advance(tc, 30 * DAY - 1);
  expect(tc.core.store.latest.size).toBe(DRAFTS);
  return { tc, ids };
}

async function advance(tc: TestCore, ms: number): Promise<void> {
  await tc.clock.advance(ms, async () => {
    await tc.core.archiving.idle();
    await tc.core.desk.settle();
  });
}

/** Every draft is found, sent, and filed at most once (readStore throws on a draft archived twice). */
async function checkNothingLost(tc: TestCore, h: string, ids: readonly string[], what: string): Promise<{ archived: number }> {
  for (const id of ids) expect((await tc.core.desk.find(id))?.status, `${what}: ${id}`).toBe("sent");
  const view = await readStore(h);
  for (const id of ids) expect(view.drafts.get(id)?.status, `${what}: ${id} on disk`).toBe("sent");
  return { archived: ids.filter((id) => !tc.core.store.latest.has(id)).length };
}

describe("a failing write or fsync while final drafts are archived (in-process sweep)", () => {
  it("loses and duplicates nothing, keeps serving, says so, and archives at the retry", async () => {
    const t0 = performance.now();
    const base = await sweepDir("archive-faults-");
    const proto = await fileHandleProto(base);

    const dry = await almostOld(join(base, "dry", ".harness"));
    const counter = injectFaults(proto, "count", 0);
    await advance(dry.tc, 1);
    const total = counter.calls;
    vi.restoreAllMocks();
    expect(dry.tc.core.store.latest.size).toBe(0);
    await dry.tc.core.close();

    const tally = { cases: 0, pass_failed: 0, pass_survived: 0, archived_at_retry: 0, store_refuses_until_restart: 0, restarts: 0 };
    for (const mode of ["once", "disk-full", "dying-disk"] as const) {
      for (let failAt = 1; failAt <= total; failAt++) {
        const h = join(base, `${mode}-${failAt}`, ".harness");
        const { tc, ids } = await almostOld(h);
        const faults = injectFaults(proto, mode, failAt);
        await advance(tc, 1);
        const failed = tc.logLines.some((l) => l.msg === FAILED);
        const what = `${mode}@${failAt}`;
        if (failed) {
          tally.pass_failed++;
          expect(tc.core.archiving.problem(), what).toMatch(/^archiving old drafts failed at .*nothing is lost; tried again at /);
        } else {
          tally.pass_survived++;
          expect(faults.failures, `${what}: a fault went unnoticed`).toBe(0);
        }
        // While the disk is still bad: every draft is found, none is lost or filed twice.
        await checkNothingLost(tc, h, ids, `${what} during`);

        // The disk frees up; the pass is tried again within the hour. (An fsync of the directory that failed
        // after the store's rename leaves the store refusing writes until a restart: it cannot know that the
        // rename is durable, and a write to the new file could vanish with it. Then the restart's pass archives.)
        faults.freed = true;
        vi.restoreAllMocks();
        await advance(tc, ARCHIVE_RETRY_MS);
        let live = tc;
        if (/restart the daemon/.test(tc.core.archiving.problem() ?? "")) {
          tally.store_refuses_until_restart++;
          await tc.core.close();
          live = await openTestCore(h, { clock: tc.clock });
        }
        expect(live.core.archiving.problem(), what).toBeNull();
        const after = await checkNothingLost(live, h, ids, `${what} after the retry`);
        expect(after.archived, what).toBe(DRAFTS);
        if (failed) tally.archived_at_retry++;
        // It keeps serving: a new draft is accepted.
        expect((await live.core.intake.submit(payload(`After ${what}`))).ok, what).toBe(true);

        // A restart changes nothing: each draft once in archive/, none back in the store.
        await live.core.close();
        const again = await openTestCore(h, { clock: tc.clock });
        for (const id of ids) expect(again.core.store.latest.has(id), `${what} restart: ${id} in the store`).toBe(false);
        await checkNothingLost(again, h, ids, `${what} restart`);
        await again.core.close();
        tally.restarts++;
        tally.cases++;
      }
    }
    figures("io-faults-archive in-process", {
      writes_and_fsyncs_per_pass: total,
      modes: 3,
      drafts_per_case: DRAFTS,
      ...tally,
      seconds: Number(((performance.now() - t0) / 1000).toFixed(1)),
    });
  });
});

describe("a checkpoint that cannot be written (disk full)", () => {
  it("at close: the old checkpoint stays, and the next open reads the tail after it", async () => {
    const dir = await sweepDir("checkpoint-full-");
    const proto = await fileHandleProto(dir);
    const path = join(dir, "swarm.jsonl");
    const checkpointPath = join(dir, "audit_index.json");
    const { log, lines } = memoryLogger("info");
    let audit = await AuditLog.open({ path, log, checkpointPath });
    await audit.append([{ kind: "status_due", draft_id: "d_one", version: 1 }]);
    await audit.close();
    const old = await readFile(checkpointPath);
    audit = await AuditLog.open({ path, log, checkpointPath });
    await audit.append([{ kind: "status_due", draft_id: "d_two", version: 1 }]);
    const faults = injectFaults(proto, "disk-full", 1);
    await audit.close();
    faults.freed = true;
    vi.restoreAllMocks();
    expect(faults.failures).toBeGreaterThan(0);
    expect(lines.some((l) => l.msg === "could not write the audit index checkpoint; the next start reads more of the audit log")).toBe(
      true,
    );
    expect(await readFile(checkpointPath)).toEqual(old);
    const reopened = await AuditLog.open({ path, log, checkpointPath });
    expect(reopened.opened.fromCheckpoint).toBe(true);
    expect(reopened.index.statusEditOwed("d_two")).toBe(true);
    expect(reopened.lastSeq).toBe(2);
    await reopened.close();
  });

  it("at an open that read a long log: the open succeeds on a full scan, and a later checkpoint is written", async () => {
    const dir = await sweepDir("checkpoint-full-");
    const proto = await fileHandleProto(dir);
    const path = join(dir, "swarm.jsonl");
    const checkpointPath = join(dir, "audit_index.json");
    // Over 1 MiB of another writer's lines: an open that reads them all checkpoints at once.
    const other = `${JSON.stringify({ ts: new Date().toISOString(), source: "another-agent", event: "x".repeat(200) })}\n`;
    await writeFile(path, other.repeat(Math.ceil((1.2 * 2 ** 20) / other.length)));
    const { log, lines } = memoryLogger("info");
    const faults = injectFaults(proto, "disk-full", 1);
    const audit = await AuditLog.open({ path, log, checkpointPath });
    faults.freed = true;
    vi.restoreAllMocks();
    expect(faults.failures).toBeGreaterThan(0);
    expect(lines.some((l) => l.msg === "could not write the audit index checkpoint; the next start reads more of the audit log")).toBe(
      true,
    );
    expect((await loadCheckpoint(checkpointPath, null)).ok).toBe(false);
    await audit.append([{ kind: "status_due", draft_id: "d_after", version: 1 }]);
    await audit.close();
    const saved = await loadCheckpoint(checkpointPath, null);
    expect(saved.ok && saved.snapshot.last_seq).toBe(1);
  });
});

/* ---------- the real daemon on a tiny tmpfs ---------- */

const { mountPoint, mounted, problem: mountProblem } = await tinyTmpfs("archive-tmpfs-");

let double: TelegramDouble | undefined;
let daemon: DaemonProcess | undefined;
afterAll(async () => {
  await daemon?.stop("SIGKILL");
  await double?.stop();
});

describe("the real daemon when the disk is full as start-up archives (tmpfs)", () => {
  it("starts, serves every draft, warns in /healthz and the log, and archives at the next start", async (ctx) => {
    if (!mounted) {
      console.log(`[reliability] io-faults-archive tmpfs skipped: cannot mount a tmpfs here (${mountProblem || "not permitted"})`);
      ctx.skip();
    }
    const t0 = performance.now();
    double = await liveDouble();
    const cwd = (await freshDirs()).cwd;
    const harnessDir = join(mountPoint, ".harness");
    const env = { DRAFT_RETENTION: "1s", TELEGRAM_RATE_SCALE: "50" };
    daemon = await liveDaemon(double, env, { cwd, harnessDir });
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await daemon.request(
        "POST",
        "/drafts",
        livePayload(`Archive on a full disk ${i}`, { originating_intent_id: `full-${i}` }),
      );
      expect(res.status).toBe(201);
      ids.push(res.body.draft_id);
      const post = await eventually(async () => (await daemon!.request("GET", `/drafts/${res.body.draft_id}`)).body.review_message_id);
      double.injectReaction({ chatId: OWNER, messageId: post, userId: OWNER, newEmojis: ["👍"] });
    }
    const sentAt: number[] = [];
    for (const id of ids) {
      const sent = await eventually(async () => {
        const r = (await daemon!.request("GET", `/drafts/${id}`)).body;
        return r.status === "sent" ? (r.updated_at as string) : null;
      });
      sentAt.push(Date.parse(sent));
    }
    expect(await daemon.stop("SIGTERM")).toBe(0);
    // The next start must find them past DRAFT_RETENTION (1 s after their last change).
    const due = Math.max(...sentAt) + 1_100 - Date.now();
    if (due > 0) await new Promise((r) => setTimeout(r, due));

    // The disk fills up; the next start finds the drafts past DRAFT_RETENTION and cannot archive them.
    const filler = join(mountPoint, "filler");
    // Room for the lock file and a few audit lines, not for the month file's temp copy.
    const filled = await fillDisk(filler, 4096);
    daemon = await liveDaemon(double, env, { cwd, harnessDir });
    const failed = await daemon.waitForLog((l) => l.msg === FAILED);
    for (const id of ids) expect((await daemon.request("GET", `/drafts/${id}`)).body.status).toBe("sent");
    expect((await daemon.request("GET", "/drafts?status=sent")).body.drafts).toHaveLength(ids.length);
    const health = await fetch(`${daemon.apiUrl}/healthz`).then(async (r) => ({ status: r.status, body: (await r.json()) as any }));
    // The store cannot write either (the disk is full): /healthz fails for that, and warns about archiving.
    expect(health.body.warnings).toEqual([expect.stringMatching(/^archiving old drafts failed at .*ENOSPC.*nothing is lost/)]);
    expect(await daemon.stop("SIGTERM")).toBe(0);

    // Room again: the next start archives them; nothing lost, nothing filed twice.
    await rm(filler);
    daemon = await liveDaemon(double, env, { cwd, harnessDir });
    await daemon.waitForLog((l) => l.msg === "archived final drafts older than DRAFT_RETENTION");
    for (const id of ids) expect((await daemon.request("GET", `/drafts/${id}`)).body.status).toBe("sent");
    expect(await fetch(`${daemon.apiUrl}/healthz`).then((r) => r.json())).toEqual({ ok: true });
    expect(await daemon.stop("SIGTERM")).toBe(0);
    const view = await readStore(harnessDir);
    for (const id of ids) expect(view.drafts.get(id)?.status).toBe("sent");
    const store = await readFile(harnessPaths(harnessDir).drafts, "utf8");
    for (const id of ids) expect(store.includes(id), `${id} left the store`).toBe(false);
    figures("io-faults-archive tmpfs", {
      tmpfs_bytes: 256 * 1024,
      filler_bytes: filled,
      failure: String((failed.err as { message?: string } | undefined)?.message ?? "").slice(0, 80),
      health_status_while_full: health.status,
      seconds: Number(((performance.now() - t0) / 1000).toFixed(1)),
    });
  });
});
