/**
 * A damaged archive month file (archive/telegram_drafts-YYYY-MM.jsonl): a torn
 * last line, a flipped bit in a middle line, and either with the catalog gone.
 * What the owner expects: nothing lost, nothing dropped silently, and an error
 * that names the file and the line. So: a draft in a good line is still found;
 * a draft that may be in the damaged line gets an error naming file and line
 * (GET /drafts/<id> 503, `draft-review get` exit 1, daemon running or not),
 * never a 404; the daemon starts and runs; archiving more drafts into that
 * month keeps the damaged bytes as they are; a catalog rebuilt from a damaged
 * file still points at it. Archives are built in-process (simulated clock),
 * then read by the real daemon and the real CLI.
 */
import { cp, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { archiveMonthOf } from "../../src/desk/archiving.js";
import { monthFileName } from "../../src/store/archive.js";
import type { TelegramDouble } from "../telegram-double/index.js";
import { freshDirs, type DaemonProcess } from "../support/daemon-process.js";
import { freePort, runBin } from "../support/cli-process.js";
import { openTestCore, submitRevised } from "../support/core.js";
import { liveDaemon, liveDouble } from "../support/live-fixture.js";
import { cleanup, figures, flipBit, lineStarts, tempDir } from "./support/hostile-kit.js";

const HOUR = 3_600_000;

let double: TelegramDouble;
const daemons: DaemonProcess[] = [];
/** A HARNESS_DIR whose archive month file holds three revised drafts. */
let built: { dir: string; ids: string[]; month: string };
const seconds: Record<string, number> = {};

beforeAll(async () => {
  double = await liveDouble();
  const dir = join(await tempDir("damaged-archive-"), ".harness");
  const t = await openTestCore(dir, { env: { DRAFT_RETENTION: "1h" } });
  const ids = [
    await submitRevised(t, "Archived first"),
    await submitRevised(t, "Archived second"),
    await submitRevised(t, "Archived third"),
  ];
  const month = archiveMonthOf(t.core.desk.get(ids[0]!)!);
  await t.clock.advance(2 * HOUR);
  expect(await t.core.desk.archiveOld()).toBe(3);
  await t.close();
  built = { dir, ids, month };
});

afterAll(async () => {
  for (const d of daemons) await d.stop("SIGKILL");
  await double.stop();
  await cleanup();
});

/** A copy of the built HARNESS_DIR (in a fresh cwd) whose month file is replaced by `damage(bytes)`. */
async function damaged(damage: (file: Buffer) => Buffer, opts: { dropCatalog?: boolean } = {}) {
  const d = await freshDirs();
  await cp(built.dir, d.harnessDir, { recursive: true });
  const monthPath = join(d.harnessDir, "archive", monthFileName(built.month));
  const good = await readFile(monthPath);
  await writeFile(monthPath, damage(good));
  if (opts.dropCatalog) await rm(join(d.harnessDir, "archive", "catalog.bin"));
  return { ...d, monthPath, good };
}

const tornLast = (file: Buffer) => file.subarray(0, lineStarts(file).at(-2)! + 40);
const flippedMiddle = (file: Buffer) => flipBit(file, lineStarts(file)[1]! + 60, 3);

interface Expectation {
  readonly found: readonly number[];
  readonly damagedIndex: number;
  readonly line: number;
  readonly problem: RegExp;
}

/** The daemon starts; good lines are found; the damaged one is an error naming file and line; the CLI says the same. */
async function checkReads(d: Awaited<ReturnType<typeof damaged>>, e: Expectation): Promise<DaemonProcess> {
  const daemon = await liveDaemon(double, {}, d);
  daemons.push(daemon);
  for (const i of e.found) expect((await daemon.request("GET", `/drafts/${built.ids[i]}`)).body).toMatchObject({ status: "revise" });
  const bad = await daemon.request("GET", `/drafts/${built.ids[e.damagedIndex]}`);
  expect(bad.status).toBe(503);
  expect(bad.body.error).toContain(`${d.monthPath} line ${e.line}`);
  expect(bad.body.error).toMatch(e.problem);
  expect(bad.body.error).toMatch(/restore the file from a backup/);
  // The CLI, through the running daemon, then reading the files itself.
  const env = { HARNESS_DIR: d.harnessDir, DRAFT_API_TOKEN: "test-api-token-0123456789abcdef" };
  const port = new URL(daemon.apiUrl).port;
  const viaDaemon = await runBin(["get", built.ids[e.damagedIndex]!], { cwd: d.cwd, env: { ...env, DRAFT_API_PORT: port } });
  expect(viaDaemon.code).toBe(1);
  expect(viaDaemon.stdout + viaDaemon.stderr).toContain(`line ${e.line}`);
  expect(await daemon.stop("SIGTERM")).toBe(0);
  const offline = { ...env, DRAFT_API_PORT: String(await freePort()) };
  const read = await runBin(["get", built.ids[e.damagedIndex]!], { cwd: d.cwd, env: offline });
  expect(read.code).toBe(1);
  expect(read.stderr).toContain(`${d.monthPath} line ${e.line}`);
  const good = await runBin(["get", built.ids[e.found[0]!]!, "--json"], { cwd: d.cwd, env: offline });
  expect(good.code).toBe(0);
  return daemon;
}

describe("a damaged archive month file", () => {
  it("a torn last line: good lines found, the torn one named (API and CLI), never a 404", async () => {
    const t0 = performance.now();
    const d = await damaged(tornLast);
    await checkReads(d, { found: [0, 1], damagedIndex: 2, line: 3, problem: /torn last line/ });
    seconds.torn = (performance.now() - t0) / 1000;
  });

  it("a flipped bit in a middle line: the others found, that one named by its line", async () => {
    const t0 = performance.now();
    const d = await damaged(flippedMiddle);
    await checkReads(d, { found: [0, 2], damagedIndex: 1, line: 2, problem: /checksum mismatch/ });
    seconds.flipped = (performance.now() - t0) / 1000;
  });

  it("with the catalog gone too: the daemon rebuilds it, says which line is damaged, and still names it on lookup", async () => {
    const t0 = performance.now();
    const d = await damaged(flippedMiddle, { dropCatalog: true });
    const daemon = await checkReads(d, { found: [0, 2], damagedIndex: 1, line: 2, problem: /checksum mismatch/ });
    const warned = daemon.logs.find((l) => String(l.msg).startsWith("an archive month file has damaged lines"));
    expect(String(warned?.problem)).toContain(`${d.monthPath} line 2`);
    seconds.catalog = (performance.now() - t0) / 1000;
  });

  // A file shorter than written (a torn last line) is not written into at all: see archive-month-lost.test.ts.
  it("archiving more drafts into that month keeps the damaged bytes as they are", async () => {
    const d = await damaged(flippedMiddle);
    const before = await readFile(d.monthPath);
    const t = await openTestCore(d.harnessDir, { env: { DRAFT_RETENTION: "1h" } });
    const later = await submitRevised(t, "Archived after the damage");
    await t.clock.advance(2 * HOUR);
    expect(await t.core.desk.archiveOld()).toBe(1);
    const after = await readFile(d.monthPath);
    expect(after.subarray(0, before.length)).toEqual(before);
    expect(before.at(-1)).toBe(0x0a);
    expect(after[before.length]).toBe(0x7b);
    expect((await t.core.desk.find(later))?.draft_text).toBe("Archived after the damage");
    expect((await t.core.desk.find(built.ids[0]!))?.status).toBe("revise");
    await expect(t.core.desk.find(built.ids[1]!)).rejects.toThrow(`${d.monthPath} line 2 (`);
    await t.close();
    figures("damaged-archive", {
      month_file_lines: 3,
      cases: 4,
      seconds: Object.fromEntries(Object.entries(seconds).map(([k, v]) => [k, Number(v.toFixed(1))])),
    });
  });
});
