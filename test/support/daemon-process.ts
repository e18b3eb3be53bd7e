import { spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { clockEnv } from "./clock-env.js";

/** The compiled daemon; `npm test` builds it first. */
export const MAIN_JS = resolve(import.meta.dirname, "../../dist/main.js");

/** A fixed API token for tests (the daemon scrubs it from logs). */
export const TEST_API_TOKEN = "test-api-token-0123456789abcdef";

/** A daemon running as a real child process. */
export interface DaemonProcess {
  readonly child: ChildProcess;
  readonly apiUrl: string;
  readonly harnessDir: string;
  readonly cwd: string;
  /** Every stderr line, parsed when it is JSON. */
  readonly logs: Array<Record<string, unknown>>;
  readonly rawStderr: () => string;
  waitForLog(match: (line: Record<string, unknown>) => boolean, timeoutMs?: number): Promise<Record<string, unknown>>;
  request(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>;
  /** Sends `signal` and waits for the exit; resolves with the exit code (null when killed by a signal). */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
  exited: Promise<number | null>;
}

/** Every freshDirs cwd of this test file not yet removed. */
const madeDirs: string[] = [];
/** Every daemon this test file started that has not exited yet. */
const running = new Set<DaemonProcess>();

/** Where a test daemon keeps its files: a fresh cwd (for `.env`) with HARNESS_DIR inside it; `removeFreshDirs` removes it. */
export async function freshDirs(): Promise<{ cwd: string; harnessDir: string }> {
  const cwd = await mkdtemp(join(tmpdir(), "draft-review-"));
  madeDirs.push(cwd);
  return { cwd, harnessDir: join(cwd, ".harness") };
}

/** Removes every dir `freshDirs` made so far (call it once the daemons on them have stopped). */
export async function removeFreshDirs(): Promise<void> {
  for (const d of madeDirs.splice(0)) await rm(d, { recursive: true, force: true });
}

/** SIGKILLs every daemon started so far that still runs, and waits until each has exited. */
export async function killDaemons(): Promise<void> {
  await Promise.all([...running].map((d) => d.stop("SIGKILL")));
}

/**
 * Starts `node dist/main.js` with a clean environment plus `env`, and waits
 * until it says it is running (or exits, which rejects with its stderr).
 */
export async function startDaemon(options: {
  env: Record<string, string>;
  cwd: string;
  harnessDir: string;
  waitUntilRunning?: boolean;
}): Promise<DaemonProcess> {
  const child = spawn(process.execPath, [MAIN_JS], {
    cwd: options.cwd,
    env: {
      PATH: process.env.PATH ?? "",
      ...clockEnv(),
      HARNESS_DIR: options.harnessDir,
      DRAFT_API_PORT: "0",
      DRAFT_API_TOKEN: TEST_API_TOKEN,
      LOG_LEVEL: "debug",
      // Sends at once unless a test sets a window ("" = the default 10 s).
      UNDO_WINDOW: "0",
      // The double answers at once: the review chat's pacing and the retry backoffs run 20x faster.
      // A test of the pacing itself sets "1".
      TELEGRAM_RATE_SCALE: "20",
      ...options.env,
    },
    stdio: ["pipe", "pipe", "pipe"],
  });
  const logs: Array<Record<string, unknown>> = [];
  const waiters = new Set<() => void>();
  let stderr = "";
  let partial = "";
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
    partial += chunk;
    const lines = partial.split("\n");
    partial = lines.pop() ?? "";
    for (const line of lines) {
      try {
        logs.push(JSON.parse(line));
      } catch {
        logs.push({ msg: line, raw: true });
      }
    }
    for (const w of waiters) w();
  });
  child.stdout!.resume();
  const exited = new Promise<number | null>((res) => child.once("exit", (code) => res(code)));

  const waitForLog = (match: (line: Record<string, unknown>) => boolean, timeoutMs = 10_000) =>
    new Promise<Record<string, unknown>>((res, rej) => {
      const check = () => {
        const found = logs.find(match);
        if (found) {
          waiters.delete(check);
          clearTimeout(timer);
          res(found);
        }
      };
      const timer = setTimeout(() => {
        waiters.delete(check);
        rej(new Error(`log line not seen within ${timeoutMs} ms; stderr:\n${stderr.slice(-4000)}`));
      }, timeoutMs);
      waiters.add(check);
      check();
      void exited.then(() => {
        if (waiters.has(check)) {
          waiters.delete(check);
          clearTimeout(timer);
          rej(new Error(`daemon exited before the log line; stderr:\n${stderr.slice(-4000)}`));
        }
      });
    });

  let apiUrl = "";
  const daemon: DaemonProcess = {
    child,
    get apiUrl() {
      return apiUrl;
    },
    harnessDir: options.harnessDir,
    cwd: options.cwd,
    logs,
    rawStderr: () => stderr,
    waitForLog,
    async request(method, path, body) {
      const res = await fetch(apiUrl + path, {
        method,
        headers: { authorization: `Bearer ${TEST_API_TOKEN}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : null };
    },
    async stop(signal = "SIGTERM") {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
    exited,
  };
  running.add(daemon);
  void exited.then(() => running.delete(daemon));
  if (options.waitUntilRunning !== false) {
    const started = await waitForLog((l) => l.msg === "draft-review is running", 15_000);
    apiUrl = String(started.api);
  }
  return daemon;
}

/** Whether anything (a file, a directory, a link that resolves) is at `path`. */
export function pathExists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

/** Polls `fn` until it returns a truthy value; rejects after `timeoutMs`. */
export async function eventually<T>(
  fn: () => T | Promise<T>,
  timeoutMs = 10_000,
  what = "condition",
): Promise<Exclude<T, null | undefined | false | 0 | "">> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn();
    if (value) return value as Exclude<T, null | undefined | false | 0 | "">;
    if (Date.now() > deadline) throw new Error(`${what} not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
