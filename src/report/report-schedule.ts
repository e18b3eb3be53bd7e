import type { Clock, TimerHandle } from "../clock/clock.js";
import { lastDue, nextDue, sameLocalDay, type Weekday } from "./week.js";

/** What the weekly report needs: when, whether a week's report is out, and how to post one. */
export interface WeeklyReportOptions {
  readonly clock: Clock;
  /** REPORT_DAY. */
  readonly day: Weekday;
  /** True when the report due at `dueMs` was posted already (by this run or an earlier one). */
  readonly posted: (dueMs: number) => Promise<boolean>;
  /** Posts the report due at `dueMs`; a rejection is logged and next week still comes. */
  readonly post: (dueMs: number) => Promise<void>;
  readonly log: { error(obj: object, msg: string): void; info(obj: object, msg: string): void };
}

/** A running weekly schedule. */
export interface WeeklyReportSchedule {
  /** When the next report is due (ms since the epoch). */
  readonly nextAt: number;
  /** Resolves when no report is being posted (tests on a simulated clock wait on it). */
  idle(): Promise<void>;
  /** Cancels the next report; waits for one being posted. */
  stop(): Promise<void>;
}

/**
 * Posts the week's report at 09:00 local time on REPORT_DAY, on the injected
 * clock. At start, a report due earlier the same day that is not out yet (the
 * daemon was down at 09:00) is posted at once; one that is out is not posted
 * again: `posted` looks for its audit line, so restarts never post a week twice.
 */
export function scheduleWeeklyReport(options: WeeklyReportOptions): WeeklyReportSchedule {
  const { clock, log } = options;
  let handle: TimerHandle | undefined;
  let running: Promise<void> = Promise.resolve();
  let stopped = false;
  let nextAt = nextDue(clock.now(), options.day);
  const postOnce = async (dueMs: number) => {
    try {
      if (await options.posted(dueMs)) {
        log.info({ due: new Date(dueMs).toISOString() }, "the week's report is already posted");
        return;
      }
      await options.post(dueMs);
      log.info({ due: new Date(dueMs).toISOString() }, "posted the weekly report");
    } catch (err) {
      log.error({ err }, "could not post the weekly report; the next one is due next week");
    }
  };
  const arm = () => {
    if (stopped) return;
    nextAt = nextDue(clock.now(), options.day);
    handle = clock.setTimeout(fire, nextAt - clock.now());
  };
  const fire = () => {
    handle = undefined;
    running = postOnce(nextAt).finally(arm);
  };
  const due = lastDue(clock.now(), options.day);
  running = (sameLocalDay(due, clock.now()) ? postOnce(due) : Promise.resolve()).finally(arm);
  return {
    get nextAt() {
      return nextAt;
    },
    idle: () => running,
    async stop() {
      stopped = true;
      if (handle) clock.clearTimeout(handle);
      await running;
    },
  };
}
