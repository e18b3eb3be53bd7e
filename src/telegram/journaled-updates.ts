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
 * journaled (fsync'd) before the fetch returns: the runner's next getUpdates
 * confirms them to Telegram, so they must be on disk first. A batch that
 * cannot be journaled is not returned, so Telegram delivers it again.
 */
export function startJournaledPolling(options: JournaledPollingOptions): JournaledPolling {
  const { log, journal } = options;
  const handling = new Set<Promise<void>>();
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
          const updates = await options.fetch(args, signal);
          if (updates.length > 0) traceStep("1 fetched");
          await journal.record(updates).catch((err: unknown) => {
            // Not journaled, so not confirmed: Telegram delivers these again after the runner's retry.
            log.error({ err, updates: updates.length }, "could not journal fetched updates; they will be fetched again");
            throw err;
          });
          if (updates.length > 0) traceStep("2 journaled");
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
