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
 * One row per (file, damage): add a row to ROWS for a new file or behaviour.
 */
import { chmod, cp, mkdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { harnessPaths } from "../../src/app/paths.js";
import { runBin } from "../support/cli-process.js";
import { eventually, freshDirs, startDaemon, type DaemonProcess } from "../support/daemon-process.js";
import { daemonEnv, FRIEND, GROUP, liveDouble, OWNER, payload } from "../support/live-fixture.js";
import type { TelegramDouble } from "../telegram-double/index.js";
import { figures } from "./support/hostile-kit.js";

type Dirs = { cwd: string; harnessDir: string };
type Damage = "truncated" | "garbled" | "empty" | "deleted" | "older";

/** What a start must do with the damaged file. */
type Expect = { readonly starts: true; readonly log?: RegExp } | { readonly starts: false; readonly message: RegExp };

interface Row {
  /** The file's name in HARNESS_DIR. */
  readonly file: string;
  readonly damage: Damage;
  readonly expect: Expect;
  /** What the daemon does, as the report's table says it. */
  readonly behaviour: string;
}

const STARTS = (behaviour: string, log?: RegExp) => ({ expect: { starts: true, ...(log ? { log } : {}) } as Expect, behaviour });
const REFUSES = (behaviour: string, message: RegExp) => ({ expect: { starts: false, message } as Expect, behaviour });

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
];

let double: TelegramDouble;
let base: Dirs;
/** HARNESS_DIR after A and B were posted and the daemon stopped: the "older copy" of every file. */
let older: string;
let draftA: string;
let draftB: string;
const daemons: DaemonProcess[] = [];
const outcomes: Array<Record<string, unknown>> = [];

const env = () => ({ ...daemonEnv(double), DRAFT_API_TOKEN: "", UNDO_WINDOW: "6s" });

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

/** POST /drafts with the token the daemon wrote; resolves with the draft id once it is pending. */
async function submit(daemon: DaemonProcess, text: string): Promise<string> {
  const token = (await readFile(harnessPaths(daemon.harnessDir).apiToken, "utf8")).trim();
  const res = await fetch(`${daemon.apiUrl}/drafts`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify(payload(text)),
  });
  const { draft_id: id } = (await res.json()) as { draft_id: string };
  await eventually(async () => (await storeLatest(daemon.harnessDir)).get(id)?.status === "pending", 10_000, `${text} posted`);
  return id;
}

beforeAll(async () => {
  double = await liveDouble();
  base = await freshDirs();
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
      const path = join(d.harnessDir, row.file);
      await damageFile(path, row.damage, join(older, row.file));
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
