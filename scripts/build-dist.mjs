/**
 * Builds dist/ (`npm run build`: tsc, then esbuild) and says so on stderr:
 * what it does and how long it took. `npm ci` runs it (prepare), so a
 * newcomer sees why the install waits; `npm start` runs it when dist/ is
 * missing or stale (scripts/start.mjs). Nothing goes to stdout: in test mode
 * stdout carries only the answers. The project's `.npmrc` keeps npm itself
 * silent (loglevel=silent), which is what keeps npm's banner off stdout.
 */
import { spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");

/** Runs the build with `why` said first; resolves with its exit status (0: built). */
export function buildDist(why) {
  process.stderr.write(`draft-review: ${why}; building dist/ (TypeScript, then esbuild: 10-30 s, longer on a busy machine)...\n`);
  const started = performance.now();
  const npm = process.env.npm_execpath;
  const how = { cwd: ROOT, stdio: ["ignore", 2, 2] };
  const result = npm
    ? spawnSync(process.execPath, [npm, "run", "--silent", "build"], how)
    : spawnSync("npm", ["run", "--silent", "build"], { ...how, shell: process.platform === "win32" });
  if (result.status !== 0) {
    process.stderr.write("draft-review: the build failed; see above. Fix it, or run `npm ci` again.\n");
    return result.status ?? 1;
  }
  process.stderr.write(`draft-review: dist/ built in ${Math.round((performance.now() - started) / 1000)} s.\n`);
  return 0;
}

// `node scripts/build-dist.mjs` (npm's prepare, after `npm ci` installed the packages).
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = buildDist("packages installed");
}
