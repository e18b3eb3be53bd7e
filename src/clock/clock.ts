/**
 * The one source of time. Everything that reads the time or waits takes a
 * `Clock`, so tests and test mode move a simulated clock instead of sleeping,
 * and expiry is computed from the same clock that fires the timers.
 */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
  /** Calls `fn` once, `ms` milliseconds from now. */
  setTimeout(fn: () => void, ms: number): TimerHandle;
  clearTimeout(handle: TimerHandle): void;
}

/** An opaque handle returned by `Clock.setTimeout`. */
export type TimerHandle = { readonly id: number };

/** The wall clock, for live mode. Timers are unref'd so they never keep the process alive. */
export function systemClock(): Clock {
  const timers = new Map<number, NodeJS.Timeout>();
  let next = 1;
  return {
    now: () => Date.now(),
    setTimeout(fn, ms) {
      const id = next++;
      // Node caps timers at 2^31-1 ms (~24.8 days); longer waits re-arm.
      const MAX = 2_147_483_647;
      const due = Date.now() + ms;
      const arm = (wait: number) => {
        const t = setTimeout(
          () => {
            const left = due - Date.now();
            if (left > 0) return arm(left);
            timers.delete(id);
            fn();
          },
          Math.min(Math.max(wait, 0), MAX),
        );
        t.unref();
        timers.set(id, t);
      };
      arm(ms);
      return { id };
    },
    clearTimeout(handle) {
      const t = timers.get(handle.id);
      if (t) clearTimeout(t);
      timers.delete(handle.id);
    },
  };
}
