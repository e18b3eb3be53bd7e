import type { Clock, TimerHandle } from "../clock/clock.js";
import { errMessage } from "../store/fs-util.js";

/** How often archiving runs while it succeeds. */
export const ARCHIVE_EVERY_MS = 24 * 3_600_000;
/** How soon a failed archiving pass (a full disk, say) is tried again. */
export const ARCHIVE_RETRY_MS = 3_600_000;

/** The archiving passes of a running daemon. */
export interface ArchivingSchedule {
  /** Why the last pass failed (for /healthz and `draft-review status`), or null after a pass that succeeded. */
  problem(): string | null;
  /** Resolves once no pass is under way (tests on the simulated clock wait on it). */
  idle(): Promise<void>;
  /** Stops the timer and waits for a pass under way. */
  stop(): Promise<void>;
}

/** Where the schedule reports a failed pass (pino fits). */
export interface ArchivingLog {
  error(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
}

/**
 * Runs `pass` (move old final drafts to archive/) now, then every
 * ARCHIVE_EVERY_MS on the injected clock. A pass that fails never stops the
 * daemon: the drafts stay in the store (nothing is lost: see archiving.ts),
 * the failure is logged and kept for /healthz, and the pass is tried again
 * after ARCHIVE_RETRY_MS. Resolves once the first pass has ended, either way.
 */
export async function scheduleArchiving(clock: Clock, pass: () => Promise<unknown>, log: ArchivingLog): Promise<ArchivingSchedule> {
  let handle: TimerHandle | undefined;
  let stopped = false;
  let running: Promise<void> = Promise.resolve();
  let problem: string | null = null;
  const run = async (): Promise<void> => {
    try {
      await pass();
      if (problem !== null) log.info({}, "archiving old drafts works again");
      problem = null;
    } catch (err) {
      const retryAt = new Date(clock.now() + ARCHIVE_RETRY_MS).toISOString();
      problem = `archiving old drafts failed at ${new Date(clock.now()).toISOString()} (${errMessage(err)}); they stay in the store, nothing is lost; tried again at ${retryAt}`;
      log.error({ err, retry_at: retryAt }, "archiving old drafts failed; they stay in the store and are tried again later");
    }
    if (!stopped) handle = clock.setTimeout(() => void (running = run()), problem === null ? ARCHIVE_EVERY_MS : ARCHIVE_RETRY_MS);
  };
  running = run();
  await running;
  return {
    problem: () => problem,
    idle: () => running,
    async stop() {
      stopped = true;
      if (handle) clock.clearTimeout(handle);
      await running;
    },
  };
}
