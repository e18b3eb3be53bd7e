/**
 * Issue 28 point 2: the archive is never silently short. A month file that
 * lost drafts the catalog files there (deleted, emptied, truncated at a line
 * boundary, replaced by an older copy) is found at start by its size alone
 * (logged, /healthz warns), and the daemon keeps serving: an id filed there
 * answers 503 naming the file (never 404), its idempotency key is refused
 * (503, never a new draft and a new review post), `draft-review get` names
 * it too, running or not. A catalog older than its month files is rebuilt.
 * Archives are built in-process (simulated clock), then read by the real
 * daemon against the Bot API double and by the real CLI.
 */
import { cp, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { archiveMonthOf } from "../../src/desk/archiving.js";
import { monthFileName } from "../../src/store/archive.js";
import { freePort, runBin } from "../support/cli-process.js";
import { freshDirs, TEST_API_TOKEN, type DaemonProcess } from "../support/daemon-process.js";
import { openTestCore, submitRevised, type TestCore } from "../support/core.js";
import { OWNER, payload, useLiveDaemon } from "../support/live-fixture.js";
import { cleanup, lineStarts, tempDir } from "./support/hostile-kit.js";

const HOUR = 3_600_000;
const live = useLiveDaemon({ scope: "file" });

/** A HARNESS_DIR with two archiving passes into one month: [a, b] first, then [c]; and copies of the files after the first. */
let built: { dir: string; ids: string[]; keys: string[]; month: string; firstMonthFile: Buffer; firstCatalog: Buffer };

/** A final (revised) draft submitted with an idempotency key. */
const revisedWithKey = (t: TestCore, text: string, key: string) => submitRevised(t, text, "no", { idempotency_key: key });

beforeAll(async () => {
  const dir = join(await tempDir("archive-lost-"), ".harness");
  const t = await openTestCore(dir, { env: { DRAFT_RETENTION: "1h" }, live: true });
  const keys = ["key-a", "key-b", "key-c"];
  const a = await revisedWithKey(t, "Archived A", keys[0]!);
  const b = await revisedWithKey(t, "Archived B", keys[1]!);
  const month = archiveMonthOf(t.core.desk.get(a)!);
  await t.clock.advance(2 * HOUR);
  expect(await t.core.desk.archiveOld()).toBe(2);
  const firstMonthFile = await readFile(join(dir, "archive", monthFileName(month)));
  const firstCatalog = await readFile(join(dir, "archive", "catalog.bin"));
  const c = await revisedWithKey(t, "Archived C", keys[2]!);
  await t.clock.advance(2 * HOUR);
  expect(await t.core.desk.archiveOld()).toBe(1);
  expect(archiveMonthOf({ updated_at: new Date(t.clock.now()).toISOString() } as never)).toBe(month);
  await t.close();
  built = { dir, ids: [a, b, c], keys, month, firstMonthFile, firstCatalog };
});

afterAll(cleanup);

/** A copy of the built HARNESS_DIR whose month file (or catalog) is damaged by `damage`. */
async function damagedCopy(damage: (paths: { monthPath: string; catalogPath: string }) => Promise<void>) {
  const d = await freshDirs();
  await cp(built.dir, d.harnessDir, { recursive: true });
  const monthPath = join(d.harnessDir, "archive", monthFileName(built.month));
  const catalogPath = join(d.harnessDir, "archive", "catalog.bin");
  await damage({ monthPath, catalogPath });
  return { ...d, monthPath, catalogPath };
}

/** What a lost draft answers through the running daemon: 503 naming the file, its key refused with no new post. */
async function expectLost(daemon: DaemonProcess, i: number, monthPath: string, problem: RegExp): Promise<void> {
  const got = await daemon.request("GET", `/drafts/${built.ids[i]}`);
  expect(got.status, JSON.stringify(got.body)).toBe(503);
  expect(got.body.error).toContain(`draft ${built.ids[i]} is archived in ${monthPath}, but that file`);
  expect(got.body.error).toMatch(problem);
  expect(got.body.error).toContain("Restore the file from a backup");
  const posts = live.double.messages(OWNER).length;
  const again = await daemon.request("POST", "/drafts", payload("Another text with an archived key", { idempotency_key: built.keys[i] }));
  expect(again.status, JSON.stringify(again.body)).toBe(503);
  expect(again.body.error).toContain("the draft was not accepted: it may repeat an archived draft that cannot be read.");
  expect(again.body.error).toContain(monthPath);
  expect(live.double.messages(OWNER).length).toBe(posts);
  expect((await daemon.request("GET", "/drafts")).body.drafts).toEqual([]);
}

async function startOn(d: { cwd: string; harnessDir: string }): Promise<DaemonProcess> {
  return live.start({}, { dirs: d });
}

describe("an archive month file that lost drafts", () => {
  it("deleted: ids answer 503 naming it (not 404), keys are refused (not 201), /healthz warns, the start logs it, the CLI names it", async () => {
    const d = await damagedCopy(({ monthPath }) => rm(monthPath));
    const daemon = await startOn(d);
    const logged = daemon.logs.find((l) => l.msg === "an archive month file lost drafts the catalog files there");
    expect(String(logged?.problem)).toContain(`${d.monthPath}: it is missing`);
    for (const i of [0, 1, 2]) await expectLost(daemon, i, d.monthPath, /that file is missing/);
    const health = (await fetch(`${daemon.apiUrl}/healthz`).then((r) => r.json())) as { ok: boolean; warnings?: string[] };
    expect(health.ok).toBe(true);
    expect(health.warnings).toEqual([
      expect.stringContaining(`${d.monthPath}: it is missing, while archive/catalog.bin files drafts there`),
    ]);
    const status = (await daemon.request("GET", "/status")).body;
    expect(status.warnings).toEqual(health.warnings);
    // The CLI through the daemon, then on its own.
    const env = { HARNESS_DIR: d.harnessDir, DRAFT_API_TOKEN: TEST_API_TOKEN };
    const via = await runBin(["get", built.ids[0]!], { cwd: d.cwd, env: { ...env, DRAFT_API_PORT: new URL(daemon.apiUrl).port } });
    expect(via.code).toBe(1);
    expect(via.stderr).toContain(`${d.monthPath}, but that file is missing`);
    expect(await daemon.stop("SIGTERM")).toBe(0);
    const offline = await runBin(["get", built.ids[0]!], { cwd: d.cwd, env: { ...env, DRAFT_API_PORT: String(await freePort()) } });
    expect(offline.code).toBe(1);
    expect(offline.stderr).toContain(`${d.monthPath}, but that file is missing`);
  });

  it("emptied: the same, 'is empty'", async () => {
    const d = await damagedCopy(({ monthPath }) => writeFile(monthPath, ""));
    const daemon = await startOn(d);
    for (const i of [0, 2]) await expectLost(daemon, i, d.monthPath, /that file is empty/);
  });

  it("replaced by an older copy: the drafts it still holds are found, the one it lost answers 503", async () => {
    const d = await damagedCopy(({ monthPath }) => writeFile(monthPath, built.firstMonthFile));
    const daemon = await startOn(d);
    for (const i of [0, 1]) expect((await daemon.request("GET", `/drafts/${built.ids[i]}`)).body).toMatchObject({ status: "revise" });
    expect((await daemon.request("POST", "/drafts", payload("Other", { idempotency_key: built.keys[0] }))).status).toBe(409);
    await expectLost(
      daemon,
      2,
      d.monthPath,
      /that file is shorter than the archive wrote it \(\d+ of \d+ bytes\): truncated, or replaced by an older copy/,
    );
  });

  it("truncated at a line boundary: the same", async () => {
    const d = await damagedCopy(async ({ monthPath }) => {
      const file = await readFile(monthPath);
      await writeFile(monthPath, file.subarray(0, lineStarts(file)[1]!));
    });
    const daemon = await startOn(d);
    expect((await daemon.request("GET", `/drafts/${built.ids[0]}`)).status).toBe(200);
    await expectLost(daemon, 1, d.monthPath, /shorter than the archive wrote it/);
  });

  it("archiving does not write into it: the final drafts of that month stay in the store until it is restored", async () => {
    const d = await damagedCopy(({ monthPath }) => rm(monthPath));
    const t = await openTestCore(d.harnessDir, { env: { DRAFT_RETENTION: "1h" }, live: true });
    const later = await submitRevised(t, "Final after the loss");
    await t.clock.advance(2 * HOUR);
    expect(await t.core.desk.archiveOld()).toBe(0);
    expect(t.core.desk.get(later)?.status).toBe("revise");
    await expect(readFile(d.monthPath)).rejects.toThrow(/ENOENT/);
    // Restored from a backup: the lost drafts are found again, and the start's archiving pass files the waiting one.
    await t.close();
    await cp(join(built.dir, "archive", monthFileName(built.month)), d.monthPath);
    const back = await openTestCore(d.harnessDir, { env: { DRAFT_RETENTION: "1h" }, live: true, clock: t.clock });
    expect(back.core.desk.get(later)).toBeUndefined();
    expect(back.core.archive.problems()).toEqual([]);
    expect((await back.core.desk.find(built.ids[2]!))?.status).toBe("revise");
    expect((await back.core.desk.find(later))?.status).toBe("revise");
    await back.close();
  });
});

describe("the archive catalog", () => {
  it("replaced by an older copy: rebuilt from the month files at start; every archived id and key is found", async () => {
    const d = await damagedCopy(({ catalogPath }) => writeFile(catalogPath, built.firstCatalog));
    const daemon = await startOn(d);
    expect(daemon.logs.some((l) => l.msg === "the archive catalog is older than its month files; rebuilding it from them")).toBe(true);
    for (const i of [0, 1, 2]) expect((await daemon.request("GET", `/drafts/${built.ids[i]}`)).status).toBe(200);
    const again = await daemon.request("POST", "/drafts", payload("Other", { idempotency_key: built.keys[2] }));
    expect(again.status).toBe(409);
    const health = (await fetch(`${daemon.apiUrl}/healthz`).then((r) => r.json())) as { warnings?: string[] };
    expect(health.warnings).toBeUndefined();
  });

  it("garbled, empty or deleted: rebuilt from the month files; every archived id and key is found", async () => {
    for (const damage of [(p: string) => writeFile(p, "garbage\n"), (p: string) => writeFile(p, ""), (p: string) => rm(p)]) {
      const d = await damagedCopy(({ catalogPath }) => damage(catalogPath));
      const daemon = await startOn(d);
      expect(daemon.logs.some((l) => l.msg === "the archive catalog cannot be used; rebuilding it from the month files")).toBe(true);
      expect((await daemon.request("GET", `/drafts/${built.ids[2]}`)).status).toBe(200);
      expect((await daemon.request("POST", "/drafts", payload("Other", { idempotency_key: built.keys[1] }))).status).toBe(409);
      await daemon.stop("SIGTERM");
    }
  });
});
