import { setTimeout as sleep } from "node:timers/promises";
import { GrammyError } from "grammy";

/** The log levels polling reports to (pino's). */
export interface PollLog {
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/** How long to wait between failed getUpdates calls. */
export interface PollBackoff {
  /** First wait after a failure. Default 1000. */
  readonly initialMs?: number;
  /** The longest wait, however long the failures last. Default 30000. */
  readonly maxMs?: number;
}

/**
 * Wraps getUpdates with the daemon's polling policy, so the runner only ever
 * sees an error when it must stop:
 * - 401 (the token was revoked) is final and is thrown;
 * - 409 (another program polls this bot, or its poll was still held) is logged
 *   as an error and retried: the daemon keeps serving intake and sends, and
 *   takes updates again once the other poller is gone;
 * - 429 waits `retry_after`;
 * - anything else (5xx, timeouts, resets) backs off from 1 s to at most 30 s.
 * The runner's own retry doubles without a cap and logs nothing, so after a
 * long outage it would poll again only hours later.
 */
export function withPollingRetry<A, R, S extends { readonly aborted: boolean }>(
  getUpdates: (args: A, signal: S) => Promise<R>,
  log: PollLog,
  backoff: PollBackoff = {},
): (args: A, signal: S) => Promise<R> {
  const initialMs = backoff.initialMs ?? 1000;
  const maxMs = backoff.maxMs ?? 30_000;
  return async (args, signal) => {
    let waitMs = initialMs;
    for (let failures = 1; ; failures++) {
      try {
        return await getUpdates(args, signal);
      } catch (err) {
        if (signal.aborted) throw err;
        if (err instanceof GrammyError && err.error_code === 401) throw err;
        let delayMs = waitMs;
        if (err instanceof GrammyError && err.error_code === 429) {
          delayMs = Math.max(1, Number(err.parameters.retry_after ?? 1)) * 1000;
        } else {
          waitMs = Math.min(maxMs, waitMs * 2);
        }
        if (err instanceof GrammyError && err.error_code === 409) {
          log.error(
            { err, failures, retry_in_ms: delayMs },
            "Telegram says another program is polling this bot (409 Conflict); trying again. " +
              "If this goes on, stop the other instance or use a separate bot token.",
          );
        } else {
          log.warn({ err, failures, retry_in_ms: delayMs }, "getUpdates failed; polling again after a pause");
        }
        // grammY types the signal with its own AbortSignal shim; at run time it is Node's.
        await sleep(delayMs, undefined, { signal: signal as unknown as AbortSignal }).catch(() => {});
        if (signal.aborted) throw err;
      }
    }
  };
}
