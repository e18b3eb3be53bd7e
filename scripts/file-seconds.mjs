/**
 * Writes test/support/file-seconds.json, the table the test sequencer
 * (test/support/slow-first.ts) starts the longest files first by, from a
 * vitest JSON report of a full run:
 *
 *   npx vitest run --reporter=json --outputFile=/tmp/run.json
 *   node scripts/file-seconds.mjs /tmp/run.json
 *
 * Seconds per file (endTime - startTime), longest first, to a tenth.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const report = process.argv[2];
if (report === undefined) {
  console.error("usage: node scripts/file-seconds.mjs <vitest JSON report> (npx vitest run --reporter=json --outputFile=<file>)");
  process.exit(2);
}
const { testResults } = JSON.parse(readFileSync(report, "utf8"));
const rows = testResults
  .map((t) => [t.name.replaceAll("\\", "/").replace(/^.*?\/(test\/)/, "$1"), Math.round((t.endTime - t.startTime) / 100) / 10])
  .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
const out = fileURLToPath(new URL("../test/support/file-seconds.json", import.meta.url));
writeFileSync(out, `${JSON.stringify(Object.fromEntries(rows), null, 2)}\n`);
console.log(`${rows.length} files, ${Math.round(rows.reduce((n, [, s]) => n + s, 0))} s in all, written to test/support/file-seconds.json`);
