/**
 * Whether dist/ is newer than everything it is built from (src/, the build's
 * configs, the bundler script, the installed packages' lock). `npm start`
 * (scripts/start.mjs) and the test run's build step (test/support/build-once.ts)
 * build only when it is not: `npm ci` builds already (prepare), so an
 * installed, unchanged checkout costs a few milliseconds of stat() instead of
 * tsc's incremental check and a new bundle (3-4 s per run on 2 cores).
 */
import { readdirSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");

/** What a build writes last (the bundle), and what it reads. */
const OUTPUTS = ["dist/main.js", "dist/cli/main.js"].map((p) => join(ROOT, p));
const INPUTS = ["src", "tsconfig.json", "tsconfig.build.json", "scripts/bundle.mjs", "package-lock.json"].map((p) => join(ROOT, p));

/** The newest modification time under `path` (a file or a directory, whose own time changes when an entry is added or removed), 0 when missing. */
function newest(path) {
  let st;
  try {
    st = statSync(path);
  } catch {
    return 0;
  }
  if (!st.isDirectory()) return st.mtimeMs;
  let max = st.mtimeMs;
  for (const name of readdirSync(path)) max = Math.max(max, newest(join(path, name)));
  return max;
}

/** The oldest output's modification time, 0 when one is missing. */
function oldestOutput() {
  let min = Number.POSITIVE_INFINITY;
  for (const out of OUTPUTS) {
    try {
      min = Math.min(min, statSync(out).mtimeMs);
    } catch {
      return 0;
    }
  }
  return min;
}

/** Why dist/ must be built ("dist/ is missing", "sources changed since the last build"), or null when it is up to date. */
export function distStaleBecause() {
  const built = oldestOutput();
  if (built === 0) return "dist/ is missing";
  return INPUTS.some((input) => newest(input) > built) ? "sources changed since the last build" : null;
}
