import { readFile } from "node:fs/promises";
import { PassThrough } from "node:stream";
import pino from "pino";
import { harnessPaths } from "../../../src/app/paths.js";
import { SimulatedClock } from "../../../src/clock/simulated-clock.js";
import { runTestMode } from "../../../src/test-mode/run.js";
import { explorerConfig } from "./desk-harness.js";

/**
 * One command of a test-mode session the explorer runs on the live files:
 * `pick` chooses among the bot's messages of the review chat (live drafts'
 * posts among them) or the live drafts' ids.
 */
export type TestModeStep =
  | { readonly cmd: "list" }
  | { readonly cmd: "advance"; readonly by: string | null }
  | { readonly cmd: "react" | "unreact"; readonly pick: number; readonly emoji: string }
  | { readonly cmd: "reply"; readonly pick: number; readonly text: string }
  | { readonly cmd: "keep"; readonly pick: number }
  | { readonly cmd: "get"; readonly pick: number }
  | { readonly cmd: "submit" };

/** The step as test mode reads it on stdin. */
function lineOf(step: TestModeStep, messages: readonly number[], drafts: readonly string[], serial: number): string {
  const message = (pick: number) => messages[messages.length - 1 - (pick % Math.max(1, messages.length))] ?? 1;
  switch (step.cmd) {
    case "list":
    case "submit":
      return step.cmd === "list"
        ? JSON.stringify({ cmd: "list" })
        : JSON.stringify({ draft_text: `Test mode draft ${serial}`, destination_chat_id: "-1005550001", drafted_by_role: "Scribe" });
    case "advance":
      return JSON.stringify(step.by === null ? { cmd: "advance" } : { cmd: "advance", by: step.by });
    case "react":
    case "unreact":
      return JSON.stringify({ cmd: step.cmd, review_message_id: message(step.pick), emoji: step.emoji });
    case "reply":
      return JSON.stringify({ cmd: "reply", review_message_id: message(step.pick), text: step.text });
    case "keep":
      return JSON.stringify({ cmd: "keep", review_message_id: message(step.pick) });
    case "get":
      return JSON.stringify({ cmd: "get", draft_id: drafts[drafts.length - 1 - (step.pick % Math.max(1, drafts.length))] ?? "none" });
  }
}

/** The latest store line of each live draft (made without test mode), by id. */
async function liveRecords(dir: string): Promise<Map<string, string>> {
  const latest = new Map<string, string>();
  const text = await readFile(harnessPaths(dir).drafts, "utf8").catch(() => "");
  for (const line of text.split("\n")) {
    if (line === "") continue;
    const record = JSON.parse(line) as { draft_id: string; test_mode?: boolean };
    if (record.test_mode !== true) latest.set(record.draft_id, line);
    else latest.delete(record.draft_id);
  }
  return latest;
}

/**
 * Runs test mode's own session (runTestMode, in-process) on the daemon's
 * HARNESS_DIR, its simulated clock starting at `startMs`, with `steps` on
 * stdin. Returns what it did to live drafts that the contract forbids ("Test
 * mode never touches live drafts"): a live draft's record changed or gone,
 * a live draft listed or shown. What it may make happen later (a send) is
 * the explorer's invariant to judge once the daemon runs again.
 */
export async function runTestModeSession(
  dir: string,
  startMs: number,
  steps: readonly TestModeStep[],
  messages: readonly number[],
  drafts: readonly string[],
): Promise<string[]> {
  const before = await liveRecords(dir);
  const input = new PassThrough();
  const output = new PassThrough();
  const answers: string[] = [];
  output.on("data", (chunk: Buffer) => answers.push(...chunk.toString("utf8").split("\n").filter(Boolean)));
  input.end(steps.map((s, i) => `${lineOf(s, messages, drafts, i)}\n`).join(""));
  const config = explorerConfig(dir, { TAO_DRAFT_REVIEW_TEST: "1" });
  await runTestMode(
    config,
    pino({ level: "silent" }),
    { processSwitchValue: undefined, redact: null },
    { input, output, stderr: new PassThrough(), clock: new SimulatedClock(startMs), envFilePath: `${dir}/.env` },
  );
  const problems: string[] = [];
  const after = await liveRecords(dir);
  for (const [id, line] of before) {
    const now = after.get(id);
    if (now !== line) problems.push(`test mode ${now === undefined ? "removed" : "changed"} live draft ${id}: ${line} → ${now ?? "gone"}`);
  }
  for (const answer of answers) {
    const shown = JSON.stringify(JSON.parse(answer));
    for (const id of before.keys()) if (shown.includes(`"draft_id":"${id}"`)) problems.push(`test mode showed live draft ${id}: ${answer}`);
  }
  return problems;
}
