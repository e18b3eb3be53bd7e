#!/usr/bin/env node
// The `draft-review` command: a shim that runs the compiled CLI (src/cli/main.ts).
import { existsSync } from "node:fs";

const main = new URL("../dist/cli/main.js", import.meta.url);
if (!existsSync(main)) {
  process.stderr.write("draft-review: the CLI is not built yet: run `npm ci` (or `npm run build`) first\n");
  process.exit(1);
}
try {
  const { runCli } = await import(main.href);
  process.exitCode = await runCli(process.argv.slice(2));
} catch (err) {
  process.stderr.write(`draft-review: could not run the CLI: ${err?.stack ?? err}\nRun \`npm ci\` (or \`npm run build\`) and try again.\n`);
  process.exitCode = 1;
}
