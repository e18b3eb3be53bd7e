/**
 * Issue 28 point 1, through the real daemon: a start refused because of the
 * data in a HARNESS_DIR file exits 78 (which neither service file restarts),
 * names the file (and the line where there is one) and what to do, and reads
 * as an operator's message: no "unexpected error", no stack trace.
 */
import { cp, readFile, writeFile } from "node:fs/promises";
import { beforeAll, describe, expect, it } from "vitest";
import { harnessPaths } from "../../src/app/paths.js";
import { eventually, freshDirs } from "../support/daemon-process.js";
import { OWNER, payload, submitPending, useLiveDaemon, type DaemonDirs } from "../support/live-fixture.js";

const live = useLiveDaemon({ scope: "file" });
let dirs: DaemonDirs;

/** Starts a daemon on `d` that is meant to refuse; its exit code and stderr. */
async function refused(d: DaemonDirs, env: Record<string, string> = {}): Promise<{ code: number | null; stderr: string }> {
  const daemon = await live.start(env, { dirs: d, waitUntilRunning: false });
  const code = await daemon.exited;
  return { code, stderr: daemon.rawStderr() };
}

/** What every refusal because of data says, and does not say. */
function expectOperatorRefusal(run: { code: number | null; stderr: string }, file: string): void {
  expect(run.code, run.stderr).toBe(78);
  expect(run.stderr).toContain("draft-review: cannot start.");
  expect(run.stderr).toContain(file);
  expect(run.stderr).not.toMatch(/unexpected error/i);
  expect(run.stderr).not.toMatch(/^\s+at .+:\d+:\d+\)?$/m);
  expect(run.stderr).not.toContain("draft-review is running");
}

beforeAll(async () => {
  dirs = await freshDirs();
  const d = await live.start({}, { dirs });
  const draft = await submitPending(d, payload("Refusals keep this"));
  for (const e of ["❤", "🔥", "🎉"])
    live.double.injectReaction({ chatId: OWNER, messageId: draft.review_message_id, userId: OWNER, newEmojis: [e] });
  // Three updates journaled and handled: six lines, so a damaged second line has good lines after it.
  await eventually(() => d.logs.filter((l) => l.msg === "update handled").length >= 3, 10_000, "three updates handled");
  await d.stop("SIGTERM");
});

/** A copy of the harness made in beforeAll, with `file` replaced by `bytes`. */
async function damagedCopy(file: keyof ReturnType<typeof harnessPaths>, bytes: (old: string) => string): Promise<DaemonDirs> {
  const d = await freshDirs();
  await cp(dirs.harnessDir, d.harnessDir, { recursive: true });
  const path = harnessPaths(d.harnessDir)[file] as string;
  const old = await readFile(path, "utf8").catch(() => "");
  await writeFile(path, bytes(old));
  return d;
}

describe("a refusal to start because of data exits 78 with an operator's message", () => {
  it("a garbled callback_cursor.json", async () => {
    const d = await damagedCopy("callbackCursor", () => "{garbled");
    const run = await refused(d, { CALLBACK_URL: "http://127.0.0.1:9/hook", CALLBACK_SECRET: "s".repeat(32) });
    expectOperatorRefusal(
      run,
      `${harnessPaths(d.harnessDir).callbackCursor}: it is damaged ("{garbled"); it should hold {"acked_seq": N}.`,
    );
    expect(run.stderr).toContain("or delete it to deliver every event again");
  });

  it("a garbled middle line of updates.jsonl names the line and what a move aside costs", async () => {
    const d = await damagedCopy("updates", (old) => {
      const lines = old.split("\n");
      lines[1] = "garbled garbled garbled";
      return lines.join("\n");
    });
    const run = await refused(d);
    const path = harnessPaths(d.harnessDir).updates;
    expectOperatorRefusal(run, `${path} line 2 is damaged`);
    expect(run.stderr).toContain("/pending");
  });

  it("a garbled middle line of the draft store", async () => {
    const d = await damagedCopy("drafts", (old) => {
      const lines = old.split("\n");
      lines[0] = `${lines[0]!.slice(0, 20)}#${lines[0]!.slice(21)}`;
      return lines.join("\n");
    });
    const run = await refused(d);
    expectOperatorRefusal(run, `${harnessPaths(d.harnessDir).drafts} line 1 is damaged`);
  });
});
