/** The variables that carry a faked clock and the time zone into a child process. */
const CLOCK_VARIABLES = /^(LD_PRELOAD|FAKETIME.*|DONT_FAKE_MONOTONIC|TZ)$/;

/**
 * The part of the test runner's environment that sets its calendar: libfaketime's
 * variables (when the suite runs at another date, see scripts/test-at-dates.mjs) and TZ.
 * Processes that tests start with a clean environment get these too, so that a
 * daemon and the test that reads its files share one clock. Empty in a plain run.
 */
export function clockEnv(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) if (value !== undefined && CLOCK_VARIABLES.test(name)) out[name] = value;
  return out;
}
