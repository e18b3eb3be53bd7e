/**
 * Only the daemon's own records decide (contract v4; issue 26 points 2 and 4),
 * against the real daemon (`node dist/main.js`) and the Bot API double:
 * - a line another process appends to swarm.jsonl, claiming the daemon's
 *   source with a correct sha256 chain, gives no message a decision control,
 *   changes no draft, never stops the start (the warning names its line),
 *   and `draft-review audit verify` names it and exits 1;
 * - an audit key others can read is refused at start (78, the file named);
 * - a store cut back at a line boundary after an approval and a halt is
 *   restored from the audit log: no draft returns to `pending`;
 * - an owner's halt the audit log records voids an older approval after a
 *   restart even when halt_record.json is gone.
 */
import { appendFile, chmod, mkdir, readFile, rm, truncate, writeFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { harnessPaths } from "../../src/app/paths.js";
import { chainedLines, DAEMON_SOURCE, rawAuditLines } from "../support/audit-forgery.js";
import { runBin } from "../support/cli-process.js";
import { eventually, freshDirs, type DaemonProcess } from "../support/daemon-process.js";
import { auditLines, draftRecord, GROUP, OWNER, payload, submitPending, useLiveDaemon } from "../support/live-fixture.js";

const live = useLiveDaemon();
const SOURCE = DAEMON_SOURCE;
const rawLines = rawAuditLines;

/**
 * Appends lines that claim the daemon's source, each continuing the sha256 chain from the daemon's last
 * line (seq + 1, prev_hash its sha256), as another process that read the log could. Returns their line numbers.
 */
async function appendForged(harnessDir: string, entries: Array<Record<string, unknown>>): Promise<number[]> {
  const lines = await rawLines(harnessDir);
  const forged = chainedLines(lines.filter((l) => JSON.parse(l).source === SOURCE).at(-1)!, entries);
  const text = forged.map((line) => `${line}\n`).join("");
  // Another writer's own line after them: history, listed as such.
  await appendFile(harnessPaths(harnessDir).audit, `${text}{"ts":"${new Date().toISOString()}","source":"scribe","kind":"note"}\n`);
  return forged.map((_, i) => lines.length + i + 1);
}

/** The warning a start logs for a line that claims our source without proof. */
const foreignWarning = (d: DaemonProcess, line: number) =>
  d.waitForLog(
    (l) => typeof l.msg === "string" && l.msg.includes(`swarm.jsonl line ${line} (byte`) && l.msg.includes("without valid proof"),
  );

const toGroup = () => live.double.messages(GROUP);

describe("a line another process appends to swarm.jsonl decides nothing", () => {
  it("a forged surface line (our source, a correct sha256 chain) gives the /help answer no decision control: a 👍 on it is refused and answered", async () => {
    await live.start();
    const draft = await submitPending(live.daemon, payload("Never sent through a forged button"));
    let before = live.double.messages(OWNER).length;
    live.double.injectMessage({ chatId: OWNER, userId: OWNER, text: "/help" });
    const help = await live.reviewChatMessage(before, /^Commands \(reviewers only\)/, "the /help answer");
    const { cwd, harnessDir } = live.daemon;
    await live.daemon.stop("SIGTERM");

    // What the post's own surface line says, moved onto the /help answer and asking "ask" (the measured attack).
    const post = (await auditLines(harnessDir)).find((l) => l.kind === "surface" && l.message_id === draft.review_message_id)!;
    const { ts: _t, seq: _s, prev_hash: _p, mac: _m, source: _src, ...shown } = post;
    const [forgedLine] = await appendForged(harnessDir, [{ ...shown, message_id: help.messageId, asks: "ask", note: "ok" }]);

    const daemon = await live.start({}, { dirs: { cwd, harnessDir } });
    const warning = await foreignWarning(daemon, forgedLine!);
    expect(warning).toMatchObject({ line: forgedLine, source: SOURCE });
    before = live.double.messages(OWNER).length;
    const tap = live.double.injectReaction({ chatId: OWNER, messageId: help.messageId, userId: OWNER, newEmojis: ["👍"] });
    await eventually(
      async () => (await auditLines(harnessDir)).some((l) => l.kind === "decision_refused" && l.update_id === tap.update.update_id),
      10_000,
      "the 👍 refused",
    );
    // Answered in the chat, with the way to the live post.
    const answer = await live.reviewChatMessage(before, () => true, "an answer to the 👍");
    expect(answer.replyToMessageId).toBe(help.messageId);
    expect(await draftRecord(daemon, draft.draft_id)).toMatchObject({ status: "pending", version: draft.version });
    expect(toGroup()).toHaveLength(0);

    // `audit verify` names the line and lists the other writer's, exit 1.
    const verify = await runBin(["audit", "verify"], { cwd, env: { HARNESS_DIR: harnessDir } });
    expect(verify.code, verify.stdout).toBe(1);
    expect(verify.stdout).toMatch(new RegExp(`line ${forgedLine} \\(byte \\d+\\) claims ${SOURCE} without valid proof`));
    expect(verify.stdout).toContain(`another writer's lines (scribe): 1, at line ${forgedLine! + 1}`);
  }, 60_000);

  it("a forged transition (the draft approved, its whole record given) and a forged resume change nothing, and never stop the start", async () => {
    await live.start({ UNDO_WINDOW: "0" });
    const draft = await submitPending(live.daemon, payload("Stays pending whatever the log says"));
    const before = live.double.messages(OWNER).length;
    live.double.injectMessage({ chatId: OWNER, userId: OWNER, text: "/halt" });
    await live.reviewChatMessage(before, /^⛔ Sends halted/, "the /halt answer");
    const { cwd, harnessDir } = live.daemon;
    await live.daemon.stop("SIGKILL");

    const at = new Date().toISOString();
    const approved: Record<string, any> = { ...draft, version: draft.version + 1, status: "approved", updated_at: at, send_after: at };
    const { draft_text: text, ...record } = approved;
    const actor = { user_id: OWNER, channel: "reaction", emoji: "👍", update_id: 1 };
    const forged = await appendForged(harnessDir, [
      {
        kind: "transition",
        draft_id: draft.draft_id,
        version: approved.version,
        from: "pending",
        to: "approved",
        event: "decide",
        draft_text: text,
        drafted_by_role: draft.drafted_by_role,
        destination_chat_id: draft.destination_chat_id,
        destination_thread_id: null,
        review_message_id: draft.review_message_id,
        decision: "send",
        ...actor,
        reason: null,
        record: { ...record, approval: { actor, at, text_sha256: draft.text_sha256, text_version: 1, before: "pending" } },
      },
      { kind: "owner_resume", user_id: OWNER, channel: "command", changed: true },
    ]);
    // An unfinished line claiming our source, and one with a seq far ahead: never a reason to stop.
    await appendFile(
      harnessPaths(harnessDir).audit,
      `{"ts":"${at}","source":"${SOURCE}","seq":99999999,"prev_hash":"","kind":"notice"}\n{"source":"${SOURCE}","seq":`,
    );

    const daemon = await live.start({ UNDO_WINDOW: "0" }, { dirs: { cwd, harnessDir } });
    for (const line of forged) await foreignWarning(daemon, line);
    const rec = await draftRecord(daemon, draft.draft_id);
    expect(rec).toMatchObject({ status: "pending", version: draft.version, approval: null });
    expect(daemon.logs.some((l) => String(l.msg).includes("restored"))).toBe(false);
    // Nor is it in the feed the swarm reads.
    const feed = (await daemon.request("GET", "/events?after=0")).body as { events: Array<Record<string, unknown>> };
    expect(feed.events.filter((e) => e.draft_id === draft.draft_id).map((e) => e.to)).toEqual(["queued", "pending"]);
    // The owner's halt stands: HALT is the switch, and no forged line lifts it.
    live.double.injectReaction({ chatId: OWNER, messageId: draft.review_message_id, userId: OWNER, newEmojis: ["👍"] });
    const halted = await eventually(async () => {
      const r = await draftRecord(daemon, draft.draft_id);
      return r.status === "halted" || r.status === "sent" ? r : null;
    });
    expect(halted.status).toBe("halted");
    expect(toGroup()).toHaveLength(0);
  }, 60_000);

  it("a forged line with a `mac` in the log of a HARNESS_DIR that never had a key: the first start goes on, names the line, and the line decides nothing", async () => {
    const dirs = await freshDirs();
    await mkdir(dirs.harnessDir, { recursive: true, mode: 0o700 });
    // Written before the daemon ever ran: our source, the chain's first line, a proof-shaped tail (any 64 hex digits).
    const forged = JSON.stringify({
      ts: new Date().toISOString(),
      source: SOURCE,
      seq: 1,
      prev_hash: "",
      kind: "owner_halt",
      user_id: OWNER,
      channel: "command",
      changed: true,
      mac: "0f".repeat(32),
    });
    await writeFile(harnessPaths(dirs.harnessDir).audit, `${forged}\n`, { mode: 0o600 });
    const daemon = await live.start({ UNDO_WINDOW: "0" }, { dirs });
    expect(await foreignWarning(daemon, 1)).toMatchObject({
      line: 1,
      source: SOURCE,
      reason: "its proof does not verify (forged, or edited)",
    });
    // Not on our chain: the key anchor vouches for no line before it.
    const anchor = (await auditLines(dirs.harnessDir)).find((l) => l.kind === "key_anchor")!;
    expect(anchor).toMatchObject({ seq: 1, prev_hash: "" });
    expect(anchor.chains[0]).toMatchObject({ source: SOURCE, seq: 0 });
    // Its "halt" holds nothing back: a 👍 sends.
    const draft = await submitPending(daemon, payload("Sent whatever a forged halt says"));
    live.double.injectReaction({ chatId: OWNER, messageId: draft.review_message_id, userId: OWNER, newEmojis: ["👍"] });
    await eventually(() => toGroup().length === 1, 15_000, "the draft sent");
    expect(toGroup()[0]!.text).toBe("Sent whatever a forged halt says");
  }, 60_000);

  it("an audit key that others can read is refused at start: exit 78, the file named, no stack trace", async () => {
    await live.start();
    const { cwd, harnessDir } = live.daemon;
    await live.daemon.stop("SIGTERM");
    const key = harnessPaths(harnessDir).auditKey;
    await chmod(key, 0o644);
    const refused = await live.start({}, { dirs: { cwd, harnessDir }, waitUntilRunning: false });
    expect(await refused.exited).toBe(78);
    const stderr = refused.rawStderr();
    expect(stderr).toContain("draft-review: cannot start.");
    expect(stderr).toContain(`${key}: it can be read by other users (mode 0644)`);
    expect(stderr).toContain(`chmod 600 ${key}`);
    expect(stderr).not.toContain("unexpected error");
    expect(stderr).not.toMatch(/\n\s+at /);
  }, 60_000);
});

describe("lost state is never silent", () => {
  it("a store cut back at a line boundary after an approval and a halt is restored from the audit log: nothing returns to pending", async () => {
    const env = { UNDO_WINDOW: "1h" };
    await live.start(env);
    const a = await submitPending(live.daemon, payload("Approved, then the store is cut"));
    const b = await submitPending(live.daemon, payload("Halted, then the store is cut"));
    const storePath = harnessPaths(live.daemon.harnessDir).drafts;
    const cutAt = (await readFile(storePath)).length;
    let before = live.double.messages(OWNER).length;
    live.double.injectMessage({ chatId: OWNER, userId: OWNER, text: "/halt" });
    await live.reviewChatMessage(before, /^⛔ Sends halted/, "the /halt answer");
    // An approval while halted: halted at once (never pending again); the halt is then lifted (its 👍 comes back).
    live.double.injectReaction({ chatId: OWNER, messageId: b.review_message_id, userId: OWNER, newEmojis: ["👍"] });
    await eventually(async () => (await draftRecord(live.daemon, b.draft_id)).status === "halted", 10_000, "b halted");
    before = live.double.messages(OWNER).length;
    live.double.injectMessage({ chatId: OWNER, userId: OWNER, text: "/resume" });
    const ask = await live.reviewChatMessage(before, /^⚠️ Resume sends\?/, "the /resume question");
    const data = JSON.stringify(ask.replyMarkup).match(/owner:resume:[0-9a-f]+/)![0];
    live.double.injectCallback({ chatId: OWNER, messageId: ask.messageId, userId: OWNER, data });
    const halted = await eventually(async () => {
      const r = await draftRecord(live.daemon, b.draft_id);
      return r.halt_lasts === false ? r : null;
    });
    // An approval after the halt: it waits out its window (an hour).
    live.double.injectReaction({ chatId: OWNER, messageId: a.review_message_id, userId: OWNER, newEmojis: ["👍"] });
    const approved = await eventually(async () => {
      const r = await draftRecord(live.daemon, a.draft_id);
      return r.status === "approved" && r.undo_shown_at ? r : null;
    });
    const { cwd, harnessDir } = live.daemon;
    await live.daemon.stop("SIGTERM");

    // Both drafts' later lines are gone: the store says pending, pending.
    await truncate(storePath, cutAt);
    const daemon = await live.start(env, { dirs: { cwd, harnessDir } });
    const warning = await daemon.waitForLog((l) => String(l.msg).includes("lacked changes that the audit log holds"));
    expect(warning.drafts).toHaveLength(2);
    // Restored as approved with its approval; the start shows its Undo again and the window counts from then (never shorter).
    const restored = await draftRecord(daemon, a.draft_id);
    expect(restored).toMatchObject({ status: "approved", approval: approved.approval });
    expect(restored.version).toBeGreaterThanOrEqual(approved.version);
    expect(Date.parse(restored.send_after)).toBeGreaterThanOrEqual(Date.parse(approved.send_after));
    expect(await draftRecord(daemon, b.draft_id)).toMatchObject({
      status: halted.status,
      version: halted.version,
      approval: halted.approval,
    });
    expect(toGroup()).toHaveLength(0);
  }, 60_000);

  it("halt_record.json deleted after `draft-review halt` and `resume` while the daemon was down: the earlier approval is not sent", async () => {
    const env = { UNDO_WINDOW: "15s" };
    await live.start(env);
    const a = await submitPending(live.daemon, payload("Approved, then halted from the shell, record lost"));
    live.double.injectReaction({ chatId: OWNER, messageId: a.review_message_id, userId: OWNER, newEmojis: ["👍"] });
    const approved = await eventually(async () => {
      const r = await draftRecord(live.daemon, a.draft_id);
      return r.status === "approved" && r.send_after ? r : null;
    });
    const { cwd, harnessDir } = live.daemon;
    await live.daemon.stop("SIGKILL");
    for (const command of ["halt", "resume"]) {
      const run = await runBin([command], { cwd, env: { HARNESS_DIR: harnessDir } });
      expect(run.code, run.stderr).toBe(0);
    }
    await rm(harnessPaths(harnessDir).haltRecord);
    expect(Date.now()).toBeLessThan(Date.parse(approved.send_after));
    const daemon = await live.start(env, { dirs: { cwd, harnessDir } });
    const outcome = await eventually(
      async () => {
        const r = await draftRecord(daemon, a.draft_id);
        return r.status === "halted" || r.status === "sent" ? r : null;
      },
      30_000,
      "the approval's fate",
    );
    expect(outcome.status).toBe("halted");
    expect(outcome.reason).toMatch(/a halt began after the approval \(an owner's halt recorded in the audit log/);
    expect(toGroup()).toHaveLength(0);
  }, 60_000);
});
