import { createServer } from "node:net";
import { spawn } from "node:child_process";
import { join, resolve } from "node:path";
import { clockEnv } from "./clock-env.js";

/** The repository root. */
export const ROOT = resolve(import.meta.dirname, "../..");
/** The `draft-review` bin the tests run (it runs dist/, which test/support/build-once.ts builds before every run). */
export const BIN = join(ROOT, "bin/draft-review.js");

/** What a CLI run came to. */
export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs the real bin as a child process with a clean environment plus `env` (async: servers it talks to live in this process).
 * Its API address is a port nothing listens on unless `env` names one: never the default 8787, where the
 * owner's own daemon may answer on the machine running the tests (`DRAFT_API_PORT: undefined` leaves it
 * unset, for a test of `.env`). Run it in a temp `cwd`: it reads `.env` there.
 */
export async function runBin(
  args: string[],
  opts: { cwd: string; env?: Record<string, string | undefined>; stdin?: string; bin?: string },
): Promise<CliRun> {
  const given: Record<string, string | undefined> = {
    PATH: process.env.PATH ?? "",
    ...clockEnv(),
    HOME: process.env.HOME ?? "/tmp",
    DRAFT_API_PORT: String(await freePort()),
    ...opts.env,
  };
  const env = Object.fromEntries(Object.entries(given).filter((e): e is [string, string] => e[1] !== undefined));
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [opts.bin ?? BIN, ...args], { cwd: opts.cwd, env, stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolvePromise({ code, stdout, stderr }));
    child.stdin.on("error", () => {});
    child.stdin.end(opts.stdin ?? "");
  });
}

/** Exactly one JSON line on stdout, parsed; throws with both streams otherwise. */
export function jsonLine(run: CliRun): any {
  const lines = run.stdout.split("\n").filter((l) => l !== "");
  if (lines.length !== 1) throw new Error(`expected one JSON line on stdout\nstdout: ${run.stdout}\nstderr: ${run.stderr}`);
  return JSON.parse(lines[0]!);
}

/** A TCP port free on 127.0.0.1 right now (for a daemon the test does not start itself). */
export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((r) => probe.listen(0, "127.0.0.1", r));
  const port = (probe.address() as { port: number }).port;
  await new Promise((r) => probe.close(r));
  return port;
}
