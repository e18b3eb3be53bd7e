/**
 * A kill in the middle of archiving, at the two points the crash sweep reaches
 * only by chance (its archiving lives fell back to a plain kill 10 times out of
 * 10 at the default seed: the pass at start rarely has a draft due then): after the month file (and the catalog) are durable and
 * before the store rewrite that forgets the drafts, and after the month file
 * but before the catalog. Each move step replaces a whole file atomically, so
 * the files a kill leaves are exactly "the new files up to that step, the old
 * ones after it": built here from the states before and after one real pass
 * (in-process), then started by the real daemon. The rule: nothing lost,
 * nothing filed twice, the next start finishes the move.
 */
import { cp, readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { harnessPaths } from "../../src/app/paths.js";
import type { TelegramDouble } from "../telegram-double/index.js";
import { freshDirs, type DaemonProcess } from "../support/daemon-process.js";
import { SimulatedClock } from "../../src/clock/simulated-clock.js";
import { openTestCore, submitPosted, submitRevised } from "../support/core.js";
import { utcMonth, wallClockNow } from "../support/drafts.js";
import { liveDaemon, liveDouble } from "../support/live-fixture.js";
import { cleanup, figures, tempDir } from "./support/hostile-kit.js";
import { readStore } from "./support/sweep-files.js";

const HOUR = 3_600_000;
const ENV = { DRAFT_RETENTION: "1h" };
/**
 * The in-process passes run five hours in the past, so that for the real daemon (on the real clock)
 * the moved drafts are past DRAFT_RETENTION and the pending one is not yet expired, on any day.
 */
const START = wallClockNow() - 5 * HOUR;
/** The month file the moved drafts (final at START + 2 h) are filed in. */
const MONTH_FILE = `archive/telegram_drafts-${utcMonth(START + 2 * HOUR)}.jsonl`;
const CATALOG = "archive/catalog.bin";

let double: TelegramDouble;
const daemons: DaemonProcess[] = [];
/** HARNESS_DIR before and after one archiving pass, the drafts it moved, one archived earlier, one pending. */
let states: { before: string; after: string; moved: string[]; early: string; kept: string };

beforeAll(async () => {
  double = await liveDouble();
  const root = await tempDir("archive-kill-");
  const before = join(root, "before", ".harness");
  const after = join(root, "after", ".harness");
  // An earlier pass, so the month file and the catalog exist before the pass under test replaces them.
  // Live drafts: the real daemon below leaves test mode's alone.
  let t = await openTestCore(before, { env: ENV, clock: new SimulatedClock(START), live: true });
  const early = await submitRevised(t, "Archived in an earlier pass");
  await t.clock.advance(2 * HOUR);
  expect(await t.core.desk.archiveOld()).toBe(1);
  const moved = [await submitRevised(t, "Moved first"), await submitRevised(t, "Moved second"), await submitRevised(t, "Moved third")];
  const kept = (await submitPosted(t, "Still pending")).draft_id;
  await t.close();
  await cp(before, after, { recursive: true });
  // The pass under test: a start two hours later archives the three.
  t = await openTestCore(after, { env: ENV, clock: new SimulatedClock(START + 4 * HOUR), live: true });
  for (const id of moved) expect(t.core.store.latest.has(id)).toBe(false);
  await t.close();
  states = { before, after, moved, early, kept };
});

afterAll(async () => {
  for (const d of daemons) await d.stop("SIGKILL");
  await double.stop();
  await cleanup();
});

/** What a kill leaves: the files named as the pass made them, the rest as they were before it. */
async function crashState(fromAfter: readonly string[]): Promise<{ cwd: string; harnessDir: string }> {
  const d = await freshDirs();
  await cp(states.before, d.harnessDir, { recursive: true });
  for (const rel of fromAfter) {
    await rm(join(d.harnessDir, rel), { force: true });
    await cp(join(states.after, rel), join(d.harnessDir, rel));
  }
  return d;
}

const CASES = [
  { name: "after the month file and the catalog, before the store rewrite", fromAfter: [MONTH_FILE, CATALOG] },
  { name: "after the month file, before the catalog", fromAfter: [MONTH_FILE] },
];

describe("a kill during archiving (the files it leaves, started by the real daemon)", () => {
  it.each(CASES)("$name: nothing lost, nothing filed twice, the next start finishes the move", async (c) => {
    const t0 = performance.now();
    const d = await crashState(c.fromAfter);
    // The crash state: the drafts are in the store and in the month file.
    const left = await readStore(d.harnessDir);
    for (const id of states.moved) expect(left.drafts.get(id)?.status).toBe("revise");
    expect((await readFile(join(d.harnessDir, MONTH_FILE), "utf8")).includes(states.moved[0]!)).toBe(true);

    const daemon = await liveDaemon(double, ENV, d);
    daemons.push(daemon);
    await daemon.waitForLog((l) => l.msg === "archived final drafts older than DRAFT_RETENTION");
    for (const id of [...states.moved, states.early]) expect((await daemon.request("GET", `/drafts/${id}`)).body.status).toBe("revise");
    expect((await daemon.request("GET", `/drafts/${states.kept}`)).body.status).toBe("pending");
    const listed = ((await daemon.request("GET", "/drafts")).body.drafts as Array<{ draft_id: string }>).map((x) => x.draft_id);
    expect(listed).toEqual([states.kept]);
    expect(await daemon.stop("SIGTERM")).toBe(0);

    // Each draft once in archive/ (readStore throws on a draft filed twice), none left in the store.
    const end = await readStore(d.harnessDir);
    for (const id of [...states.moved, states.early]) expect(end.drafts.get(id)?.status).toBe("revise");
    const store = await readFile(harnessPaths(d.harnessDir).drafts, "utf8");
    for (const id of states.moved) expect(store.includes(id)).toBe(false);
    figures("archive-kill", {
      state: c.name,
      drafts_moved: states.moved.length,
      seconds: Number(((performance.now() - t0) / 1000).toFixed(1)),
    });
  });
});
