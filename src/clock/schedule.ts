import { nextLocalTime, type LocalTime } from "./local-time.js";
import type { Clock, TimerHandle } from "./clock.js";

/**
 * One scheduler for everything the daemon does at a time of its own choosing
 * rather than in answer to someone: the daily digest (DIGEST_HOUR), the weekly
 * report (REPORT_DAY), and anything whose next time a function can say (a
 * reminder's deadline). It runs on the injected Clock, so tests and test mode
 * move a SimulatedClock instead of waiting, and each run arms the next from
 * the clock's time after it: a slow run never makes two in one slot, and a
 * daylight-saving night is the calendar functions' business (local-time.ts).
 */

/** When a schedule runs next: the first due instant strictly after `nowMs`, or null when nothing is due. */
export type NextRun = (nowMs: number) => number | null;

/** What a schedule is made of. */
export interface ScheduleOptions {
  readonly clock: Clock;
  /** When it runs next (`atLocalTime` for a local time of day or weekday). */
  readonly next: NextRun;
  /** The work, given the instant it was due. A rejection goes to `onError`; the next run still comes. */
  readonly run: (dueMs: number) => Promise<void>;
  /** Told of a failed run (or `first`), with the instant it was due (`first`: the start). */
  readonly onError: (err: unknown, dueMs: number) => void;
  /** Work done once at start, before the first timer is armed (a catch-up of a run missed while the daemon was down). */
  readonly first?: () => Promise<void>;
}

/** A running schedule. */
export interface Schedule {
  /** When it runs next (ms since the epoch), or null when nothing is due. */
  readonly nextAt: number | null;
  /** Asks `next` again (what it depends on changed); a run in progress arms the next itself when it ends. */
  rearm(): void;
  /** Resolves when no run is in progress (tests on a simulated clock wait on it). */
  idle(): Promise<void>;
  /** Cancels the next run; waits for one in progress. */
  stop(): Promise<void>;
}

/** `next` for a local time of day (REVIEW_TIMEZONE, the process's zone), every day or on `at.weekday`. */
export function atLocalTime(at: LocalTime): NextRun {
  return (nowMs) => nextLocalTime(nowMs, at);
}

/** Starts a schedule: `first` (if any), then `run` at each instant `next` says. */
export function startSchedule(options: ScheduleOptions): Schedule {
  const { clock } = options;
  let handle: TimerHandle | undefined;
  let busy = false;
  let stopped = false;
  let nextAt = options.next(clock.now());
  let running: Promise<void> = Promise.resolve();
  const arm = () => {
    if (handle) clock.clearTimeout(handle);
    handle = undefined;
    if (stopped || busy) return;
    const due = options.next(clock.now());
    nextAt = due;
    if (due !== null) handle = clock.setTimeout(() => fire(due), Math.max(0, due - clock.now()));
  };
  const guarded = (work: () => Promise<void>, dueMs: number) => {
    busy = true;
    running = work()
      .catch((err: unknown) => options.onError(err, dueMs))
      .finally(() => {
        busy = false;
        arm();
      });
  };
  const fire = (dueMs: number) => {
    handle = undefined;
    guarded(() => options.run(dueMs), dueMs);
  };
  if (options.first) guarded(options.first, clock.now());
  else arm();
  return {
    get nextAt() {
      return nextAt;
    },
    rearm: arm,
    idle: () => running,
    async stop() {
      stopped = true;
      if (handle) clock.clearTimeout(handle);
      handle = undefined;
      await running;
    },
  };
}
