import { GrammyError } from "grammy";
import type { Clock } from "../clock/clock.js";
import { backoffMs, POLL_BACKOFF, type Backoff } from "../retry/backoff.js";

/** The log levels polling reports to (pino's). */
export interface PollLog {
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/**
 * Wraps getUpdates with the daemon's polling policy, so the runner only ever
 * sees an error when it must stop:
 * - 401 (the token was revoked) is final and is thrown;
 * - 409 (another program polls this bot, or its poll was still held) is logged
 *   as an error and retried: the daemon keeps serving intake and sends, and
 *   takes updates again once the other poller is gone;
 * - 429 waits `retry_after`;
 * - anything else (5xx, timeouts, resets) backs off by `backoff` (POLL_BACKOFF:
 *   1 s, doubling, at most 30 s).
 * The runner's own retry doubles without a cap and logs nothing, so after a
 * long outage it would poll again only hours later. Waits are on `clock`.
 */
export function withPollingRetry<A, R, S extends PollSignal>(
  getUpdates: (args: A, signal: S) => Promise<R>,
  log: PollLog,
  clock: Clock,
  backoff: Backoff = POLL_BACKOFF,
): (args: A, signal: S) => Promise<R> {
  return async (args, signal) => {
    let backoffs = 0;
    for (let failures = 1; ; failures++) {
      try {
        return await getUpdates(args, signal);
      } catch (err) {
        if (signal.aborted) throw err;
        if (err instanceof GrammyError && err.error_code === 401) throw err;
        const delayMs =
          err instanceof GrammyError && err.error_code === 429
            ? Math.max(1, Number(err.parameters.retry_after ?? 1)) * 1000
            : backoffMs(backoff, ++backoffs);
        if (err instanceof GrammyError && err.error_code === 409) {
          log.error(
            { err, failures, retry_in_ms: delayMs },
            "Telegram says another program is polling this bot (409 Conflict); trying again. " +
              "If this goes on, stop the other instance or use a separate bot token.",
          );
        } else {
          log.warn({ err, failures, retry_in_ms: delayMs }, "getUpdates failed; polling again after a pause");
        }
        await pause(clock, delayMs, signal);
        if (signal.aborted) throw err;
      }
    }
  };
}

/** The part of grammY's AbortSignal shim polling uses. */
export interface PollSignal {
  readonly aborted: boolean;
  addEventListener?(type: "abort", listener: () => void): void;
  removeEventListener?(type: "abort", listener: () => void): void;
}

/** Waits `ms` on the clock, or less if `signal` aborts first. */
function pause(clock: Clock, ms: number, signal: PollSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clock.clearTimeout(handle);
      signal.removeEventListener?.("abort", done);
      resolve();
    };
    const handle = clock.setTimeout(done, ms);
    signal.addEventListener?.("abort", done);
  });
}
