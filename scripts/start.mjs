/**
 * `npm start`: builds only when dist/ is missing or older than what it is
 * built from (src/, the build's configs, the bundler script, the installed
 * packages' lock), then runs the daemon (dist/main.js) in this same process.
 * `npm ci` builds already (prepare), so a start on an installed checkout costs
 * a few milliseconds of stat() here, not a 10 s tsc + esbuild run, and no
 * second Node start. The build's own output goes to stderr (scripts/build-dist.mjs):
 * in test mode stdout carries only the answers.
 */
import { readdirSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { buildDist } from "./build-dist.mjs";

// Paths are the project's, whatever the working directory (.env and HARNESS_DIR stay relative to it).
const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");

const OUTPUTS = ["dist/main.js", "dist/cli/main.js"].map((p) => join(ROOT, p));
const INPUTS = ["src", "tsconfig.json", "tsconfig.build.json", "scripts/bundle.mjs", "package-lock.json"].map((p) => join(ROOT, p));

/** The newest modification time under `path` (a file or a directory), 0 when it is missing. */
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

const built = oldestOutput();
const stale = built === 0 || INPUTS.some((input) => newest(input) > built);
if (stale) {
  const status = buildDist(built === 0 ? "dist/ is missing" : "sources changed since the last build");
  if (status !== 0) process.exit(status);
}
await import(new URL("../dist/main.js", import.meta.url).href);
