import type { Update } from "grammy/types";
import { handleJournaled, type FetchUpdates } from "../telegram/journaled-updates.js";
import type { UpdateJournal } from "../telegram/update-journal.js";

/** At most this many getUpdates pages are read at start (100 updates each); the rest comes with polling. */
const MAX_BACKLOG_PAGES = 50;

/** What reading the backlog needs; plain shapes, so a test passes objects. */
export interface BacklogOptions {
  /** getUpdates with the daemon's retry policy (the stop signal aborts it). */
  readonly fetch: FetchUpdates;
  readonly journal: Pick<UpdateJournal, "record" | "isDone" | "finish">;
  /** grammY's middleware entry point (`bot.handleUpdate`). */
  readonly handleUpdate: (update: Update) => Promise<void>;
  readonly signal: Parameters<FetchUpdates>[1];
  readonly log: { debug(obj: object, msg: string): void; warn(obj: object, msg: string): void; error(obj: object, msg: string): void };
  /** Called with each update's id before it is handled (the handlers learn it waited while the daemon was down). */
  readonly onHeld?: (updateId: number) => void;
}

/**
 * Reads the updates Telegram kept while the daemon was down and handles them
 * one by one, in order, before recovery starts the sends that fell due
 * meanwhile: a 👍 removed inside an undo window, a /halt, a revise all count
 * before anything goes out. Each page is journaled (fsync'd) before it is
 * handled; the next getUpdates confirms it to Telegram, the last (empty)
 * one confirms them all. Returns how many updates were handled.
 */
export async function handleStartBacklog(o: BacklogOptions): Promise<number> {
  let offset = 0;
  let handled = 0;
  for (let page = 0; page < MAX_BACKLOG_PAGES; page++) {
    const updates = await o.fetch({ offset, limit: 100, timeout: 0 }, o.signal);
    if (updates.length === 0) return handled;
    await o.journal.record(updates);
    for (const update of updates) {
      o.onHeld?.(update.update_id);
      // As at run time (journaled-updates.ts): handled once, marked finished in the journal, a failure logged
      // and kept for the next start, then the "update handled" barrier.
      await handleJournaled(update, o);
      handled++;
    }
    offset = updates[updates.length - 1]!.update_id + 1;
  }
  // Confirms what was handled; what this returns stays unconfirmed, so polling gets it again.
  await o.fetch({ offset, limit: 1, timeout: 0 }, o.signal);
  o.log.warn({ handled }, "more updates waited than are read at start; the rest are handled as polling takes them");
  return handled;
}
