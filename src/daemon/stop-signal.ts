import type { Logger } from "../log/logger.js";

/** The first stop signal, and the keep-alive that lasts until it is disposed. */
export interface StopSignal {
  readonly promise: Promise<string>;
  dispose(): void;
}

/**
 * Resolves on the first SIGTERM or SIGINT. Until then it keeps the process
 * alive: the Clock's timers are unref'd, so work that waits on one during
 * start-up (a paced review-chat answer while the journal is replayed, before
 * the poller and the API server hold the event loop) would otherwise let
 * Node exit silently with code 0.
 */
export function waitForStopSignal(log: Logger): StopSignal {
  const keepAlive = setInterval(() => {}, 1 << 30);
  let onSignal: (signal: NodeJS.Signals) => void = () => {};
  const promise = new Promise<string>((resolve) => {
    onSignal = (signal) => {
      log.info({ signal }, "stop requested");
      resolve(signal);
    };
  });
  process.once("SIGTERM", onSignal);
  process.once("SIGINT", onSignal);
  return {
    promise,
    dispose() {
      clearInterval(keepAlive);
      process.off("SIGTERM", onSignal);
      process.off("SIGINT", onSignal);
    },
  };
}
