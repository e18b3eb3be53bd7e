/**
 * The damage matrix for issue 28's files, through the real daemon (`node
 * dist/main.js`) with push callbacks on, against the Bot API double: the
 * update journal (updates.jsonl), the callback cursor (callback_cursor.json),
 * an archive month file and the archive catalog, each truncated at a line
 * boundary, garbled in the middle, emptied, deleted and replaced by an older
 * copy (and the journal's last line damaged, the cursor ahead of the feed).
 * For each, the daemon refuses to start naming the file (exit 78, an
 * operator's message, no stack trace, the file left as it was), or starts and
 * says what it lost: never a draft silently new, an archived id silently
 * 404, a callback silently skipped. Rows of the same shape as
 * damage-matrix.test.ts (issue 26), to be folded into it.
 *
 * The directory every row starts from: drafts A1, A2 (then A3) archived with
 * idempotency keys (the "older" archive files are taken between), then a
 * daemon with callbacks: B posted, reactions journaled, events acknowledged
 * (the "older" journal and cursor taken here), then C posted, more of both.
 */
import { chmod, cp, mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { harnessPaths } from "../../src/app/paths.js";
import { archiveMonthOf } from "../../src/desk/archiving.js";
import { monthFileName } from "../../src/store/archive.js";
import { startCallbackReceiver, type CallbackReceiver } from "../support/callback-receiver.js";
import { openTestCore, submitRevised } from "../support/core.js";
import { eventually, freshDirs, startDaemon, type DaemonProcess } from "../support/daemon-process.js";
import { daemonEnv, GROUP, liveDouble, OWNER, payload } from "../support/live-fixture.js";
import type { TelegramDouble } from "../telegram-double/index.js";
import { figures } from "./support/hostile-kit.js";

type Dirs = { cwd: string; harnessDir: string };
type Damage = "truncated" | "garbled" | "empty" | "deleted" | "older" | "garbled last line" | "ahead";

/** What a start must do: refuse (78, naming the file), or start and pass `check`. */
type Expect =
  | { readonly starts: true; readonly log?: RegExp; readonly check?: (d: DaemonProcess) => Promise<void> }
  | { readonly starts: false; readonly message: RegExp };

interface Row {
  /** The file, relative to HARNESS_DIR ("<month file>" stands for the archive's month file). */
  readonly file: string;
  readonly damage: Damage;
  readonly expect: Expect;
  /** What the daemon does, as the report's table says it. */
  readonly behaviour: string;
}

const MONTH_FILE = "<month file>";
const KEYS = ["matrix-key-1", "matrix-key-2", "matrix-key-3"];

let double: TelegramDouble;
let receiver: CallbackReceiver;
let base: Dirs;
/** The files as they were earlier (see the file comment). */
let older: string;
let month: string;
let archived: string[];
let draftB: string;
const daemons: DaemonProcess[] = [];
const outcomes: Array<Record<string, unknown>> = [];

const env = () => ({ ...daemonEnv(double), CALLBACK_URL: receiver.url, CALLBACK_SECRET: "s".repeat(32) });

function start(d: Dirs, waitUntilRunning = true): Promise<DaemonProcess> {
  return startDaemon({ ...d, env: env(), waitUntilRunning }).then((daemon) => {
    daemons.push(daemon);
    return daemon;
  });
}

/** Posts a draft through the daemon and waits until it is pending; its id. */
async function submitPending(daemon: DaemonProcess, text: string): Promise<string> {
  const res = await daemon.request("POST", "/drafts", payload(text));
  expect(res.status).toBe(201);
  await eventually(async () => (await daemon.request("GET", `/drafts/${res.body.draft_id}`)).body.status === "pending");
  return res.body.draft_id as string;
}

/** Reactions that decide nothing, journaled and handled. */
async function journalSome(daemon: DaemonProcess, draftId: string, emojis: string[]): Promise<void> {
  const post = (await daemon.request("GET", `/drafts/${draftId}`)).body.review_message_id as number;
  const handled = () => daemon.logs.filter((l) => l.msg === "update handled").length;
  const before = handled();
  for (const e of emojis) double.injectReaction({ chatId: OWNER, messageId: post, userId: OWNER, newEmojis: [e] });
  await eventually(() => handled() >= before + emojis.length, 10_000, "reactions handled");
}

/** Waits until the receiver acknowledged every event of the feed (the cursor is at the feed's end). */
async function allDelivered(daemon: DaemonProcess): Promise<void> {
  await eventually(async () => (await daemon.request("GET", "/status")).body.callbacks?.backlog === 0, 15_000, "callbacks delivered");
}

// Checks of a daemon that started. B (posted before every damage) still awaits a decision in each.
const bPending = async (d: DaemonProcess) => expect((await d.request("GET", `/drafts/${draftB}`)).body.status).toBe("pending");

/** Archived drafts: `found` answer 200, `lost` answer 503 naming the month file; their keys 409 or 503, never 201. */
function archiveReads(found: number[], lost: number[]) {
  return async (d: DaemonProcess) => {
    await bPending(d);
    const posts = double.messages(OWNER).length;
    for (const i of found) {
      expect((await d.request("GET", `/drafts/${archived[i]}`)).status).toBe(200);
      expect((await d.request("POST", "/drafts", payload("Another text", { idempotency_key: KEYS[i] }))).status).toBe(409);
    }
    for (const i of lost) {
      const got = await d.request("GET", `/drafts/${archived[i]}`);
      expect(got.status, JSON.stringify(got.body)).toBe(503);
      expect(got.body.error).toContain(monthFileName(month));
      const again = await d.request("POST", "/drafts", payload("Another text", { idempotency_key: KEYS[i] }));
      expect(again.status, JSON.stringify(again.body)).toBe(503);
    }
    expect(double.messages(OWNER).length).toBe(posts);
  };
}

/** The archive lost drafts: 503 for them, and /healthz warns naming the month file (a warning: the daemon works on). */
function archiveLost(found: number[], lost: number[]) {
  return async (d: DaemonProcess) => {
    await archiveReads(found, lost)(d);
    const health = (await fetch(`${d.apiUrl}/healthz`).then((r) => r.json())) as { warnings?: string[] };
    expect(health.warnings?.join("\n")).toContain(monthFileName(month));
  };
}

/** Callbacks go on: a new draft's events reach the receiver, in order, after what the cursor says. */
async function callbacksGoOn(d: DaemonProcess): Promise<void> {
  await bPending(d);
  const before = receiver.received.length;
  const id = await submitPending(d, "After the damage");
  await eventually(
    () =>
      receiver.received
        .slice(before)
        .some((c) => JSON.parse(c.body.toString()).draft_id === id && JSON.parse(c.body.toString()).to === "pending"),
    15_000,
    "the new draft's events delivered",
  );
}

const STARTS = (behaviour: string, check?: (d: DaemonProcess) => Promise<void>, log?: RegExp) => ({
  expect: { starts: true, ...(check ? { check } : {}), ...(log ? { log } : {}) } as Expect,
  behaviour,
});
const REFUSES = (behaviour: string, message: RegExp) => ({ expect: { starts: false, message } as Expect, behaviour });

const ROWS: Row[] = [
  // The update journal: updates fetched, until their handling is done (Telegram confirms them at the next getUpdates).
  {
    file: "updates.jsonl",
    damage: "truncated",
    ...STARTS("starts: the marks of handled updates are gone, nothing to handle again", bPending),
  },
  {
    file: "updates.jsonl",
    damage: "garbled",
    ...REFUSES("refuses: the line is named; move it aside, then check /pending", /updates\.jsonl line \d+ is damaged .*\/pending/s),
  },
  { file: "updates.jsonl", damage: "empty", ...STARTS("starts with an empty journal (every update in it was handled)", bPending) },
  { file: "updates.jsonl", damage: "deleted", ...STARTS("starts with a new journal (every update in it was handled)", bPending) },
  {
    file: "updates.jsonl",
    damage: "older",
    ...STARTS("starts: an update it holds unhandled is known as handled from the audit log", bPending),
  },
  {
    file: "updates.jsonl",
    damage: "garbled last line",
    ...STARTS(
      "cuts it; the first getUpdates tells whether a confirmed tap was in it (told in the chat if so)",
      bPending,
      /^the update journal's/,
    ),
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
  {
    file: "callback_cursor.json",
    damage: "garbled",
    ...REFUSES("refuses: write the last seq handled, or delete it", /callback_cursor\.json: it is damaged/),
  },
  {
    file: "callback_cursor.json",
    damage: "empty",
    ...REFUSES("refuses: write the last seq handled, or delete it", /callback_cursor\.json: it is damaged/),
  },
  { file: "callback_cursor.json", damage: "deleted", ...STARTS("starts: every event is POSTed again (at least once)", callbacksGoOn) },
  {
    file: "callback_cursor.json",
    damage: "older",
    ...STARTS("starts: the events after it are POSTed again (at least once)", callbacksGoOn),
  },
  {
    file: "callback_cursor.json",
    damage: "ahead",
    ...STARTS(
      "clamped to the feed's end, warned in the log, /status and /healthz; new events POSTed",
      callbacksGoOn,
      /the callback cursor was ahead/,
    ),
  },
  // An archive month file: the catalog records its size as written.
  {
    file: MONTH_FILE,
    damage: "truncated",
    ...STARTS("starts: the draft it lost answers 503 naming it, its key 503; /healthz warns", archiveLost([0, 1], [2])),
  },
  {
    file: MONTH_FILE,
    damage: "garbled",
    ...STARTS("starts: the draft of the damaged line answers 503 naming the line, its key 503", archiveReads([0, 2], [1])),
  },
  {
    file: MONTH_FILE,
    damage: "empty",
    ...STARTS("starts: every draft in it answers 503, keys 503; /healthz warns", archiveLost([], [0, 1, 2])),
  },
  {
    file: MONTH_FILE,
    damage: "deleted",
    ...STARTS("starts: every draft in it answers 503, keys 503; /healthz warns", archiveLost([], [0, 1, 2])),
  },
  {
    file: MONTH_FILE,
    damage: "older",
    ...STARTS("starts: the newer draft answers 503, its key 503; /healthz warns", archiveLost([0, 1], [2])),
  },
  // The archive catalog: derived from the month files.
  {
    file: "archive/catalog.bin",
    damage: "truncated",
    ...STARTS("rebuilt from the month files", archiveReads([0, 1, 2], []), /catalog cannot be used/),
  },
  {
    file: "archive/catalog.bin",
    damage: "garbled",
    ...STARTS("rebuilt from the month files", archiveReads([0, 1, 2], []), /catalog cannot be used/),
  },
  {
    file: "archive/catalog.bin",
    damage: "empty",
    ...STARTS("rebuilt from the month files", archiveReads([0, 1, 2], []), /catalog cannot be used/),
  },
  {
    file: "archive/catalog.bin",
    damage: "deleted",
    ...STARTS("rebuilt from the month files", archiveReads([0, 1, 2], []), /catalog cannot be used/),
  },
  {
    file: "archive/catalog.bin",
    damage: "older",
    ...STARTS("older than its month files: rebuilt from them", archiveReads([0, 1, 2], []), /catalog is older than its month files/),
  },
];

beforeAll(async () => {
  double = await liveDouble();
  receiver = await startCallbackReceiver();
  base = await freshDirs();
  older = join(base.cwd, "older");
  await mkdir(join(older, "archive"), { recursive: true });
  // Archived drafts, in-process on a simulated clock (DRAFT_RETENTION 1h).
  const t = await openTestCore(base.harnessDir, { env: { DRAFT_RETENTION: "1h" }, live: true });
  archived = [await submitRevised(t, "Archived one", "no", { idempotency_key: KEYS[0] })];
  archived.push(await submitRevised(t, "Archived two", "no", { idempotency_key: KEYS[1] }));
  month = archiveMonthOf(t.core.desk.get(archived[0]!)!);
  await t.clock.advance(2 * 3_600_000);
  expect(await t.core.desk.archiveOld()).toBe(2);
  await cp(join(base.harnessDir, "archive"), join(older, "archive"), { recursive: true });
  archived.push(await submitRevised(t, "Archived three", "no", { idempotency_key: KEYS[2] }));
  await t.clock.advance(2 * 3_600_000);
  expect(await t.core.desk.archiveOld()).toBe(1);
  await t.close();
  // The daemon with callbacks: the journal and the cursor, then their older copies, then more of both.
  let daemon = await start(base);
  draftB = await submitPending(daemon, "B: waits for a decision");
  await journalSome(daemon, draftB, ["❤", "🔥"]);
  await allDelivered(daemon);
  expect(await daemon.stop("SIGTERM")).toBe(0);
  const paths = harnessPaths(base.harnessDir);
  await cp(paths.updates, join(older, "updates.jsonl"));
  await cp(paths.callbackCursor, join(older, "callback_cursor.json"));
  daemon = await start(base);
  const c = await submitPending(daemon, "C: waits too");
  await journalSome(daemon, c, ["🎉", "👀", "❤"]);
  await allDelivered(daemon);
  expect(await daemon.stop("SIGTERM")).toBe(0);
}, 120_000);

afterAll(async () => {
  for (const d of daemons) await d.stop("SIGKILL");
  await double?.stop();
  await receiver?.stop().catch(() => {});
  await rm(base.cwd, { recursive: true, force: true });
  figures("damage matrix (issue 28)", {
    rows: outcomes.length,
    refused_78: outcomes.filter((o) => o.exit === 78).length,
    started: outcomes.filter((o) => o.exit === "running").length,
  });
});

/** The row's file in a HARNESS_DIR. */
function rowPath(harnessDir: string, file: string): string {
  return join(harnessDir, file === MONTH_FILE ? join("archive", monthFileName(month)) : file);
}

/** Applies `damage` to `path` (in a copy of the base directory); `olderPath` is the same file in the older copy. */
async function damageFile(path: string, damage: Damage, olderPath: string): Promise<void> {
  const bytes = await readFile(path).catch(() => Buffer.alloc(0));
  if (damage === "deleted") return rm(path, { force: true });
  if (damage === "empty") return writeFile(path, "", { mode: 0o600 });
  if (damage === "older") return writeFile(path, await readFile(olderPath));
  if (damage === "ahead") return writeFile(path, `${JSON.stringify({ acked_seq: 100_000 })}\n`);
  const lines = bytes
    .toString("latin1")
    .split("\n")
    .filter((l) => l !== "");
  if (damage === "truncated") {
    // At a line boundary about half way; a one-line file is cut in the middle of its line.
    const text = lines.length > 1 ? `${lines.slice(0, Math.ceil(lines.length / 2)).join("\n")}\n` : bytes.subarray(0, bytes.length >> 1);
    return writeFile(path, typeof text === "string" ? Buffer.from(text, "latin1") : text);
  }
  if (damage === "garbled last line") {
    // A whole last line damaged after it was written (its newline kept): not a torn write.
    const last = lines.at(-1)!;
    lines[lines.length - 1] = `${last.slice(0, 20)}#garbled#${last.slice(29)}`;
    return writeFile(path, Buffer.from(`${lines.join("\n")}\n`, "latin1"));
  }
  // Garbled: sixteen bytes in the middle replaced, the length kept.
  const out = Buffer.from(bytes.length > 0 ? bytes : Buffer.from("x".repeat(32)));
  out.fill(0x01, Math.max(0, (out.length >> 1) - 8), Math.min(out.length, (out.length >> 1) + 8));
  out.write("\u0000garbled\u0000", Math.max(0, (out.length >> 1) - 5), "latin1");
  return writeFile(path, out);
}

describe("issue 28's files damaged: the start refuses naming the file, or starts and says what it lost", () => {
  it.each(ROWS)(
    "$file $damage: $behaviour",
    async (row) => {
      const d = await freshDirs();
      await mkdir(d.harnessDir, { recursive: true, mode: 0o700 });
      await cp(base.harnessDir, d.harnessDir, { recursive: true });
      const path = rowPath(d.harnessDir, row.file);
      await damageFile(path, row.damage, rowPath(older, row.file));
      if (row.damage !== "deleted") await chmod(path, 0o600);
      const damaged = await readFile(path).catch(() => null);
      const sentBefore = double.messages(GROUP).length;
      const daemon = await start(d, row.expect.starts);
      if (!row.expect.starts) {
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
      expect(double.messages(GROUP).length).toBe(sentBefore);
      await daemon.stop("SIGKILL");
    },
    60_000,
  );
});
