/**
 * The update journal (updates.jsonl) and the shared audit log (swarm.jsonl)
 * damaged, through the real daemon (`node dist/main.js` against the Bot API
 * double) and, for the every-offset sweep, through UpdateJournal.open (what
 * the daemon calls at start). A torn journal tail is cut; a damaged journal
 * middle stops start-up naming the file and line; another writer's torn line
 * in the audit log never stops the daemon nor glues onto our next line.
 */
import { appendFile, cp, mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { harnessPaths } from "../../src/app/paths.js";
import { verifyAuditChain } from "../../src/audit/audit-log.js";
import { UpdateJournal } from "../../src/telegram/update-journal.js";
import { injectRawUpdate } from "../telegram-double/raw-updates.js";
import { eventually, freshDirs, type DaemonProcess } from "../support/daemon-process.js";
import { auditLines, OWNER, payload, STRANGER, useLiveDaemon } from "../support/live-fixture.js";
import { cleanup, figures, flipBit, lineStarts, memoryLogger, prng, sample, scaled, sweepDir } from "./support/hostile-kit.js";

const live = useLiveDaemon({ scope: "file" });
let dirs: { cwd: string; harnessDir: string };
let journal: Buffer;
let reviewMessageId: number;

function start(d = dirs, env: Record<string, string> = {}): Promise<DaemonProcess> {
  return live.start(env, { dirs: d });
}

/** Starts the daemon expecting it to refuse; resolves with its exit code and stderr. */
async function startRefused(d: { cwd: string; harnessDir: string }): Promise<{ code: number | null; stderr: string }> {
  const daemon = await live.start({}, { dirs: d, waitUntilRunning: false });
  const code = await daemon.exited;
  return { code, stderr: daemon.rawStderr() };
}

beforeAll(async () => {
  dirs = await freshDirs();
  const daemon = await start();
  const res = await daemon.request("POST", "/drafts", payload("Journal me"));
  expect(res.status).toBe(201);
  reviewMessageId = res.body.review_message_id;
  // Five updates in one batch: four reactions that decide nothing and a stranger's 👍.
  const injected = ["❤", "🔥", "🎉", "👀"].map((e) =>
    live.double.injectReaction({ chatId: OWNER, messageId: reviewMessageId, userId: OWNER, newEmojis: [e] }),
  );
  injected.push(live.double.injectReaction({ chatId: OWNER, messageId: reviewMessageId, userId: STRANGER, newEmojis: ["👍"] }));
  await eventually(async () => (await auditLines(dirs.harnessDir)).some((l) => l.kind === "decision_refused"), 10_000, "stranger refused");
  for (const u of injected) await daemon.waitForLog((l) => l.msg === "update handled" && l.update_id === u.update.update_id);
  await daemon.stop("SIGKILL");
  journal = await readFile(harnessPaths(dirs.harnessDir).updates);
  // Each update: one line when fetched, one when its handling finished; first, the note of when Telegram last answered.
  const lines = journal.toString("utf8").trimEnd().split("\n");
  expect(lines[0]).toMatch(/^\{"draft_id":"polled"/);
  expect(lines).toHaveLength(11);
});

afterAll(cleanup);

describe("damaged update journal", () => {
  it("UpdateJournal.open cuts the last line torn at every byte offset and keeps the updates before it", async () => {
    const starts = lineStarts(journal);
    const lastStart = starts.at(-2)!;
    const dir = await sweepDir();
    const path = join(dir, "updates.jsonl");
    const { log } = memoryLogger("silent");
    // What the lines before the last one say: the last update is in flight (its "handled" line is the one cut).
    await writeFile(path, journal.subarray(0, lastStart));
    const before = await UpdateJournal.open(path, log);
    const inFlight = before.entries().map((u) => u.update_id);
    await before.close();
    expect(inFlight).toHaveLength(1);
    let cases = 0;
    for (let cut = lastStart; cut < journal.length; cut++) {
      await writeFile(path, journal.subarray(0, cut));
      const j = await UpdateJournal.open(path, log);
      expect(j.entries().map((u) => u.update_id)).toEqual(inFlight);
      await j.close();
      expect((await readFile(path)).length).toBe(lastStart);
      cases++;
    }
    figures("damaged-journal torn-tail", { offsets: cases, recovered: cases });
  });

  it("the daemon starts on a torn or padded journal tail and handles what is left", async () => {
    const rand = prng(21);
    const starts = lineStarts(journal);
    const cuts = sample(starts.at(-2)! + 1, journal.length, scaled(2), rand);
    const tails = [...cuts.map((c) => journal.subarray(0, c)), Buffer.concat([journal, Buffer.alloc(100)])];
    const paths = harnessPaths(dirs.harnessDir);
    const store = await readFile(paths.drafts);
    let started = 0;
    for (const bytes of tails) {
      await writeFile(paths.updates, bytes);
      const daemon = await start();
      await daemon.waitForLog((l) => l.msg === "draft-review is running");
      expect(daemon.rawStderr()).toContain("cut off a torn or damaged end");
      expect(daemon.rawStderr()).toContain(paths.updates);
      expect((await daemon.request("GET", "/healthz")).status).toBe(200);
      await daemon.stop("SIGTERM");
      started++;
    }
    // The store never took damage from any of this.
    expect((await readFile(paths.drafts)).subarray(0, store.length).equals(store)).toBe(true);
    figures("damaged-journal process-tail", { cases: tails.length, started });
  });

  it("a flipped bit in a middle journal line stops start-up, naming file and line, and changes nothing", async () => {
    const rand = prng(22);
    const starts = lineStarts(journal);
    const offsets = sample(0, starts.at(-3)!, scaled(2), rand);
    const results: Array<{ code: number | null }> = [];
    for (const at of offsets) {
      const d = await freshDirs();
      const paths = harnessPaths(d.harnessDir);
      // A copy of the harness, so each case starts from the same files.
      await mkdir(d.harnessDir, { recursive: true });
      await cp(harnessPaths(dirs.harnessDir).drafts, paths.drafts);
      await cp(harnessPaths(dirs.harnessDir).audit, paths.audit);
      await cp(harnessPaths(dirs.harnessDir).auditKey, paths.auditKey);
      const damaged = flipBit(journal, at, Math.floor(rand() * 8));
      await writeFile(paths.updates, damaged);
      const store = await readFile(paths.drafts);
      const audit = await readFile(paths.audit);
      const line = starts.findLastIndex((s) => s <= at) + 1;
      const run = await startRefused(d);
      expect(run.code).not.toBe(0);
      expect(run.stderr).toContain(`${paths.updates} line ${line} is damaged`);
      expect(run.stderr).not.toContain("draft-review is running");
      expect(run.stderr).toContain("draft-review: cannot start.");
      expect((await readFile(paths.updates)).equals(damaged)).toBe(true);
      expect((await readFile(paths.drafts)).equals(store)).toBe(true);
      expect((await readFile(paths.audit)).equals(audit)).toBe(true);
      results.push({ code: run.code });
    }
    figures("damaged-journal middle-bitflip", {
      cases: offsets.length,
      refused: results.filter((r) => r.code !== 0).length,
      exit_codes: [...new Set(results.map((r) => r.code))],
    });
  });
});

describe("a journaled update whose handling fails", () => {
  it("does not stop the next start (no crash loop on a poison update)", async () => {
    const d = await freshDirs();
    const first = await start(d);
    const res = await first.request("POST", "/drafts", payload("Poisoned?"));
    // Malformed but JSON: a reaction update without its chat makes the handler throw.
    const poison = injectRawUpdate(
      live.double,
      { chatId: OWNER, userId: STRANGER },
      {
        message_reaction: {
          message_id: res.body.review_message_id,
          user: { id: STRANGER, is_bot: false, first_name: "S" },
          date: 1,
          old_reaction: [],
          new_reaction: [{ type: "emoji", emoji: "👍" }],
        },
      },
    );
    await first.waitForLog((l) => l.level === 50 && l.update_id === poison.update_id, 10_000);
    await first.stop("SIGKILL");
    expect(await readFile(harnessPaths(d.harnessDir).updates, "utf8")).toContain(`"update_id":${poison.update_id}`);
    // Before the fix, this start died on the replayed update ("stopped by an unexpected error"), and so would every later one.
    const second = await start(d);
    expect(second.rawStderr()).toContain("handling updates a stop left unhandled");
    expect(second.rawStderr()).toContain("an update could not be handled; it stays in the journal for the next start");
    expect((await second.request("GET", `/drafts/${res.body.draft_id}`)).body.status).toBe("pending");
    await second.stop("SIGTERM");
    figures("damaged-journal poison-update", { restarts: 1, started: 1 });
  });
});

describe("audit log: another writer's torn last line", () => {
  // Another writer's lines, dated now as a live writer's would be.
  const tornAtStart = `{"ts":"${new Date().toISOString()}","source":"other-agent","kind":"note","text":"cut sho`;
  const tornWhileRunning = `{"ts":"${new Date(Date.now() + 1000).toISOString()}","source":"other-agent","kind":"note","text":"cut aga`;

  it("does not stop the daemon, is left as it is, and never glues onto our next line (at start and while running)", async () => {
    const paths = harnessPaths(dirs.harnessDir);
    await appendFile(paths.audit, tornAtStart);
    const daemon = await start();
    expect(daemon.rawStderr()).toContain("the audit log ends with an incomplete line");
    const count = async () => (await readFile(paths.audit, "utf8")).split("\n").filter((l) => l.includes('"decision_refused"')).length;
    const before = await count();
    live.double.injectReaction({ chatId: OWNER, messageId: reviewMessageId, userId: STRANGER, newEmojis: ["👎"] });
    await eventually(async () => (await count()) === before + 1, 10_000, "refusal audited");
    // Another writer tears a line while the daemon runs.
    await appendFile(paths.audit, tornWhileRunning);
    live.double.injectReaction({ chatId: OWNER, messageId: reviewMessageId, userId: STRANGER, newEmojis: ["😴"] });
    await eventually(async () => (await count()) === before + 2, 10_000, "second refusal audited");
    expect((await daemon.request("GET", "/healthz")).status).toBe(200);

    const text = await readFile(paths.audit, "utf8");
    const lines = text.split("\n");
    // The other writer's bytes are untouched, each alone on its line.
    expect(lines).toContain(tornAtStart);
    expect(lines).toContain(tornWhileRunning);
    // Every line of ours parses and the chain holds.
    const ours = lines.filter((l) => l.includes('"source":"telegram-draft-for-review"'));
    for (const l of ours) expect(() => JSON.parse(l), l.slice(0, 120)).not.toThrow();
    const verdict = await verifyAuditChain(paths.audit);
    expect(verdict).toMatchObject({ ok: true });
    await daemon.stop("SIGTERM");
    figures("damaged-audit torn-other-writer", { torn_lines: 2, daemon_stopped: 0, our_lines: ours.length, chain_ok: verdict.ok });
  });
});
