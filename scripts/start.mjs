/**
 * `npm start`: builds only when dist/ is missing or older than what it is
 * built from (src/, the build's configs, the bundler script, the installed
 * packages' lock), then runs the daemon (dist/main.js) in this same process.
 * `npm ci` builds already (prepare), so a start on an installed checkout costs
 * a few milliseconds of stat() here, not a 10 s tsc + esbuild run, and no
 * second Node start. The build's own output goes to stderr (scripts/build-dist.mjs):
 * in test mode stdout carries only the answers.
 */
import { buildDist } from "./build-dist.mjs";
import { distStaleBecause } from "./dist-fresh.mjs";

const stale = distStaleBecause();
if (stale !== null) {
  const status = buildDist(stale);
  if (status !== 0) process.exit(status);
}
await import(new URL("../dist/main.js", import.meta.url).href);
