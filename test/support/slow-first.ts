import { BaseSequencer, type TestSpecification } from "vitest/node";

/** The files that take longest on 2 cores, longest first (seconds in a full run on 2026-12-01). */
const SLOWEST = [
  "test/reliability/crash-sweep.test.ts", // ~100-135 s
  "test/reliability/telegram-faults.test.ts", // ~30 s
  "test/store/crash.test.ts", // ~20 s
  "test/daemon/flows.test.ts", // ~20 s
  "test/reliability/damaged-store.test.ts", // ~20 s
  "test/daemon/live.test.ts", // ~18 s
];

/**
 * Vitest's order on a clean clone (no results cache, as in CI) is by file
 * size, which put the crash sweep, a short file that runs longest, last: the
 * run then waited on it alone. The slowest files start first; the rest keep
 * vitest's order.
 */
export default class SlowestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (f: TestSpecification) => {
      const i = SLOWEST.findIndex((path) => f.moduleId.endsWith(path));
      return i < 0 ? SLOWEST.length : i;
    };
    return sorted
      .map((f, i) => ({ f, i }))
      .sort((a, b) => rank(a.f) - rank(b.f) || a.i - b.i)
      .map(({ f }) => f);
  }
}
