/**
 * Issue 32, B2-B4: the audit key proves its own log. Against the real daemon
 * and the Bot API double:
 * - B2: an unproven line inserted at the top of swarm.jsonl (claiming the
 *   anchor's seq 1) no longer hides the key anchor: forged lines after it stay
 *   another writer's, and a 👍 on the /help answer they name sends nothing;
 * - B3: a log from before the key, with one foreign unkeyed line continuing its
 *   chain, then the first start with the key: no line before the anchor makes
 *   a decision surface, so that line gives the /help answer no control;
 * - B4: another daemon's key, which proves none of the log's lines, refuses
 *   the start with 78, naming the key file and what to do.
 * `draft-review audit verify` says each case in words: lines before the anchor
 * that are not those it recorded, foreign lines after it, history from before
 * the key (which made no decision surface), another log's key.
 */
import { randomBytes } from "node:crypto";
import { rm, writeFile } from "node:fs/promises";
import { describe, expect } from "vitest";
import { harnessPaths } from "../../src/app/paths.js";
import { chainedLines, DAEMON_SOURCE, lineSha, rawAuditLines } from "../support/audit-forgery.js";
import { runBin } from "../support/cli-process.js";
import { eventually, type DaemonProcess } from "../support/daemon-process.js";
import {
  auditLines,
  draftRecord,
  GROUP,
  OWNER,
  payload,
  submitPending,
  liveTest,
  type LiveDaemonFixture,
} from "../support/live-fixture.js";

// Each test has a Bot API double and daemons of its own, and the tests run at once: most of each is waiting on the real clock.
const it = liveTest();
const SOURCE = DAEMON_SOURCE;
const sha = lineSha;

type Line = Record<string, any>;

const raw = rawAuditLines;

/** `draft-review audit verify` on the harness, as the operator runs it (the daemon stopped). */
const verify = (cwd: string, harnessDir: string) => runBin(["audit", "verify"], { cwd, env: { HARNESS_DIR: harnessDir } });

/** A draft posted and the /help answer; the daemon stopped. */
async function helpAnswered(live: LiveDaemonFixture): Promise<{ draft: Line; help: number; cwd: string; harnessDir: string }> {
  await live.start({ UNDO_WINDOW: "0" });
  const draft = await submitPending(live.daemon, payload("Never sent through a forged surface"));
  const before = live.double.messages(OWNER).length;
  live.double.injectMessage({ chatId: OWNER, userId: OWNER, text: "/help" });
  const help = await live.reviewChatMessage(before, /^Commands \(reviewers only\)/, "the /help answer");
  const { cwd, harnessDir } = live.daemon;
  await live.daemon.stop("SIGTERM");
  return { draft, help: help.messageId, cwd, harnessDir };
}

/** The post's own surface line, moved onto the /help answer as a ⏰ reminder of the draft (the measured attack), without its envelope. */
async function forgedSurface(harnessDir: string, draft: Line, help: number): Promise<Line> {
  const post = (await auditLines(harnessDir)).find((l) => l.kind === "surface" && l.message_id === draft.review_message_id)!;
  const { ts: _t, seq: _s, prev_hash: _p, mac: _m, source: _src, ...shown } = post;
  return { ...shown, message_id: help, asks: "remind", post: draft.review_message_id, until: Date.parse(draft.expires_at) };
}

/** A 👍 on the /help answer is refused (audited), and nothing reaches the group. */
async function thumbsOnHelpRefused(
  live: LiveDaemonFixture,
  daemon: DaemonProcess,
  harnessDir: string,
  help: number,
  draft: Line,
): Promise<void> {
  const tap = live.double.injectReaction({ chatId: OWNER, messageId: help, userId: OWNER, newEmojis: ["👍"] });
  await eventually(
    async () => (await auditLines(harnessDir)).some((l) => l.kind === "decision_refused" && l.update_id === tap.update.update_id),
    10_000,
    "the 👍 on the /help answer refused",
  );
  expect(await draftRecord(daemon, draft.draft_id)).toMatchObject({ status: "pending" });
  expect(live.double.messages(GROUP)).toHaveLength(0);
}

describe.concurrent("the audit key proves its own log", () => {
  it("B2: a line inserted before the key anchor does not turn the key off", async ({ live }) => {
    const { draft, help, cwd, harnessDir } = await helpAnswered(live);
    const lines = await raw(harnessDir);
    const ours = lines.filter((l) => JSON.parse(l).source === SOURCE);
    const forged = chainedLines(ours.at(-1)!, [await forgedSurface(harnessDir, draft, help)]);
    // The file rewritten: an unproven line of our source at the top, seq 1 like the anchor, and the forged surface at the end.
    const top = JSON.stringify({ ts: new Date().toISOString(), source: SOURCE, seq: 1, prev_hash: "", kind: "note", text: "inserted" });
    await writeFile(harnessPaths(harnessDir).audit, `${[top, ...lines, ...forged].join("\n")}\n`, { mode: 0o600 });
    await rm(harnessPaths(harnessDir).auditIndex, { force: true });
    // `audit verify` says both: the lines before the anchor are not those it recorded, and the forged line after it is foreign.
    const v = await verify(cwd, harnessDir);
    expect(v.code, v.stdout).toBe(1);
    expect(v.stdout).toContain(
      `BROKEN before the key anchor (line 2): the key anchor records ${SOURCE}'s lines before it as ending at seq 0, but they end at seq 1: ` +
        "a line before the anchor was inserted, edited or deleted since the key was made. Those lines prove nothing, and none of them made a decision surface.",
    );
    const forgedAt = lines.length + 2;
    expect(v.stdout).toContain(`line ${forgedAt} (byte `);
    expect(v.stdout).toContain(
      "It comes after the key anchor (line 2) without valid proof: written by another process in our name (foreign); " +
        "the daemon takes no such line into account, and it decides nothing",
    );
    const daemon = await live.start({ UNDO_WINDOW: "0" }, { dirs: { cwd, harnessDir } });
    await thumbsOnHelpRefused(live, daemon, harnessDir, help, draft);
  }, 60_000);

  it("B3: a log from before the key with a foreign line continuing its chain: no line before the anchor makes a decision surface", async ({
    live,
  }) => {
    const { draft, help, cwd, harnessDir } = await helpAnswered(live);
    // The same history as a daemon before the key wrote it: no proofs, the chain recomputed; no key, no checkpoint.
    const unkeyed: string[] = [];
    let prev = "";
    for (const l of await raw(harnessDir)) {
      const { mac: _m, ...rest } = JSON.parse(l);
      if (rest.source !== SOURCE || rest.kind === "key_anchor") continue;
      const line = JSON.stringify({ ...rest, seq: unkeyed.length + 1, prev_hash: prev === "" ? "" : sha(prev) });
      unkeyed.push(line);
      prev = line;
    }
    const foreign = chainedLines(prev, [await forgedSurface(harnessDir, draft, help)]);
    await writeFile(harnessPaths(harnessDir).audit, `${[...unkeyed, ...foreign].join("\n")}\n`, { mode: 0o600 });
    await rm(harnessPaths(harnessDir).auditKey);
    await rm(harnessPaths(harnessDir).auditIndex, { force: true });
    const before = await verify(cwd, harnessDir);
    expect(before.code, before.stdout).toBe(0);
    expect(before.stdout).toContain(
      `${SOURCE}: ${unkeyed.length + 1} lines, chain intact (${unkeyed.length + 1} from before the audit key: history the key cannot prove; ` +
        "none of them made a decision surface or ended a halt)",
    );
    const daemon = await live.start({ UNDO_WINDOW: "0" }, { dirs: { cwd, harnessDir } });
    await thumbsOnHelpRefused(live, daemon, harnessDir, help, draft);
    await daemon.stop("SIGTERM");
    // After the first start with the key, the foreign line is history before the anchor, said as such.
    const after = await verify(cwd, harnessDir);
    expect(after.code, after.stdout).toBe(0);
    expect(after.stdout).toContain(
      `(${unkeyed.length + 1} from before the audit key, before the key anchor at line ${unkeyed.length + 2}: history the key cannot prove; ` +
        "none of them made a decision surface or ended a halt)",
    );
  }, 60_000);

  it("B4: another daemon's key refuses the start: exit 78, the key file named, what to do", async ({ live }) => {
    const { cwd, harnessDir } = await helpAnswered(live);
    const key = harnessPaths(harnessDir).auditKey;
    await writeFile(key, `${randomBytes(32).toString("hex")}\n`, { mode: 0o600 });
    await rm(harnessPaths(harnessDir).haltRecord, { force: true });
    const v = await verify(cwd, harnessDir);
    expect(v.code, v.stdout).toBe(1);
    expect(v.stdout).toContain(
      `${key} proves none of the log's lines (line 1 and every other line with a proof was written with another key): it is not the key ` +
        "this log was written with, and the daemon refuses to start with it (exit 78). Put back the audit_key that came with this HARNESS_DIR " +
        "(from a backup), or move the log aside to start a new one with this key.",
    );
    expect(v.stdout).toMatch(/\n {2}\d+ line\(s\) claim our sources with a proof this key does not verify\n/);
    const refused = await live.start({}, { dirs: { cwd, harnessDir }, waitUntilRunning: false });
    expect(await refused.exited).toBe(78);
    const stderr = refused.rawStderr();
    expect(stderr).toContain("draft-review: cannot start.");
    expect(stderr).toContain(`${key}: it proves none of`);
    expect(stderr).toContain("Put back the audit_key that came with this HARNESS_DIR");
    expect(stderr).not.toMatch(/\n\s+at /);
    // Nothing was written with the wrong key: no second anchor.
    expect((await auditLines(harnessDir)).filter((l) => l.kind === "key_anchor")).toHaveLength(1);
  }, 60_000);

  it("D10: swarm.jsonl cut back to its anchor line: the start says the log lost lines its own checkpoint saw", async ({ live }) => {
    const { cwd, harnessDir } = await helpAnswered(live);
    const lines = await raw(harnessDir);
    const anchor = lines.findIndex((l) => JSON.parse(l).kind === "key_anchor");
    await writeFile(harnessPaths(harnessDir).audit, `${lines.slice(0, anchor + 1).join("\n")}\n`, { mode: 0o600 });
    const daemon = await live.start({}, { dirs: { cwd, harnessDir } });
    const warned = await daemon.waitForLog((l) => typeof l.msg === "string" && l.msg.includes("was cut back"));
    expect(warned.msg).toMatch(/restore swarm\.jsonl from a backup/);
  }, 60_000);
});
