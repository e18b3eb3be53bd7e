/**
 * The real daemon (`node dist/main.js`, built by `npm run build`) as a child
 * process against the double, for the end-to-end figures.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { resolve } from "node:path";
import { BENCH_API_TOKEN, OWNER } from "./support.js";

/** dist-bench/bench/daemon.js -> <project>/dist/main.js */
const MAIN_JS = resolve(import.meta.dirname, "../../dist/main.js");

/** A running daemon: its API, its pid, and how to stop it. */
export interface Daemon {
  readonly child: ChildProcess;
  readonly apiUrl: string;
  /** The last 20 kB of its stderr (JSON log lines). */
  stderr(): string;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves true when it exited by itself. */
  stop(graceMs?: number): Promise<boolean>;
}

/**
 * Starts the daemon with a clean environment (review chat: the owner's private
 * chat, API on a free port, a fixed API token) plus `env`, and waits until it
 * logs that it is running. Rejects with its stderr if it exits first.
 */
export async function startDaemon(opts: {
  cwd: string;
  harnessDir: string;
  double: { url: string; token: string };
  env?: Record<string, string>;
}): Promise<Daemon> {
  const child = spawn(process.execPath, [MAIN_JS], {
    cwd: opts.cwd,
    env: {
      PATH: process.env.PATH ?? "",
      HARNESS_DIR: opts.harnessDir,
      TELEGRAM_BOT_TOKEN: opts.double.token,
      TELEGRAM_API_ROOT: opts.double.url,
      REVIEW_CHAT_ID: String(OWNER),
      DRAFT_API_PORT: "0",
      DRAFT_API_TOKEN: BENCH_API_TOKEN,
      LOG_LEVEL: "info",
      UNDO_WINDOW: "0",
      ...opts.env,
    },
    stdio: ["ignore", "ignore", "pipe"],
  });
  const exited = new Promise<number | null>((r) => child.once("exit", (code) => r(code)));
  let stderr = "";
  const apiUrl = await new Promise<string>((resolveUrl, reject) => {
    const timer = setTimeout(() => reject(new Error(`the daemon did not start within 20 s:\n${stderr.slice(-2000)}`)), 20_000);
    let partial = "";
    child.stderr!.setEncoding("utf8").on("data", (chunk: string) => {
      stderr = (stderr + chunk).slice(-20_000);
      const lines = (partial + chunk).split("\n");
      partial = lines.pop() ?? "";
      for (const line of lines) {
        if (!line.includes('"draft-review is running"')) continue;
        clearTimeout(timer);
        resolveUrl(String((JSON.parse(line) as { api: string }).api));
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`the daemon exited (${code}) before it was running:\n${stderr.slice(-2000)}`));
    });
  });
  return {
    child,
    apiUrl,
    stderr: () => stderr,
    async stop(graceMs = 10_000) {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      let killed = false;
      const killer = setTimeout(() => {
        killed = true;
        child.kill("SIGKILL");
      }, graceMs);
      await exited;
      clearTimeout(killer);
      return !killed;
    },
  };
}
