import { availableParallelism } from "node:os";
import { configDefaults, defineConfig } from "vitest/config";
import SlowestFirst from "./test/support/slow-first.js";

/**
 * Folders whose tests run in-process and restore what they change: their files share a worker
 * process one after another (isolate: false) instead of a fresh process and a fresh import of src/
 * each, which was most of their time: these 87 files took 22.6 s instead of 38.6 s on 2 workers,
 * 22 s of CPU instead of 49 (`npx vitest run --project in-process`, and with `--isolate`). Files that
 * spawn the daemon or the CLI gain nothing (test/store, cli, report, test-mode, ...: 53 s either way)
 * and stay isolated, as does a folder whose tests mock a module (test/http: vi.mock) or set
 * process.env (test/clock: TZ).
 */
const SHARED_PROCESS = [
  "desk",
  "channels",
  "telegram",
  "drafts",
  "redact",
  "owner",
  "send",
  "audit",
  "business",
  "app",
  "serial",
  "retry",
  "log",
  "config",
  "callbacks",
].map((folder) => `test/${folder}/**/*.test.ts`);

/** What both projects share (a project that extends the root config would run its globalSetup again). */
const EACH = { testTimeout: 30_000, hookTimeout: 30_000, pool: "forks" } as const;

export default defineConfig({
  test: {
    // Builds dist/ once per run: the CLI, setup and daemon tests run the compiled code.
    globalSetup: ["test/support/build-once.ts"],
    ...EACH,
    // One worker more than there are cores. Most test files wait on child processes, sockets and
    // the real clock (undo windows, retry_after): two workers on 2 cores kept them busy 0.84 cores
    // on average (16 of the slowest files: 156 s, 131 s of CPU). Three ran the same files in 131 s,
    // four in 122 s, every test passing at load 8-10; three leaves room for a busy machine.
    maxWorkers: availableParallelism() + 1,
    // The longest files first, so that none is left to run alone at the end.
    sequence: { sequencer: SlowestFirst },
    projects: [
      { test: { ...EACH, name: "in-process", include: SHARED_PROCESS, isolate: false } },
      { test: { ...EACH, name: "isolated", include: ["test/**/*.test.ts"], exclude: [...configDefaults.exclude, ...SHARED_PROCESS] } },
    ],
  },
});
