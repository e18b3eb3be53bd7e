/**
 * `npm start`: builds only when dist/ is missing or older than what it is
 * built from (src/, the build's configs, the bundler script, the installed
 * packages' lock), then runs the daemon (dist/main.js) in this same process.
 * `npm ci` builds already (prepare), so a start on an installed checkout costs
 * a few milliseconds of stat() here, not a 10 s tsc + esbuild run, and no
 * second Node start. The build's own output goes to stderr: in test mode
 * stdout carries only the answers.
 */
import { spawnSync } from "node:child_process";
import { readdirSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

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
  process.stderr.write(built === 0 ? "draft-review: building (dist/ is missing)...\n" : "draft-review: sources changed since the last build; building...\n");
  const npm = process.env.npm_execpath;
  const how = { cwd: ROOT, stdio: ["ignore", 2, 2] };
  const result = npm
    ? spawnSync(process.execPath, [npm, "run", "--silent", "build"], how)
    : spawnSync("npm", ["run", "--silent", "build"], { ...how, shell: process.platform === "win32" });
  if (result.status !== 0) {
    process.stderr.write("draft-review: the build failed; see above. Fix it, or run `npm ci` again.\n");
    process.exit(result.status ?? 1);
  }
}
await import(new URL("../dist/main.js", import.meta.url).href);
