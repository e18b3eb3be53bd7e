import { readFileSync } from "node:fs";
import { BaseSequencer, type TestSpecification } from "vitest/node";

/**
 * Seconds each file took in a full run (test/support/file-seconds.json, from vitest's JSON
 * reporter: endTime - startTime per file). Refresh it after a file gets much faster or slower:
 *   npx vitest run --reporter=json --outputFile=/tmp/run.json && node scripts/file-seconds.mjs /tmp/run.json
 */
const SECONDS: Readonly<Record<string, number>> = JSON.parse(readFileSync(new URL("./file-seconds.json", import.meta.url), "utf8"));

/** A file the table does not know yet (a new one): most files take a second or two. */
const UNKNOWN_SECONDS = 2;

/** The seconds the table gives the file at `moduleId` (an absolute path). */
export function expectedSeconds(moduleId: string): number {
  const at = moduleId.replaceAll("\\", "/").lastIndexOf("/test/");
  return (at < 0 ? undefined : SECONDS[moduleId.slice(at + 1)]) ?? UNKNOWN_SECONDS;
}

/**
 * Longest first, every file ranked by its measured time: each worker takes
 * the next file as it frees up, so the workers run out of work together
 * (longest-processing-time scheduling) instead of one waiting alone on a
 * long file that came late. Vitest's own order on a clean clone (no results
 * cache, as in CI) is by file size, which put the crash sweep, a short file
 * that runs longest, last. Files of equal rank keep vitest's order.
 */
export default class SlowestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    return sorted
      .map((f, i) => ({ f, i, s: expectedSeconds(f.moduleId) }))
      .sort((a, b) => b.s - a.s || a.i - b.i)
      .map(({ f }) => f);
  }
}
