/**
 * Vitest globalSetup: builds dist/ once per run, before any test file, when
 * it is older than what it is built from (scripts/dist-fresh.mjs, the check
 * `npm start` makes). The CLI, setup and daemon tests run the compiled code as
 * real processes, so a plain `npx vitest run` must never test a stale build.
 * It is `npm run build`: tsc, incremental (tsconfig.build.json), then the
 * bundle (scripts/bundle.mjs). Skipped when nothing changed: `npm test` runs
 * vitest twice (the second time at another date) on what `npm ci` built, and
 * the check costs milliseconds where tsc's own and a new bundle took 3-4 s.
 */
import { spawnSync } from "node:child_process";
import { join, resolve } from "node:path";
import { distStaleBecause } from "../../scripts/dist-fresh.mjs";

const ROOT = resolve(import.meta.dirname, "../..");

export default function buildOnce(): void {
  if (distStaleBecause() === null) return;
  const tsc = spawnSync(process.execPath, [join(ROOT, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.build.json"], {
    cwd: ROOT,
    encoding: "utf8",
  });
  if (tsc.status !== 0) throw new Error(`the build failed (tsc -p tsconfig.build.json), so no test can run:\n${tsc.stdout}${tsc.stderr}`);
  const bundle = spawnSync(process.execPath, [join(ROOT, "scripts/bundle.mjs")], { cwd: ROOT, encoding: "utf8" });
  if (bundle.status !== 0)
    throw new Error(`the bundle failed (node scripts/bundle.mjs), so no test can run:\n${bundle.stdout}${bundle.stderr}`);
}
