/**
 * The audit index checkpoint (HARNESS_DIR/audit_index.json) damaged, through
 * the real daemon (`node dist/main.js` against the Bot API double) and, for the
 * sweep over torn lengths and flipped bits (150 of each, both ends included,
 * times RELIABILITY_ITERATIONS), through AuditLog.open (what the daemon calls
 * at start).
 *
 * One HARNESS_DIR is built once: drafts sent, revised and pending, a stranger's
 * refused 👍, a checkpoint written at a clean stop, then more of our lines, and
 * a send that had begun when the daemon was killed, whose `sending` line the
 * store then lost (only the audit log, read through the index, still shows it).
 * Each case copies that directory, damages the checkpoint, redelivers the
 * stranger's update and starts the daemon. Every time: the daemon starts,
 * says why it reads the whole audit log (or, for a checkpoint that is merely
 * older than the log, reads only the tail), still dedups the redelivered
 * update, still marks the begun send outcome_unknown without resending it,
 * serves `/events` pages identical to an undamaged start, and writes a good
 * checkpoint at its stop. Two exceptions, by design: a directory at the
 * checkpoint's path cannot be replaced (the daemon runs on full scans and says
 * so at each failed write), and a symbolic link there makes the daemon refuse
 * to start, naming it (HARNESS_DIR holds no links: see harness-guard.ts).
 */
import { cp, mkdir, readFile, rm, symlink, truncate, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Update } from "grammy/types";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { harnessPaths } from "../../src/app/paths.js";
import { feedPairs, type IndexSnapshot } from "../../src/audit/audit-index.js";
import { AuditLog } from "../../src/audit/audit-log.js";
import { loadCheckpoint } from "../../src/audit/checkpoint.js";
import { harnessKey } from "../support/audit-key.js";
import { encodeLine } from "../../src/store/line-codec.js";
import type { TelegramDouble } from "../telegram-double/index.js";
import { injectRawUpdate } from "../telegram-double/raw-updates.js";
import { eventually, freshDirs, startDaemon, type DaemonProcess } from "../support/daemon-process.js";
import { GROUP, liveDaemon, liveDouble, OWNER, payload, STRANGER } from "../support/live-fixture.js";
import { cleanup, figures, flipBit, memoryLogger, prng, sample, scaled, sweepDir } from "./support/hostile-kit.js";

const FALLBACK = "the audit index checkpoint cannot be used; reading the whole audit log instead";
const LOST_SEND = "the store had lost changes the audit log shows; sends that may have happened are marked outcome_unknown";

type Dirs = { cwd: string; harnessDir: string };

let double: TelegramDouble;
let base: Dirs;
/** The stranger's refused 👍 (Telegram delivers it again to every case). */
let strangerUpdate: Update;
let pendingPost: number;
let sendBegun: string;
/** Our last seq in the built directory. */
let builtSeq: number;
/** What a start that can use the checkpoint serves and saves (the first case). */
let reference: { events: Array<Record<string, any>>; snapshot: IndexSnapshot; checkpoint: Buffer } | undefined;
const daemons: DaemonProcess[] = [];
/** The update ids of the later refusals each start gets (they differ from start to start). */
const markers = new Set<number>();
const seconds: Record<string, number> = {};

async function start(d: Dirs): Promise<DaemonProcess> {
  // The review chat's rate limit, fifty times faster: the drafts are posted without waiting a second each.
  const daemon = await liveDaemon(double, { TELEGRAM_RATE_SCALE: "50" }, d);
  daemons.push(daemon);
  return daemon;
}

/** Our audit lines (another writer's lines, whole or torn, left out). */
async function auditLines(harnessDir: string): Promise<Array<Record<string, any>>> {
  const text = await readFile(harnessPaths(harnessDir).audit, "utf8").catch(() => "");
  return text.split("\n").flatMap((l) => {
    try {
      const v = JSON.parse(l) as Record<string, any>;
      return v.source === "telegram-draft-for-review" ? [v] : [];
    } catch {
      return [];
    }
  });
}

/** The draft's status through the API. */
async function statusOf(d: DaemonProcess, id: string): Promise<string> {
  return (await d.request("GET", `/drafts/${id}`)).body.status as string;
}

/** Every event through `/events`, page by page (small pages, so several are read). */
async function allEvents(d: DaemonProcess): Promise<Array<Record<string, any>>> {
  const out: Array<Record<string, any>> = [];
  for (let after = 0; ; ) {
    const page = (await d.request("GET", `/events?after=${after}&limit=3`)).body as {
      events: Array<Record<string, any>>;
      last_seq: number;
    };
    if (page.events.length === 0) return out;
    out.push(...page.events);
    after = page.last_seq;
  }
}

/** Sendmessage calls that reached the destination group (finished or still held by the double). */
function destinationCalls(): number {
  return double.calls("sendMessage").filter((c) => String((c.params as { chat_id?: unknown }).chat_id) === String(GROUP)).length;
}

/** The stranger's update, queued again with its own update_id: Telegram redelivers it after a crash. */
function redeliverStranger(): void {
  const { update_id: _id, ...body } = strangerUpdate as unknown as Record<string, unknown>;
  const again = injectRawUpdate(double, { chatId: OWNER, userId: STRANGER }, body);
  (again as { update_id: number }).update_id = strangerUpdate.update_id;
}

/** What must hold on every start: see the file comment. Returns the daemon, still running. */
async function startAndCheck(d: Dirs): Promise<DaemonProcess> {
  const sendsBefore = destinationCalls();
  redeliverStranger();
  const daemon = await start(d);
  // The begun send is seen (through the index) and marked unknown; nothing is sent again.
  const lost = await daemon.waitForLog((l) => l.msg === LOST_SEND);
  expect(lost.drafts).toEqual([sendBegun]);
  expect(await statusOf(daemon, sendBegun)).toBe("outcome_unknown");
  // The redelivered update is confirmed; a later one on the same message is handled after it.
  await eventually(() => double.pendingUpdates().length === 0, 10_000, "the redelivered update is confirmed");
  const later = double.injectReaction({ chatId: OWNER, messageId: pendingPost, userId: STRANGER, newEmojis: ["👍"], oldEmojis: [] });
  markers.add(later.update.update_id);
  await eventually(
    async () => (await auditLines(d.harnessDir)).some((l) => l.kind === "decision_refused" && l.update_id === later.update.update_id),
    10_000,
    "the later refusal",
  );
  const refused = (await auditLines(d.harnessDir)).filter((l) => l.kind === "decision_refused").map((l) => l.update_id);
  expect(refused).toEqual([strangerUpdate.update_id, later.update.update_id]);
  expect(destinationCalls()).toBe(sendsBefore);
  return daemon;
}

/** Events with what a restart makes differently (the time of the changes it made) left out. */
function comparable(events: Array<Record<string, any>>): Array<Record<string, any>> {
  return events.map((e) => (e.seq <= builtSeq ? e : { ...e, at: "(restart)" }));
}

/** The parts of a snapshot that two starts on the same files agree on. */
function essence(s: IndexSnapshot) {
  return {
    last_seq: s.last_seq,
    transitions: s.transitions,
    updates: s.updates.map(([id]) => id).filter((id) => !markers.has(id)),
    notices: s.notices.map(([k]) => k).sort(),
    drafts: [...s.drafts].sort(),
    feed: feedPairs(s.feed).map(([seq]) => seq),
    posts_due: [...s.posts_due].sort(),
    posts_shown: [...s.posts_shown].sort(),
  };
}

/** A fresh copy of the built directory. */
async function copyOfBase(): Promise<Dirs> {
  const d = await freshDirs();
  await cp(base.harnessDir, d.harnessDir, { recursive: true, preserveTimestamps: true });
  return d;
}

beforeAll(async () => {
  const t0 = performance.now();
  double = await liveDouble();
  base = await freshDirs();
  let d = await start(base);
  const submit = async (text: string) => {
    const res = await d.request("POST", "/drafts", payload(text, { originating_intent_id: text }));
    expect(res.status).toBe(201);
    const id = res.body.draft_id as string;
    // Posted at once, or queued behind the review chat's rate limit.
    const post = await eventually(
      async () => (await d.request("GET", `/drafts/${id}`)).body.review_message_id as number | null,
      10_000,
      "posted",
    );
    return { draft_id: id, review_message_id: post };
  };
  const pending = await submit("Checkpoint: stays pending");
  const sent = await submit("Checkpoint: sent");
  const revised = await submit("Checkpoint: revised");
  pendingPost = pending.review_message_id;
  double.injectReaction({ chatId: OWNER, messageId: sent.review_message_id, userId: OWNER, newEmojis: ["👍"] });
  double.injectMessage({ chatId: OWNER, userId: OWNER, text: "Margot: tighten it", replyToMessageId: revised.review_message_id });
  strangerUpdate = double.injectReaction({ chatId: OWNER, messageId: pendingPost, userId: STRANGER, newEmojis: ["👍"] }).update;
  await eventually(async () => (await statusOf(d, sent.draft_id)) === "sent", 10_000, "sent");
  await eventually(async () => (await statusOf(d, revised.draft_id)) === "revise", 10_000, "revised");
  await eventually(async () => (await auditLines(base.harnessDir)).some((l) => l.kind === "decision_refused"), 10_000, "refused");
  await eventually(() => double.pendingUpdates().length === 0, 10_000, "updates confirmed");
  expect(await d.stop("SIGTERM")).toBe(0);
  expect((await loadCheckpoint(harnessPaths(base.harnessDir).auditIndex, await harnessKey(base.harnessDir))).ok).toBe(true);

  // More of our lines after the checkpoint, then a kill while a send is under way.
  d = await start(base);
  const begun = await submit("Checkpoint: send begun");
  sendBegun = begun.draft_id;
  double.delayNext("sendMessage", 600_000);
  double.injectReaction({ chatId: OWNER, messageId: begun.review_message_id, userId: OWNER, newEmojis: ["👍"] });
  await eventually(
    async () => (await auditLines(base.harnessDir)).some((l) => l.kind === "transition" && l.draft_id === sendBegun && l.to === "sending"),
    10_000,
    "send begun",
  );
  await eventually(() => destinationCalls() === 2, 10_000, "the send call reached Telegram");
  await d.stop("SIGKILL");
  // The store loses its last line (the `sending` record): only the audit log knows the send began.
  const storePath = harnessPaths(base.harnessDir).drafts;
  const store = await readFile(storePath, "utf8");
  const lines = store.trimEnd().split("\n");
  expect(lines.at(-1)).toMatch(new RegExp(`"draft_id":"${sendBegun}".*"status":"sending"`));
  await writeFile(storePath, `${lines.slice(0, -1).join("\n")}\n`);
  builtSeq = Math.max(...(await auditLines(base.harnessDir)).filter((l) => typeof l.seq === "number").map((l) => l.seq as number));

  seconds.build = (performance.now() - t0) / 1000;
}, 60_000);

afterAll(async () => {
  for (const d of daemons) await d.stop("SIGKILL");
  await double.stop();
  await cleanup();
});

describe("a damaged audit index checkpoint (in-process sweep through AuditLog.open)", () => {
  it("falls back to a full scan at sampled torn lengths and flipped bits, and rebuilds the same index", async () => {
    const t0 = performance.now();
    const good = await readFile(harnessPaths(base.harnessDir).auditIndex);
    const dir = await sweepDir();
    const auditPath = join(dir, "swarm.jsonl");
    await cp(harnessPaths(base.harnessDir).audit, auditPath);
    const checkpointPath = join(dir, "audit_index.json");
    const open = async () => {
      const { log, lines } = memoryLogger("info");
      const audit = await AuditLog.open({ path: auditPath, log, checkpointPath });
      const snap = essence(audit.index.snapshot(audit.source));
      const fellBack = lines.some((l) => l.msg === FALLBACK);
      await audit.close();
      return { snap, fellBack, opened: audit.opened };
    };
    // The index a full scan builds (no checkpoint at all).
    await rm(checkpointPath, { force: true });
    const full = await open();
    expect(full.opened.fromCheckpoint).toBe(false);
    const rand = prng(20261201);
    // Every torn length and every flipped byte would take 15 s; a sample, with both ends, shows the same.
    const cuts = [...new Set([0, 1, ...sample(0, good.length, scaled(150), rand), good.length - 2, good.length - 1])];
    const flips = [...new Set([0, ...sample(0, good.length, scaled(150), rand), good.length - 1])];
    let fallbacks = 0;
    let readable = 0;
    for (const cut of cuts) {
      await writeFile(checkpointPath, good.subarray(0, cut));
      const r = await open();
      expect(r.snap, `torn at ${cut}`).toEqual(full.snap);
      // Only the checkpoint without its final newline is still whole.
      if (r.fellBack) fallbacks++;
      else {
        expect(cut === 0 || cut === good.length - 1, `torn at ${cut} was used`).toBe(true);
        readable++;
      }
    }
    for (const at of flips) {
      await writeFile(checkpointPath, flipBit(good, at, at % 8));
      const r = await open();
      expect(r.snap, `bit flipped at ${at}`).toEqual(full.snap);
      expect(r.fellBack || at === good.length - 1, `bit flip at ${at} went unnoticed`).toBe(true);
      if (r.fellBack) fallbacks++;
    }
    // Whole and checksummed, but not a checkpoint this version reads.
    const foreignShapes = [encodeLine({ v: 2, source: "telegram-draft-for-review" }), encodeLine({ v: 1 }), "[1,2,3]\n"];
    for (const body of foreignShapes) {
      await writeFile(checkpointPath, body);
      const r = await open();
      expect(r.snap, body).toEqual(full.snap);
      expect(r.fellBack, body).toBe(true);
      fallbacks++;
    }
    seconds.sweep = (performance.now() - t0) / 1000;
    figures("damaged-checkpoint in-process", {
      checkpoint_bytes: good.length,
      audit_bytes: (await readFile(auditPath)).length,
      torn_lengths: cuts.length,
      bit_flips: flips.length,
      other_shapes: foreignShapes.length,
      fallbacks,
      used_as_is: readable,
      seconds: Number(seconds.sweep.toFixed(1)),
    });
  });
});

interface Case {
  readonly name: string;
  /** Damages the copy's checkpoint. */
  readonly damage: (paths: ReturnType<typeof harnessPaths>, good: Buffer) => Promise<void>;
  /** The problem the fallback log line names; null: the checkpoint is used (older than the log, but valid). */
  readonly problem: RegExp | null;
  /** False when the daemon cannot put a checkpoint back (a directory at its path). */
  readonly rewrites?: boolean;
}

/** A checkpoint of another HARNESS_DIR, built once. */
let foreign: Buffer;

const CASES: Case[] = [
  // First: a checkpoint older than the log, which is used. What it serves is the reference of the others.
  {
    name: "older than the log, with our lines and another writer's after it",
    damage: async (p) => {
      const other = { ts: new Date().toISOString(), source: "another-agent", event: "heartbeat" };
      await writeFile(p.audit, `${JSON.stringify(other)}\n{"ts":"torn by another wri`, { flag: "a" });
    },
    problem: null,
  },
  { name: "torn in the middle", damage: async (p, g) => truncate(p.auditIndex, Math.floor(g.length / 2)), problem: /damaged/ },
  {
    name: "a bit flipped in a seq",
    damage: async (p, g) => writeFile(p.auditIndex, flipBit(g, g.indexOf("last_seq") + 11, 0)),
    problem: /damaged/,
  },
  // Written with that directory's own audit key: its proof does not verify with this one.
  { name: "another HARNESS_DIR's", damage: async (p) => writeFile(p.auditIndex, foreign), problem: /its proof does not verify/ },
  {
    name: "of a later state of this log (the log was restored from a backup)",
    damage: async (p) => writeFile(p.auditIndex, reference!.checkpoint),
    problem: /does not match the audit log \(the log is \d+ bytes, the checkpoint covers \d+\)/,
  },
  {
    name: "a directory at its path",
    damage: async (p) => {
      await rm(p.auditIndex);
      await mkdir(p.auditIndex, { mode: 0o700 });
    },
    problem: /cannot be read/,
    rewrites: false,
  },
];

describe("a damaged audit index checkpoint (the real daemon)", () => {
  it.each(CASES)("$name: the daemon falls back, rebuilds the same index and writes a good checkpoint", async (c) => {
    const t0 = performance.now();
    if (foreign === undefined) {
      // A checkpoint of another HARNESS_DIR: a few lines of ours, a clean close.
      const other = harnessPaths(join(await sweepDir(), ".harness"));
      await mkdir(join(other.audit, ".."), { recursive: true });
      const audit = await AuditLog.open({
        path: other.audit,
        log: memoryLogger("silent").log,
        checkpointPath: other.auditIndex,
        key: { path: other.auditKey, create: true },
      });
      await audit.append([{ kind: "status_due", draft_id: "d_elsewhere", version: 1 }]);
      await audit.close();
      foreign = await readFile(other.auditIndex);
    }
    const d = await copyOfBase();
    const paths = harnessPaths(d.harnessDir);
    await c.damage(paths, await readFile(paths.auditIndex));
    const daemon = await startAndCheck(d);
    const fallback = daemon.logs.find((l) => l.msg === FALLBACK);
    if (c.problem === null) expect(fallback).toBeUndefined();
    else {
      expect(fallback, "the fallback is logged").toBeDefined();
      expect(String(fallback!.problem)).toMatch(c.problem);
      expect(fallback!.path).toBe(paths.auditIndex);
    }
    const events = await allEvents(daemon);
    if (reference !== undefined) expect(comparable(events)).toEqual(comparable(reference.events));
    expect(await daemon.stop("SIGTERM")).toBe(0);
    const saved = await loadCheckpoint(paths.auditIndex, await harnessKey(d.harnessDir));
    if (c.rewrites === false) {
      expect(saved.ok).toBe(false);
      expect(daemon.logs.some((l) => String(l.msg).startsWith("could not write the audit index checkpoint"))).toBe(true);
    } else {
      if (!saved.ok) throw new Error(`${c.name}: no good checkpoint after the stop: ${saved.problem}`);
      const lastSeq = Math.max(...(await auditLines(d.harnessDir)).map((l) => l.seq as number));
      expect(saved.snapshot.last_seq).toBe(lastSeq);
      if (reference === undefined) reference = { events, snapshot: saved.snapshot, checkpoint: await readFile(paths.auditIndex) };
      else expect(essence(saved.snapshot)).toEqual(essence(reference.snapshot));
    }
    seconds[c.name] = (performance.now() - t0) / 1000;
  });

  it("a symbolic link at its path: the daemon refuses to start and names it (HARNESS_DIR safety)", async () => {
    const d = await copyOfBase();
    const paths = harnessPaths(d.harnessDir);
    const elsewhere = join(d.cwd, "elsewhere.json");
    await cp(paths.auditIndex, elsewhere);
    await rm(paths.auditIndex);
    await symlink(elsewhere, paths.auditIndex);
    const daemon = await startDaemon({
      cwd: d.cwd,
      harnessDir: d.harnessDir,
      env: { TELEGRAM_BOT_TOKEN: double.token, TELEGRAM_API_ROOT: double.url, REVIEW_CHAT_ID: String(OWNER) },
      waitUntilRunning: false,
    });
    daemons.push(daemon);
    expect(await daemon.exited).not.toBe(0);
    expect(daemon.rawStderr()).toContain(`${paths.auditIndex} is a symbolic link`);
    figures("damaged-checkpoint daemon", {
      cases: CASES.length + 1,
      seconds_build: Number((seconds.build ?? 0).toFixed(1)),
      seconds_per_case: Object.fromEntries(Object.entries(seconds).map(([k, v]) => [k, Number(v.toFixed(1))])),
    });
  });
});
