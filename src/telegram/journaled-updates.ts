import { run, type RunnerHandle } from "@grammyjs/runner";
import type { Api } from "grammy";
import type { Update } from "grammy/types";
import type { UpdateJournal } from "./update-journal.js";
import { runInUpdate } from "./update-scope.js";
import { traceStep } from "../log/latency-trace.js";

/**
 * The updates the daemon asks for. Telegram leaves reactions out unless named;
 * the business ones are the owner's connection and what people write to him.
 */
export const ALLOWED_UPDATES = ["message", "callback_query", "message_reaction", "business_connection", "business_message"] as const;

/** The getUpdates call the runner polls with (already retrying and reporting as the caller wants). */
export type FetchUpdates = (
  args: { offset: number; limit: number; timeout: number },
  signal: NonNullable<Parameters<Api["getUpdates"]>[1]>,
) => Promise<Update[]>;

/** What journaled polling is built from. */
export interface JournaledPollingOptions {
  /** grammY's middleware entry point (`bot.handleUpdate`). */
  readonly handleUpdate: (update: Update) => Promise<void>;
  readonly fetch: FetchUpdates;
  readonly journal: UpdateJournal;
  /** TELEGRAM_TIMEOUT_SECONDS: the long poll must end before a call counts as lost. */
  readonly timeoutSeconds: number;
  readonly log: { debug(obj: object, msg: string): void; error(obj: object, msg: string): void };
}

/** The running poll: the runner's handle, and a wait for the updates still being handled. */
export interface JournaledPolling {
  readonly runner: RunnerHandle;
  /** Resolves once every update handed to the middleware so far has been handled (or failed). */
  settle(): Promise<void>;
}

/**
 * Long polling through @grammyjs/runner where every fetched update is
 * journaled (fsync'd) before Telegram is told it arrived: the runner's next
 * getUpdates confirms them, so that call waits for the batch's fsync. Their
 * handling starts at once, beside the fsync (it is not on a reaction's way to
 * its send): an update is marked answered or handled only after its
 * `received` line (update-journal.ts), and a decision made twice acts once. A
 * batch that cannot be journaled is tried again before the next getUpdates,
 * which is not made until it is on disk: Telegram keeps those updates.
 */
export function startJournaledPolling(options: JournaledPollingOptions): JournaledPolling {
  const { log, journal } = options;
  const handling = new Set<Promise<void>>();
  const unconfirmed = new UnconfirmedUpdates(journal, log);
  const runner = run(
    {
      init: async () => {},
      handleUpdate: (update: Update) => {
        const work = handleJournaled(update, options);
        handling.add(work);
        void work.finally(() => handling.delete(work)).catch(() => {});
        return work;
      },
      errorHandler: (err: unknown) => log.error({ err }, "update handling failed"),
      api: {
        getUpdates: async (args, signal) => {
          // This call confirms the last batch to Telegram: it is on disk first, or the call is not made.
          await unconfirmed.journaled();
          const updates = await options.fetch(args, signal);
          if (updates.length > 0) traceStep("1 fetched");
          unconfirmed.record(updates);
          return updates;
        },
      },
    },
    // The long poll must end before the client timeout would cut it: at most 30 s, 5 s under the timeout.
    {
      runner: {
        fetch: { timeout: Math.max(1, Math.min(30, options.timeoutSeconds - 5)), allowed_updates: [...ALLOWED_UPDATES] },
        silent: true,
      },
      sink: { concurrency: 50 },
    },
  );
  return {
    runner,
    async settle() {
      await Promise.allSettled([...handling]);
    },
  };
}

/**
 * Handles one update in its scope and marks it finished in the journal.
 * "update handled" (debug) comes once the middleware has finished and the
 * mark is on disk, and with it every durable write the update caused (a
 * decision's transition is committed before its handler resolves): a barrier
 * for whoever must know that an update can no longer change anything. An
 * update the journal knows as handled (Telegram delivered it again after a
 * restart) is skipped; one whose handling failed stays for the next start.
 */
export async function handleJournaled(
  update: Update,
  options: Pick<JournaledPollingOptions, "handleUpdate" | "log"> & { readonly journal: Pick<UpdateJournal, "isDone" | "finish"> },
): Promise<void> {
  const { journal, log } = options;
  if (journal.isDone(update.update_id)) {
    log.debug({ update_id: update.update_id }, "update delivered again; it was handled before");
    return;
  }
  let failed = false;
  let retry = false;
  await runInUpdate(update.update_id, async (scope) => {
    try {
      traceStep("3 handling");
      await options.handleUpdate(update);
    } catch (err) {
      failed = true;
      log.error({ err, update_id: update.update_id }, "an update could not be handled; it stays in the journal for the next start");
    }
    retry = scope.retry;
  });
  if (!failed) {
    await journal
      .finish(update.update_id, retry)
      .catch((err: unknown) => log.error({ err, update_id: update.update_id }, "could not journal that an update was handled"));
  }
  log.debug({ update_id: update.update_id }, "update handled");
}

/**
 * The fetched batches not yet known to be on disk: the next getUpdates (which confirms them to
 * Telegram) waits for them, and writes again a batch whose write failed; it throws while that
 * fails, so the runner retries the fetch (with its backoff) and never confirms them unjournaled.
 */
class UnconfirmedUpdates {
  private pending: Promise<void> = Promise.resolve();
  private failed: Update[] = [];

  constructor(
    private readonly journal: Pick<UpdateJournal, "record">,
    private readonly log: Pick<JournaledPollingOptions["log"], "error">,
  ) {}

  /** Starts writing `updates` (fsync'd); a failure is kept for the next `journaled`. */
  record(updates: readonly Update[]): void {
    if (updates.length === 0) return;
    const written = this.journal.record(updates).then(
      () => undefined,
      (err: unknown) => {
        this.failed.push(...updates);
        this.log.error(
          { err, updates: updates.length },
          "could not journal fetched updates; they are written again before Telegram is asked for more",
        );
      },
    );
    this.pending = Promise.all([this.pending, written]).then(() => undefined);
  }

  /** Resolves once every fetched batch is on disk; throws (not confirmed) while one cannot be written. */
  async journaled(): Promise<void> {
    await this.pending;
    if (this.failed.length === 0) return;
    const again = this.failed;
    await this.journal.record(again);
    this.failed = this.failed.filter((u) => !again.includes(u));
  }
}
