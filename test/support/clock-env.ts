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

/** libfaketime, as Debian's `faketime` package installs it (the loader fills in $LIB). */
const LIBFAKETIME = "/usr/$LIB/faketime/libfaketime.so.1";

/**
 * The environment that runs a child process's clock `deltaMs` away from the
 * test runner's (libfaketime, `FAKETIME=+Ns`), on top of the shift the runner
 * has when the suite runs at another date: a daemon "a week ago" writes its
 * files dated a week before the runner's now, whatever the date.
 */
export function shiftedClockEnv(deltaMs: number): Record<string, string> {
  const inherited = process.env.FAKETIME;
  const parent = inherited === undefined ? 0 : Number(/^([+-]\d+)s$/.exec(inherited)?.[1] ?? Number.NaN);
  if (!Number.isFinite(parent)) throw new Error(`cannot shift a clock on top of FAKETIME=${inherited} (only +Ns offsets)`);
  const seconds = parent + Math.round(deltaMs / 1000);
  return {
    ...clockEnv(),
    LD_PRELOAD: process.env.LD_PRELOAD ?? LIBFAKETIME,
    FAKETIME: `${seconds >= 0 ? "+" : ""}${seconds}s`,
    FAKETIME_DONT_FAKE_MONOTONIC: "1",
  };
}
