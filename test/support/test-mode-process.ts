import { spawn } from "node:child_process";
import { expect } from "vitest";
import { MAIN_JS } from "./daemon-process.js";
import { clockEnv } from "./clock-env.js";

/** A draft payload for a test-mode session (to a group), with `extra` fields over it. */
export function draft(text: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    draft_text: text,
    destination_chat_id: "-1001234567890",
    destination_thread_id: null,
    drafted_by_role: "Scribe",
    originating_intent_id: "intent-1",
    ...extra,
  };
}

/** What a test-mode run printed and how it ended. */
export interface TestModeRun {
  readonly answers: Array<Record<string, any>>;
  readonly stderr: string;
  readonly code: number | null;
}

/**
 * Runs `node dist/main.js` in test mode as a real process: writes `lines`
 * (objects are JSON-encoded, strings sent as they are) to stdin, closes it,
 * and collects one answer per line from stdout.
 */
export function runTestMode(
  lines: ReadonlyArray<unknown>,
  options: { cwd: string; harnessDir: string; env?: Record<string, string>; killAfterMs?: number },
): Promise<TestModeRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [MAIN_JS], {
      cwd: options.cwd,
      // UNDO_WINDOW=0 unless the test sets it ("" = the default 10 s).
      env: {
        PATH: process.env.PATH ?? "",
        ...clockEnv(),
        TAO_DRAFT_REVIEW_TEST: "1",
        HARNESS_DIR: options.harnessDir,
        UNDO_WINDOW: "0",
        ...options.env,
      },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (c: string) => (stdout += c));
    child.stderr.setEncoding("utf8").on("data", (c: string) => (stderr += c));
    // A session that never ends (a hang under test) is killed, so it cannot outlive the test.
    const killer = options.killAfterMs === undefined ? undefined : setTimeout(() => child.kill("SIGKILL"), options.killAfterMs);
    child.on("error", reject);
    child.on("exit", (code) => {
      clearTimeout(killer);
      try {
        const answers = stdout
          .split("\n")
          .filter((l) => l !== "")
          .map((l) => JSON.parse(l));
        resolve({ answers, stderr, code });
      } catch (err) {
        reject(new Error(`stdout is not JSON lines: ${stdout}\n${stderr}`));
      }
    });
    for (const line of lines) child.stdin.write((typeof line === "string" ? line : JSON.stringify(line)) + "\n");
    child.stdin.end();
  });
}

/**
 * One test-mode session on `dirs` (a step of a test: each needs the ids the
 * previous one printed): expects exit 0 and one answer per input line.
 */
export async function testModeSession(
  dirs: { cwd: string; harnessDir: string },
  input: unknown[],
  env?: Record<string, string>,
  killAfterMs?: number,
): Promise<Array<Record<string, any>>> {
  const run = await runTestMode(input, { ...dirs, env, ...(killAfterMs === undefined ? {} : { killAfterMs }) });
  expect(run.code, run.stderr).toBe(0);
  expect(run.answers).toHaveLength(input.length);
  return run.answers;
}
