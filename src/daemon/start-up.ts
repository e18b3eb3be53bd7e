import type { Bot } from "grammy";
import type { Core } from "../app/core.js";
import { resumeDrafts } from "../desk/recovery.js";
import type { Logger } from "../log/logger.js";
import { handleJournaled, type FetchUpdates } from "../telegram/journaled-updates.js";
import { outageAtStart } from "../telegram/outage-text.js";
import type { UpdateJournal } from "../telegram/update-journal.js";
import { tellJournalLoss } from "./journal-loss.js";
import { tellOutage } from "./outage.js";
import { handleStartBacklog } from "./start-backlog.js";

/** What the start-up sequence acts on: the bot with its handlers installed, the open core and update journal. */
export interface StartUpDeps {
  readonly bot: Bot;
  readonly core: Core;
  readonly journal: UpdateJournal;
  /** getUpdates with the daemon's retry policy. */
  readonly fetch: FetchUpdates;
  /** Posts in the review chat (TelegramReviewChat.say). */
  readonly say: (text: string) => Promise<unknown>;
  /** REVIEW_TIMEZONE, for the outage notice. */
  readonly timeZone: string | undefined;
  /** The updates that waited while the daemon was down (the handlers read it); cleared once the backlog is read. */
  readonly heldWhileDown: Set<number>;
  /** Resolves when a stop is asked for (aborts reading the backlog). */
  readonly stopped: Promise<unknown>;
  readonly log: Logger;
}

/**
 * The daemon's start, in order, once its handlers are installed: the updates a
 * stop left in the journal; the owner's business connection as Telegram has it
 * now; Telegram's queue (before any send falls due); a lost tap told;
 * recovery (sends that fell due meanwhile); an outage told; the poll noted.
 * The one sequence: the live daemon and the explorer both run it. Resolves
 * false when a stop was asked for while the backlog was read.
 */
export async function startUp(o: StartUpDeps): Promise<boolean> {
  const { core, journal, log } = o;
  await replayJournal(o);
  // The owner's connection as Telegram has it now (a change while the daemon was down), before any send.
  await core.voice.refresh();
  // Down longer than Telegram keeps a tap (measured from the journal's note of the last getUpdates answered).
  const outage = outageAtStart(journal.polledBefore, core.desk.clock.now());
  // Then Telegram's queue, in order, before recovery starts the sends that fell due meanwhile.
  const backlog: { firstUpdateId?: number | null } = {};
  const fetchNoting: FetchUpdates = (args, signal) =>
    o.fetch(args, signal).then((updates) => {
      if (!("firstUpdateId" in backlog)) backlog.firstUpdateId = updates[0]?.update_id ?? null;
      return updates;
    });
  if (!(await readBacklog(o, fetchNoting))) return false;
  o.heldWhileDown.clear();
  // A damaged journal line whose tap Telegram had confirmed already: the owner is told he may need to decide again.
  await tellJournalLoss({
    cut: journal.cut,
    firstDelivered: backlog.firstUpdateId ?? null,
    drafts: () => core.desk.list(),
    say: o.say,
    log,
  });
  await resumeDrafts(core.desk, { downSince: outage?.since ?? null });
  if (outage !== null) await tellOutage({ outage, drafts: () => core.desk.list(), say: o.say, timeZone: o.timeZone, log });
  // Telegram answered at this start: noted now, so a restart right after measures no outage (and says it once).
  await journal.notePolled(core.desk.clock.now());
  return true;
}

/**
 * Reads Telegram's queue at start (see handleStartBacklog). Resolves false
 * when a stop was asked for meanwhile.
 */
async function readBacklog(o: StartUpDeps, fetch: FetchUpdates): Promise<boolean> {
  const abort = new AbortController();
  void o.stopped.then(() => abort.abort());
  try {
    const handled = await handleStartBacklog({
      fetch,
      journal: o.journal,
      handleUpdate: (update) => o.bot.handleUpdate(update),
      // grammY types its signal with the abort-controller shim; Node's own AbortSignal is what it gets at run time.
      signal: abort.signal as Parameters<FetchUpdates>[1],
      log: o.log,
      onHeld: (updateId) => o.heldWhileDown.add(updateId),
    });
    if (handled > 0) o.log.info({ updates: handled }, "handled the updates that waited while the daemon was down");
    return true;
  } catch (err) {
    if (abort.signal.aborted) return false;
    throw err;
  }
}

/**
 * Handles again the journaled updates a stop left in flight (or to retry), in
 * order, each as at run time (handleJournaled): marked finished, a failure
 * logged and kept for the next start. One that began to answer before the
 * stop is not among them: its answer is not sent twice.
 */
async function replayJournal(o: StartUpDeps): Promise<void> {
  const { journal, core, log } = o;
  const pending = journal.entries();
  if (pending.length > 0) log.warn({ updates: pending.length }, "handling updates a stop left unhandled");
  for (const update of pending) {
    // A decision the audit log holds already (a journal from before handled updates were marked).
    if (core.desk.hasSeenUpdate(update.update_id)) {
      await journal.finish(update.update_id).catch(() => {});
      continue;
    }
    o.heldWhileDown.add(update.update_id);
    await handleJournaled(update, { handleUpdate: (u) => o.bot.handleUpdate(u), journal, log });
  }
  await core.desk.settle();
}
