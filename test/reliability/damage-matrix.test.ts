/**
 * Every file in HARNESS_DIR damaged in each way (issue 26 "Bad input", issue
 * 28), through the real daemon (`node dist/main.js`) and the Bot API double:
 * truncated, garbled in the middle, emptied, deleted, replaced by an older
 * copy. For each, the daemon either refuses to start naming the file (exit 78,
 * an operator's message, no stack trace, the file left as it was), or starts,
 * restoring from the other record or failing closed. It never silently
 * returns to an earlier state, and never sends what a halt voided.
 *
 * The directory every row starts from: drafts A and B posted (the "older"
 * copy of every file is taken here, after a clean stop); then A approved (its
 * undo window ends before any row starts, so its send falls due at start)
 * and the daemon stopped; then `draft-review halt` and `resume` while it is
 * down. So at every start A's send is due, and only the halt (in
 * halt_record.json, and in the audit log) keeps it from going out: A must
 * end `halted`, B stay `pending`, and nothing reach the destination.
 *
 * Issue 28's files: the directory also holds three drafts archived with
 * idempotency keys (one month file; its "older" copy holds the first two, as
 * does the older catalog), and push callbacks are on (callback_cursor.json).
 * Their rows check what those files decide besides: an archived id never
 * 404 nor its key a new draft (503 naming the month file, or found), no
 * callback skipped.
 *
 * One row per (file, damage): add a row to ROWS for a new file or behaviour.
 */
import { chmod, cp, mkdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { harnessPaths } from "../../src/app/paths.js";
import { archiveMonthOf } from "../../src/desk/archiving.js";
import { monthFileName } from "../../src/store/archive.js";
import { startCallbackReceiver, type CallbackReceiver } from "../support/callback-receiver.js";
import { runBin } from "../support/cli-process.js";
import { openTestCore, submitRevised } from "../support/core.js";
import { eventually, freshDirs, startDaemon, type DaemonProcess } from "../support/daemon-process.js";
import { daemonEnv, FRIEND, GROUP, liveDouble, OWNER, payload } from "../support/live-fixture.js";
import type { TelegramDouble } from "../telegram-double/index.js";
import { figures } from "./support/hostile-kit.js";

type Dirs = { cwd: string; harnessDir: string };
type Damage = "truncated" | "garbled" | "empty" | "deleted" | "older" | "garbled last line" | "ahead";

/** What a start must do with the damaged file (`check`: what else the row's file decides, once it runs). */
type Expect =
  | { readonly starts: true; readonly log?: RegExp; readonly check?: (d: DaemonProcess) => Promise<void> }
  | { readonly starts: false; readonly message: RegExp };

interface Row {
  /** The file's name in HARNESS_DIR. */
  readonly file: string;
  readonly damage: Damage;
  readonly expect: Expect;
  /** What the daemon does, as the report's table says it. */
  readonly behaviour: string;
}

const STARTS = (behaviour: string, log?: RegExp, check?: (d: DaemonProcess) => Promise<void>) => ({
  expect: { starts: true, ...(log ? { log } : {}), ...(check ? { check } : {}) } as Expect,
  behaviour,
});
const REFUSES = (behaviour: string, message: RegExp) => ({ expect: { starts: false, message } as Expect, behaviour });

/** Stands for the archive's month file in a row (its name holds the month the drafts were archived in). */
const MONTH_FILE = "archive/<month file>";
/** The idempotency keys of the three archived drafts. */
const KEYS = ["matrix-key-1", "matrix-key-2", "matrix-key-3"];

const ROWS: Row[] = [
  // The draft store: what the audit log holds and the store lacks is restored from the log's lines.
  {
    file: "telegram_drafts.jsonl",
    damage: "truncated",
    ...STARTS("restored from the audit log", /lacked changes that the audit log holds/),
  },
  { file: "telegram_drafts.jsonl", damage: "garbled", ...REFUSES("refuses: the line is named, nothing changed", /line \d+ is damaged/) },
  { file: "telegram_drafts.jsonl", damage: "empty", ...STARTS("restored from the audit log", /lacked changes that the audit log holds/) },
  { file: "telegram_drafts.jsonl", damage: "deleted", ...STARTS("restored from the audit log", /lacked changes that the audit log holds/) },
  { file: "telegram_drafts.jsonl", damage: "older", ...STARTS("restored from the audit log", /lacked changes that the audit log holds/) },
  // The audit log: the store's changes it lacks are audited again (`recovered`); the halt record still voids A.
  {
    file: "swarm.jsonl",
    damage: "truncated",
    ...STARTS("re-audits what the store has; halt_record.json voids A", /audited changes that a crash had left out/),
  },
  { file: "swarm.jsonl", damage: "garbled", ...STARTS("the damaged lines are named and skipped; the rest decides") },
  {
    file: "swarm.jsonl",
    damage: "empty",
    ...STARTS("a new key anchor; re-audits what the store has", /audited changes that a crash had left out/),
  },
  {
    file: "swarm.jsonl",
    damage: "deleted",
    ...STARTS("a new log and key anchor; re-audits what the store has", /audited changes that a crash had left out/),
  },
  {
    file: "swarm.jsonl",
    damage: "older",
    ...STARTS("re-audits what the store has; halt_record.json voids A", /audited changes that a crash had left out/),
  },
  // The index checkpoint: only a shortcut.
  { file: "audit_index.json", damage: "truncated", ...STARTS("reads the whole audit log", /checkpoint cannot be used/) },
  { file: "audit_index.json", damage: "garbled", ...STARTS("reads the whole audit log", /checkpoint cannot be used/) },
  { file: "audit_index.json", damage: "empty", ...STARTS("reads the whole audit log", /checkpoint cannot be used/) },
  { file: "audit_index.json", damage: "deleted", ...STARTS("reads the whole audit log", /no audit index checkpoint/) },
  { file: "audit_index.json", damage: "older", ...STARTS("reads the audit log from the older checkpoint on") },
  // The audit key: without it no line of the log can be proven.
  { file: "audit_key", damage: "truncated", ...REFUSES("refuses: restore it from a backup", /audit_key: it is damaged/) },
  { file: "audit_key", damage: "garbled", ...REFUSES("refuses: restore it from a backup", /audit_key: it is damaged/) },
  {
    file: "audit_key",
    damage: "empty",
    ...REFUSES("refuses: lines were proven with it", /audit_key: it is missing, but .* were proven with it/),
  },
  {
    file: "audit_key",
    damage: "deleted",
    ...REFUSES("refuses: lines were proven with it", /audit_key: it is missing, but .* were proven with it/),
  },
  { file: "audit_key", damage: "older", ...STARTS("the key never changes: starts") },
  // The halt record: damaged counts as a halt until now; missing or older, the audit log's halt still voids A.
  { file: "halt_record.json", damage: "truncated", ...STARTS("fails closed: a halt until now") },
  { file: "halt_record.json", damage: "garbled", ...STARTS("fails closed: a halt until now") },
  { file: "halt_record.json", damage: "empty", ...STARTS("fails closed: a halt until now") },
  { file: "halt_record.json", damage: "deleted", ...STARTS("the audit log's halt voids A") },
  { file: "halt_record.json", damage: "older", ...STARTS("the audit log's halt voids A") },
  // The intake API token: made again when missing; a damaged one is refused.
  { file: "api_token", damage: "truncated", ...STARTS("half a token is still 32 characters: used as it is (clients read the same file)") },
  { file: "api_token", damage: "garbled", ...REFUSES("refuses: delete it so a new one is made", /api_token holds no usable token/) },
  { file: "api_token", damage: "empty", ...STARTS("a new token", /generated the intake API token/) },
  { file: "api_token", damage: "deleted", ...STARTS("a new token", /generated the intake API token/) },
  { file: "api_token", damage: "older", ...STARTS("the token never changes: starts") },
  // Telegram Business: Telegram is the other record; until it tells again, nothing goes as the owner.
  {
    file: "business_connection.json",
    damage: "truncated",
    ...STARTS("forgotten until Telegram tells it again", /saved business connection is unreadable/),
  },
  {
    file: "business_connection.json",
    damage: "garbled",
    ...STARTS("forgotten until Telegram tells it again", /saved business connection is unreadable/),
  },
  {
    file: "business_connection.json",
    damage: "empty",
    ...STARTS("forgotten until Telegram tells it again", /saved business connection is unreadable/),
  },
  { file: "business_connection.json", damage: "deleted", ...STARTS("none until Telegram tells it again") },
  { file: "business_connection.json", damage: "older", ...STARTS("asked again from Telegram at start") },
  {
    file: "business_chats.json",
    damage: "truncated",
    ...STARTS("started afresh (no 24 h window proven)", /log of what people wrote is unreadable/),
  },
  {
    file: "business_chats.json",
    damage: "garbled",
    ...STARTS("started afresh (no 24 h window proven)", /log of what people wrote is unreadable/),
  },
  {
    file: "business_chats.json",
    damage: "empty",
    ...STARTS("started afresh (no 24 h window proven)", /log of what people wrote is unreadable/),
  },
  { file: "business_chats.json", damage: "deleted", ...STARTS("started afresh (no 24 h window proven)") },
  { file: "business_chats.json", damage: "older", ...STARTS("the older messages, pruned to 48 h") },
  // The owner's halt: any entry of that name halts, whatever it holds.
  { file: "HALT", damage: "garbled", ...STARTS("halts (any entry named HALT halts)") },
  { file: "HALT", damage: "empty", ...STARTS("halts (any entry named HALT halts)") },
  // The update journal: updates fetched, until their handling is done (Telegram confirms them at the next getUpdates).
  { file: "updates.jsonl", damage: "truncated", ...STARTS("the marks of handled updates are gone: nothing to handle again") },
  {
    file: "updates.jsonl",
    damage: "garbled",
    ...REFUSES("refuses: the line is named; move it aside, then check /pending", /updates\.jsonl line \d+ is damaged .*\/pending/s),
  },
  { file: "updates.jsonl", damage: "empty", ...STARTS("an empty journal (every update in it was handled)") },
  { file: "updates.jsonl", damage: "deleted", ...STARTS("a new journal (every update in it was handled)") },
  { file: "updates.jsonl", damage: "older", ...STARTS("an update it holds unhandled is known as handled from the audit log") },
  {
    file: "updates.jsonl",
    damage: "garbled last line",
    ...STARTS("cut; the first getUpdates tells whether a confirmed tap was in it (the chat is told if so)", /^the update journal's/),
  },
  // The callback cursor (CALLBACK_URL set): the last event the receiver acknowledged.
  {
    file: "callback_cursor.json",
    damage: "truncated",
    ...REFUSES(
      "refuses: write the last seq handled, or delete it",
      /callback_cursor\.json: it is damaged .*or delete it to deliver every event again/s,
    ),
  },
  { file: "callback_cursor.json", damage: "garbled", ...REFUSES("refuses: write the last seq handled, or delete it", /it is damaged/) },
  { file: "callback_cursor.json", damage: "empty", ...REFUSES("refuses: write the last seq handled, or delete it", /it is damaged/) },
  { file: "callback_cursor.json", damage: "deleted", ...STARTS("every event is POSTed again (at least once)", undefined, callbacksGoOn) },
  {
    file: "callback_cursor.json",
    damage: "older",
    ...STARTS("the events after it are POSTed again (at least once)", undefined, callbacksGoOn),
  },
  {
    file: "callback_cursor.json",
    damage: "ahead",
    ...STARTS("clamped to the feed's end, warned in the log, /status and /healthz", /the callback cursor was ahead/, callbacksGoOn),
  },
  // An archive month file: the catalog records its size as written, so a start tells one that lost drafts.
  {
    file: MONTH_FILE,
    damage: "truncated",
    ...STARTS("the draft it lost answers 503 naming it, its key 503; /healthz warns", undefined, archiveLost([0, 1], [2])),
  },
  {
    file: MONTH_FILE,
    damage: "garbled",
    ...STARTS("the draft of the damaged line answers 503 naming the line, its key 503", undefined, archiveReads([0, 2], [1])),
  },
  {
    file: MONTH_FILE,
    damage: "empty",
    ...STARTS("its drafts answer 503, their keys 503; /healthz warns", undefined, archiveLost([], [0, 1, 2])),
  },
  {
    file: MONTH_FILE,
    damage: "deleted",
    ...STARTS("its drafts answer 503, their keys 503; /healthz warns", undefined, archiveLost([], [0, 1, 2])),
  },
  {
    file: MONTH_FILE,
    damage: "older",
    ...STARTS("the newer draft answers 503, its key 503; /healthz warns", undefined, archiveLost([0, 1], [2])),
  },
  // The archive catalog: derived from the month files.
  {
    file: "archive/catalog.bin",
    damage: "truncated",
    ...STARTS("rebuilt from the month files", /catalog cannot be used/, archiveReads([0, 1, 2], [])),
  },
  {
    file: "archive/catalog.bin",
    damage: "garbled",
    ...STARTS("rebuilt from the month files", /catalog cannot be used/, archiveReads([0, 1, 2], [])),
  },
  {
    file: "archive/catalog.bin",
    damage: "empty",
    ...STARTS("rebuilt from the month files", /catalog cannot be used/, archiveReads([0, 1, 2], [])),
  },
  {
    file: "archive/catalog.bin",
    damage: "deleted",
    ...STARTS("rebuilt from the month files", /catalog cannot be used/, archiveReads([0, 1, 2], [])),
  },
  {
    file: "archive/catalog.bin",
    damage: "older",
    ...STARTS("older than its month files: rebuilt from them", /catalog is older than its month files/, archiveReads([0, 1, 2], [])),
  },
];

let double: TelegramDouble;
let receiver: CallbackReceiver;
let base: Dirs;
/** HARNESS_DIR after A and B were posted and the daemon stopped: the "older copy" of every file. */
let older: string;
let draftA: string;
let draftB: string;
const daemons: DaemonProcess[] = [];
const outcomes: Array<Record<string, unknown>> = [];

const env = () => ({
  ...daemonEnv(double),
  DRAFT_API_TOKEN: "",
  UNDO_WINDOW: "6s",
  CALLBACK_URL: receiver.url,
  CALLBACK_SECRET: "s".repeat(32),
});

function start(d: Dirs, waitUntilRunning = true): Promise<DaemonProcess> {
  return startDaemon({ ...d, env: env(), waitUntilRunning }).then((daemon) => {
    daemons.push(daemon);
    return daemon;
  });
}

/** The last record of each draft in the store file (read as the CLI would, without the daemon). */
async function storeLatest(harnessDir: string): Promise<Map<string, Record<string, any>>> {
  const text = await readFile(harnessPaths(harnessDir).drafts, "utf8").catch(() => "");
  const latest = new Map<string, Record<string, any>>();
  for (const line of text.split("\n")) {
    try {
      const r = JSON.parse(line) as Record<string, any>;
      latest.set(r.draft_id, r);
    } catch {
      // a torn line
    }
  }
  return latest;
}

/** A request to the daemon's API with the token it wrote. */
async function api(daemon: DaemonProcess, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const token = (await readFile(harnessPaths(daemon.harnessDir).apiToken, "utf8")).trim();
  const res = await fetch(`${daemon.apiUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: await res.json() };
}

/** POST /drafts with the token the daemon wrote; resolves with the draft id once it is pending. */
async function submit(daemon: DaemonProcess, text: string): Promise<string> {
  const { draft_id: id } = (await api(daemon, "POST", "/drafts", payload(text))).body as { draft_id: string };
  await eventually(async () => (await storeLatest(daemon.harnessDir)).get(id)?.status === "pending", 10_000, `${text} posted`);
  return id;
}

let month: string;
let archived: string[];
/** The archive after the first two drafts were archived: the "older" month file and catalog. */
let olderArchive: string;

/** Drafts archived with idempotency keys, in-process (DRAFT_RETENTION 1s on a simulated clock), before the daemon's part. */
async function archiveThree(harnessDir: string): Promise<void> {
  const t = await openTestCore(harnessDir, { env: { DRAFT_RETENTION: "1s" }, live: true });
  archived = [];
  for (const i of [0, 1]) archived.push(await submitRevised(t, `Archived ${i + 1}`, "no", { idempotency_key: KEYS[i] }));
  month = archiveMonthOf(t.core.desk.get(archived[0]!)!);
  await t.clock.advance(2_000);
  expect(await t.core.desk.archiveOld()).toBe(2);
  olderArchive = join(base.cwd, "older-archive");
  await cp(join(harnessDir, "archive"), olderArchive, { recursive: true });
  archived.push(await submitRevised(t, "Archived 3", "no", { idempotency_key: KEYS[2] }));
  await t.clock.advance(2_000);
  expect(await t.core.desk.archiveOld()).toBe(1);
  await t.close();
}

/** Archived drafts: `found` answer 200 (their keys 409), `lost` answer 503 naming the month file (their keys 503); never 404 nor 201. */
function archiveReads(found: number[], lost: number[]) {
  return async (d: DaemonProcess) => {
    const posts = double.messages(OWNER).length;
    for (const i of found) {
      expect((await api(d, "GET", `/drafts/${archived[i]}`)).status).toBe(200);
      expect((await api(d, "POST", "/drafts", payload("Another text", { idempotency_key: KEYS[i] }))).status).toBe(409);
    }
    for (const i of lost) {
      const got = await api(d, "GET", `/drafts/${archived[i]}`);
      expect(got.status, JSON.stringify(got.body)).toBe(503);
      expect(got.body.error).toContain(monthFileName(month));
      const again = await api(d, "POST", "/drafts", payload("Another text", { idempotency_key: KEYS[i] }));
      expect(again.status, JSON.stringify(again.body)).toBe(503);
    }
    expect(double.messages(OWNER).length).toBe(posts);
  };
}

/** As archiveReads, and /healthz warns naming the month file (a warning: the daemon works on). */
function archiveLost(found: number[], lost: number[]) {
  return async (d: DaemonProcess) => {
    await archiveReads(found, lost)(d);
    const health = (await fetch(`${d.apiUrl}/healthz`).then((r) => r.json())) as { warnings?: string[] };
    expect(health.warnings?.join("\n")).toContain(monthFileName(month));
  };
}

/** Callbacks go on: a new draft's events reach the receiver. */
async function callbacksGoOn(d: DaemonProcess): Promise<void> {
  const before = receiver.received.length;
  const id = await submit(d, "After the damage");
  const events = () => receiver.received.slice(before).map((c) => JSON.parse(c.body.toString()) as { draft_id: string; to: string });
  await eventually(() => events().some((e) => e.draft_id === id && e.to === "pending"), 15_000, "the new draft's events POSTed");
}

beforeAll(async () => {
  double = await liveDouble();
  receiver = await startCallbackReceiver();
  base = await freshDirs();
  await archiveThree(base.harnessDir);
  let daemon = await start(base);
  // Telegram Business: the owner's connection and a person's message, so both business files exist.
  const { id } = double.connectBusiness({ userId: OWNER });
  double.injectBusinessMessage({ connectionId: id, fromId: FRIEND, text: "Lunch today?", ageSeconds: 60 });
  const paths = harnessPaths(base.harnessDir);
  await eventually(async () => (await stat(paths.businessChats).catch(() => null)) !== null, 10_000, "the business files");
  draftA = await submit(daemon, "A: approved, then halted from the shell");
  draftB = await submit(daemon, "B: waits for a decision");
  expect(await daemon.stop("SIGTERM")).toBe(0);
  older = join(base.cwd, "older");
  await cp(base.harnessDir, older, { recursive: true });
  await rm(join(older, "archive"), { recursive: true });
  await cp(olderArchive, join(older, "archive"), { recursive: true });

  daemon = await start(base);
  double.injectReaction({
    chatId: OWNER,
    messageId: (await storeLatest(base.harnessDir)).get(draftA)!.review_message_id,
    userId: OWNER,
    newEmojis: ["👍"],
  });
  await eventually(async () => (await storeLatest(base.harnessDir)).get(draftA)?.status === "approved", 10_000, "A approved");
  expect(await daemon.stop("SIGTERM")).toBe(0);
  for (const command of ["halt", "resume"]) {
    const run = await runBin([command], { cwd: base.cwd, env: { HARNESS_DIR: base.harnessDir } });
    expect(run.code, run.stderr).toBe(0);
  }
  const sendAfter = Date.parse((await storeLatest(base.harnessDir)).get(draftA)!.send_after);
  // Every row starts with A's send due.
  await eventually(() => Date.now() > sendAfter + 200, 30_000, "A's undo window over");
}, 90_000);

afterAll(async () => {
  for (const d of daemons) await d.stop("SIGKILL");
  await double?.stop();
  await receiver?.stop().catch(() => {});
  await rm(base.cwd, { recursive: true, force: true });
  figures("damage matrix", {
    rows: outcomes.length,
    refused_78: outcomes.filter((o) => o.exit === 78).length,
    started: outcomes.filter((o) => o.exit === "running").length,
    sent: 0,
  });
});

/** Applies `damage` to `path` (a copy of the base directory), `olderPath` being the same file in the older copy. */
async function damageFile(path: string, damage: Damage, olderPath: string): Promise<void> {
  const bytes = await readFile(path).catch(() => Buffer.alloc(0));
  if (damage === "deleted") return rm(path, { force: true, recursive: true });
  if (damage === "empty") return writeFile(path, "", { mode: 0o600 });
  if (damage === "ahead") return writeFile(path, `${JSON.stringify({ acked_seq: 100_000 })}\n`);
  if (damage === "garbled last line") {
    // A whole last line damaged after it was written (its newline kept): not a torn write.
    const lines = bytes.toString("latin1").split("\n");
    const last = lines.length - 2;
    lines[last] = `${lines[last]!.slice(0, 20)}#garbled#${lines[last]!.slice(29)}`;
    return writeFile(path, Buffer.from(lines.join("\n"), "latin1"));
  }
  if (damage === "older") {
    const old = await readFile(olderPath).catch(() => null);
    if (old === null) return rm(path, { force: true });
    return writeFile(path, old);
  }
  if (damage === "truncated") {
    // At a line boundary about half way; a one-line file is cut in the middle of its line.
    const lines = bytes
      .toString("utf8")
      .split("\n")
      .filter((l) => l !== "");
    const text = lines.length > 1 ? `${lines.slice(0, Math.ceil(lines.length / 2)).join("\n")}\n` : bytes.subarray(0, bytes.length >> 1);
    return writeFile(path, text);
  }
  // Garbled: sixteen bytes in the middle replaced, the length kept.
  const out = Buffer.from(bytes.length > 0 ? bytes : Buffer.from("x".repeat(32)));
  out.fill(0x01, Math.max(0, (out.length >> 1) - 8), Math.min(out.length, (out.length >> 1) + 8));
  out.write("\u0000garbled\u0000", Math.max(0, (out.length >> 1) - 5), "latin1");
  return writeFile(path, out);
}

describe("every file in HARNESS_DIR damaged: the start refuses naming it, or restores, or fails closed; never sends", () => {
  it.each(ROWS)(
    "$file $damage: $behaviour",
    async (row) => {
      const d = await freshDirs();
      await mkdir(d.harnessDir, { recursive: true, mode: 0o700 });
      await cp(base.harnessDir, d.harnessDir, { recursive: true });
      const file = row.file === MONTH_FILE ? join("archive", monthFileName(month)) : row.file;
      const path = join(d.harnessDir, file);
      await damageFile(path, row.damage, join(older, file));
      if (row.damage !== "deleted") await chmod(path, 0o600).catch(() => {});
      const damaged = await readFile(path).catch(() => null);
      const sentBefore = double.messages(GROUP).length;
      const daemon = await start(d, row.expect.starts);
      if (!row.expect.starts) {
        // A start that goes on instead fails the row at once, not at the test's timeout.
        const running = daemon
          .waitForLog((l) => l.msg === "draft-review is running", 20_000)
          .then(
            () => "running",
            () => "exited",
          );
        const code = await Promise.race([daemon.exited, running]);
        const stderr = daemon.rawStderr();
        outcomes.push({ file: row.file, damage: row.damage, exit: code });
        expect(code, stderr).toBe(78);
        expect(stderr).toContain("draft-review: cannot start.");
        expect(stderr).toContain(path);
        expect(stderr).toMatch(row.expect.message);
        expect(stderr).not.toContain("unexpected error");
        expect(stderr).not.toMatch(/\n\s+at /);
        // Left as it was: the operator decides.
        expect(await readFile(path).catch(() => null)).toEqual(damaged);
        return;
      }
      outcomes.push({ file: row.file, damage: row.damage, exit: "running" });
      if (row.expect.log) {
        const log = row.expect.log;
        await daemon.waitForLog((l) => log.test(String(l.msg)));
      }
      await row.expect.check?.(daemon);
      // A's send was due: the halt (in the record or the log, or a damaged record counting as one) voids it.
      const a = await eventually(
        async () => {
          const r = (await storeLatest(d.harnessDir)).get(draftA);
          return r?.status === "halted" || r?.status === "sent" ? r : null;
        },
        15_000,
        "A's send settled",
      );
      expect(a.status).toBe("halted");
      expect((await storeLatest(d.harnessDir)).get(draftB)?.status).toBe("pending");
      expect(double.messages(GROUP).length).toBe(sentBefore);
      await daemon.stop("SIGKILL");
    },
    60_000,
  );
});
