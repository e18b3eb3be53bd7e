import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";
import SlowestFirst from "./test/support/slow-first.js";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Builds dist/ once per run: the CLI, setup and daemon tests run the compiled code.
    globalSetup: ["test/support/build-once.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: "forks",
    // Vitest's default (one core less) is a single worker on a 2-core machine; most test files
    // wait on child processes and sockets, so two run side by side without starving each other.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    // The longest files first, so that none is left to run alone at the end.
    sequence: { sequencer: SlowestFirst },
  },
});
