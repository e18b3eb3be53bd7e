/**
 * The second half of `npm run build`: bundles what tsc compiled into `dist/lib/`
 * into the two programs that are run, `dist/main.js` (the daemon and test mode)
 * and `dist/cli/main.js` (the `draft-review` command), with the code they share
 * in `dist/chunks/`.
 *
 * Why: a process that loads ~170 small ES modules and the CommonJS packages
 * behind them spends most of its start-up resolving, reading and lexing files
 * (0.35 s of a 0.5 s start on this 2-core machine). One file per program halves
 * the start of every daemon restart and every CLI call; the test suite starts
 * some 400 of them. pino stays outside: its transport runs pino-pretty in a
 * worker thread that loads files by path. So does @resvg/resvg-js: it loads
 * its prebuilt native binary (.node) for the platform at run time.
 */
import { rmSync } from "node:fs";
import { build } from "esbuild";

// Chunk names carry a content hash: the old ones go, so dist/ holds one build.
rmSync("dist/chunks", { recursive: true, force: true });

await build({
  entryPoints: { main: "dist/lib/main.js", "cli/main": "dist/lib/cli/main.js" },
  outdir: "dist",
  chunkNames: "chunks/[name]-[hash]",
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  packages: "bundle",
  external: ["pino", "pino-pretty", "@resvg/resvg-js"],
  // The CommonJS packages inside (grammY, its runner, bottleneck, dotenv) call require() for Node's built-ins.
  banner: { js: 'import { createRequire as __bundleRequire } from "node:module"; const require = __bundleRequire(import.meta.url);' },
  // Stack traces point into src/ (tsc's maps are followed) when Node runs with --enable-source-maps.
  sourcemap: "linked",
  logLevel: "warning",
});
