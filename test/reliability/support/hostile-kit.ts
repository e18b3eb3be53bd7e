/**
 * Shared pieces of the hostile-input, damaged-file, I/O-fault, secrets and
 * tamper tests: how many cases to run, how to print figures, an in-process
 * core on the real start-up path (openCore), and small file helpers.
 */
import { spawn } from "node:child_process";
import { constants } from "node:fs";
import { access, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { openCore, type Core } from "../../../src/app/core.js";
import { harnessPaths } from "../../../src/app/paths.js";
import { SimulatedClock } from "../../../src/clock/simulated-clock.js";
import { loadConfig, type Config } from "../../../src/config/config.js";
import { resumeDrafts } from "../../../src/desk/recovery.js";
import type { DraftRecord } from "../../../src/drafts/record.js";
import type { Logger } from "../../../src/log/logger.js";
import { unlimited } from "../../../src/send/limiter.js";
import type { SendCallOutcome } from "../../../src/channels/telegram/send-call.js";
import { wallClockNow } from "../../support/drafts.js";
import { FakeReviewChat } from "../../../src/test-mode/fake-review-chat.js";
import { clockEnv } from "../../support/clock-env.js";

/** RELIABILITY_ITERATIONS scales case counts (default 1 keeps CI short). */
export const ITERATIONS = Math.max(1, Math.floor(Number(process.env.RELIABILITY_ITERATIONS ?? "1")) || 1);

/** `n` cases at the default scale, times RELIABILITY_ITERATIONS. */
export function scaled(n: number): number {
  return n * ITERATIONS;
}

/**
 * True in a run at another date (libfaketime: scripts/test-at-dates.mjs, whose `faketime` sets FAKETIME).
 * There a sweep checks what its fixtures' dates do, which a sample of its cases shows as well as all of
 * them: every case still runs in the run at today's date.
 */
export const AT_ANOTHER_DATE = process.env.FAKETIME !== undefined;

/** A seed for fast-check: fixed per run unless RELIABILITY_SEED is set, so failures can be replayed. */
export const SEED = Number(process.env.RELIABILITY_SEED ?? "20261130");

/** Prints one line of figures: `[reliability] <name> key=value ...`. */
export function figures(name: string, values: Record<string, unknown>): void {
  const parts = Object.entries(values).map(([k, v]) => `${k}=${typeof v === "string" && !/[\s"]/.test(v) ? v : JSON.stringify(v)}`);
  console.log(`[reliability] ${name} ${parts.join(" ")}`);
}

/** A fresh temp directory; `cleanup()` removes every one made. */
const made: string[] = [];
export async function tempDir(prefix = "hostile-"): Promise<string> {
  const d = await mkdtemp(join(tmpdir(), prefix));
  made.push(d);
  return d;
}

/**
 * A temp directory on /dev/shm when there is one (fsync costs nothing there),
 * for sweeps that open the store a thousand times; the file semantics the
 * store relies on (append, truncate, read) are the same as on a disk.
 */
export async function sweepDir(prefix = "hostile-"): Promise<string> {
  try {
    await access("/dev/shm", constants.W_OK);
    const d = await mkdtemp(join("/dev/shm", prefix));
    made.push(d);
    return d;
  } catch {
    return tempDir(prefix);
  }
}
export async function cleanup(): Promise<void> {
  for (const d of made.splice(0)) await rm(d, { recursive: true, force: true });
}

/** A pino logger that keeps its lines in memory (parsed). */
export function memoryLogger(level = "debug"): { log: Logger; lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  const log = pino({ level }, { write: (s: string) => void lines.push(JSON.parse(s) as Record<string, unknown>) });
  return { log, lines };
}

/** The reviewer of the in-process core (test mode's default review chat user). */
export const REVIEWER = 100000001;

/** A test-mode configuration on `harnessDir`. */
export function testConfig(harnessDir: string, env: Record<string, string> = {}): Config {
  return loadConfig({ TAO_DRAFT_REVIEW_TEST: "1", HARNESS_DIR: harnessDir, UNDO_WINDOW: "0", ...env });
}

/** One sendMessage the fake destination received, with what the store file held at that moment. */
export interface SendSeen {
  readonly chatId: string;
  readonly text: string;
  /** The store file's bytes when the call was made. */
  readonly storeAtCall: string;
}

/** The in-process core with test-mode edges, and what its destination received. */
export interface TestCore {
  readonly core: Core;
  readonly clock: SimulatedClock;
  readonly sends: SendSeen[];
  readonly logLines: Array<Record<string, unknown>>;
}

/**
 * Opens HARNESS_DIR through openCore, the path `npm start` takes, with test
 * mode's edges (simulated clock, made-up review chat) and a destination that
 * records every call together with the store file as it was at that moment.
 */
export async function openTestCore(
  harnessDir: string,
  options: { resume?: boolean; sendOutcome?: () => SendCallOutcome; clock?: SimulatedClock } = {},
): Promise<TestCore> {
  const config = testConfig(harnessDir);
  const { log, lines } = memoryLogger();
  // A restart keeps the clock it is given; a fresh one starts now, as a real daemon reading these files would.
  const clock = options.clock ?? new SimulatedClock(wallClockNow());
  const sends: SendSeen[] = [];
  let chat: FakeReviewChat | undefined;
  const core = await openCore(config, log, {
    clock,
    makeReviewChat: (existing) => (chat = new FakeReviewChat(config.reviewChatId, existing, log)),
    sendCall: async (target) => {
      sends.push({ chatId: target.chatId, text: target.text, storeAtCall: await readFile(harnessPaths(harnessDir).drafts, "utf8") });
      return options.sendOutcome?.() ?? { kind: "ok", messageId: chat!.takeId() };
    },
    limiter: unlimited(),
    redact: null,
    processSwitchValue: "1",
    envFilePath: join(harnessDir, "no-such.env"),
  });
  if (options.resume !== false) {
    await resumeDrafts(core.desk);
    await core.desk.settle();
  }
  return { core, clock, sends, logLines: lines };
}

/** A valid payload for the destination group. */
export function payload(text: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    draft_text: text,
    destination_chat_id: "-1001234567890",
    drafted_by_role: "Scribe",
    originating_intent_id: "intent-1",
    ...extra,
  };
}

/** A reviewer's 👍 on a review message, as the reaction handler hands it to the desk. */
export function approve(tc: TestCore, reviewMessageId: number, updateId: number | null = null, userId = REVIEWER) {
  return tc.core.desk.decide({
    reviewChatId: tc.core.desk.byReviewMessageId(reviewMessageId)?.review_chat_id ?? String(REVIEWER),
    reviewMessageId,
    decision: "send",
    actor: { user_id: userId, channel: "reaction", emoji: "👍", update_id: updateId },
  });
}

/** The records of a store file's text, line by line, without their checksums (lines that do not parse are skipped). */
export function storeRecords(text: string): DraftRecord[] {
  const out: DraftRecord[] = [];
  for (const line of text.split("\n")) {
    if (line === "") continue;
    try {
      const { crc: _crc, ...rec } = JSON.parse(line) as DraftRecord & { crc?: string };
      out.push(rec);
    } catch {
      // a torn line: not a record
    }
  }
  return out;
}

/** The latest record per draft in a store file's text. */
export function latestById(text: string): Map<string, DraftRecord> {
  const m = new Map<string, DraftRecord>();
  for (const r of storeRecords(text)) m.set(r.draft_id, r);
  return m;
}

/** A copy of `buf` with bit `bit` (0 = lowest) of byte `at` flipped. */
export function flipBit(buf: Buffer, at: number, bit: number): Buffer {
  const copy = Buffer.from(buf);
  copy[at] = copy[at]! ^ (1 << bit);
  return copy;
}

/** Byte offsets where each line starts, plus the file's length at the end. */
export function lineStarts(buf: Buffer): number[] {
  const starts = [0];
  for (let i = buf.indexOf(10); i >= 0 && i + 1 < buf.length; i = buf.indexOf(10, i + 1)) starts.push(i + 1);
  starts.push(buf.length);
  return starts;
}

/** A tiny deterministic PRNG (mulberry32), for sampling offsets and bits reproducibly. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `count` distinct integers from [from, to), in increasing order (all of them when the range is smaller). */
export function sample(from: number, to: number, count: number, rand: () => number): number[] {
  const n = to - from;
  if (n <= count) return Array.from({ length: n }, (_, i) => from + i);
  const picked = new Set<number>();
  while (picked.size < count) picked.add(from + Math.floor(rand() * n));
  return [...picked].sort((a, b) => a - b);
}

/** What a test-mode run printed: stdout lines (parsed), stderr, exit code. */
export interface RawTestModeRun {
  readonly answers: Array<Record<string, any>>;
  readonly stderr: string;
  readonly code: number | null;
}

/**
 * Runs `node dist/main.js` in test mode with `lines` written to stdin as they
 * are (a Buffer's bytes unchanged, invalid UTF-8 included), each followed by
 * a newline; collects stdout's JSON lines.
 */
export function runTestModeRaw(
  lines: ReadonlyArray<string | Buffer>,
  options: { cwd: string; harnessDir: string; env?: Record<string, string> },
): Promise<RawTestModeRun> {
  const mainJs = join(import.meta.dirname, "../../../dist/main.js");
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [mainJs], {
      cwd: options.cwd,
      env: { PATH: process.env.PATH ?? "", ...clockEnv(), TAO_DRAFT_REVIEW_TEST: "1", HARNESS_DIR: options.harnessDir, ...options.env },
      stdio: ["pipe", "pipe", "pipe"],
    });
    const out: Buffer[] = [];
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => out.push(c));
    child.stderr.setEncoding("utf8").on("data", (c: string) => (stderr += c));
    child.on("error", reject);
    child.stdin.on("error", () => {});
    child.on("exit", (code) => {
      const text = Buffer.concat(out).toString("utf8");
      try {
        resolve({
          answers: text
            .split("\n")
            .filter((l) => l !== "")
            .map((l) => JSON.parse(l) as Record<string, any>),
          stderr,
          code,
        });
      } catch {
        reject(new Error(`stdout is not JSON lines: ${text.slice(0, 2000)}\n${stderr.slice(-2000)}`));
      }
    });
    for (const line of lines)
      child.stdin.write(Buffer.concat([typeof line === "string" ? Buffer.from(line, "utf8") : line, Buffer.from("\n")]));
    child.stdin.end();
  });
}
