import type { Clock, TimerHandle } from "../clock/clock.js";
import { nextLocalHour } from "./local-time.js";

/** What the daily digest needs: when, how to send it, and where to complain. */
export interface DigestScheduleOptions {
  readonly clock: Clock;
  /** DIGEST_HOUR, 0-23, local time. */
  readonly hour: number;
  /** Builds and posts the digest; a rejection is logged and the next day still comes. */
  readonly send: () => Promise<void>;
  readonly log: { error(obj: object, msg: string): void };
}

/** A running daily schedule. */
export interface DigestSchedule {
  /** When the next digest is due (ms since the epoch). */
  readonly nextAt: number;
  /** Cancels the next digest; waits for one being sent. */
  stop(): Promise<void>;
}

/**
 * Posts the digest every day at `hour`:00 local time, on the injected clock
 * (tests move a SimulatedClock a day at a time). Each run arms the next from
 * the clock's time after it, so a slow send never makes two digests in a day.
 */
export function scheduleDigest(options: DigestScheduleOptions): DigestSchedule {
  const { clock } = options;
  let handle: TimerHandle | undefined;
  let running: Promise<void> = Promise.resolve();
  let stopped = false;
  let nextAt = 0;
  const arm = () => {
    if (stopped) return;
    nextAt = nextLocalHour(clock.now(), options.hour);
    handle = clock.setTimeout(fire, nextAt - clock.now());
  };
  const fire = () => {
    handle = undefined;
    running = options
      .send()
      .catch((err: unknown) => options.log.error({ err }, "could not post the daily digest; the next one is due tomorrow"))
      .finally(arm);
  };
  arm();
  return {
    get nextAt() {
      return nextAt;
    },
    async stop() {
      stopped = true;
      if (handle) clock.clearTimeout(handle);
      await running;
    },
  };
}
