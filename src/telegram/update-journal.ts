import { z } from "zod";
import type { Update } from "grammy/types";
import { JsonlStore, type StoreLog } from "../store/jsonl-store.js";
import { readJournalCut, type JournalCut } from "./journal-cut.js";

/**
 * Where an update stands:
 * - `received`: fetched and journaled, its handling not known to have finished;
 * - `answered`: its handling began to answer in the review chat (every durable
 *   change it makes comes before its answer), so it is never handled again;
 * - `retry`: handled, but its decision could not be saved: handled again at the next start;
 * - `handled`: done; kept a while (without its body) so a redelivery is recognised.
 */
const stateSchema = z.enum(["received", "answered", "retry", "handled"]);
type State = z.infer<typeof stateSchema>;

const entrySchema = z.object({
  draft_id: z.string(),
  update_id: z.number().int(),
  // Journals written before states existed hold only received updates.
  state: stateSchema.default("received"),
  update: z.looseObject({ update_id: z.number().int() }).optional(),
  /** The POLLED entry only: when Telegram last answered a getUpdates (ISO-8601 UTC). */
  polled_at: z.string().optional(),
});
type Entry = z.infer<typeof entrySchema>;

/**
 * The entry that says when Telegram last answered a getUpdates: the start's
 * measure of an outage (Telegram keeps a pending update at most 24 h). Shaped
 * as a handled update 0 so that a journal read by an older daemon still loads.
 */
const POLLED = "polled";
/** The POLLED entry is rewritten at most this often while polling goes well (and once more at a clean stop). */
const POLLED_EVERY_MS = 60_000;

/** Handled updates remembered for a redelivery: more than one getUpdates batch (100) can hold. */
const KEEP_HANDLED = 200;
/** The journal is rewritten without older handled updates once it remembers this many. */
const PRUNE_AT = 1_000;

/**
 * Telegram confirms an update as soon as the next getUpdates asks for a later
 * offset, and the runner asks before handlers finish. So every fetched update
 * is written here (fsync'd) before the fetch returns, and marked once its
 * handling has finished; a start handles again only what a crash left in
 * flight. An update that began to answer is not handled again (its answer
 * would be sent twice). The file and the memory hold the updates in flight
 * and the last few hundred handled ids, never the history.
 */
export class UpdateJournal {
  private readonly answering = new Map<number, Promise<void>>();
  /** Updates whose `received` line is being written: marking one answered or handled waits for it (the file keeps their order). */
  private readonly recording = new Map<number, Promise<void>>();
  private handledCount = 0;
  /** Prune once this many handled updates are remembered (raised after a failed prune). */
  private pruneAt = PRUNE_AT;
  private pruning = false;

  /** A damaged end cut off at open, and what it held as far as its bytes tell; null when the file ended cleanly. */
  readonly cut: JournalCut | null;
  /** When Telegram last answered a getUpdates before this start (ms), or null: never recorded (a new or older journal). */
  readonly polledBefore: number | null;
  private polledWritten: number | null;
  private polledNoted: number | null = null;

  private constructor(
    private readonly store: JsonlStore<Entry>,
    private readonly log: StoreLog,
  ) {
    let last: number | null = null;
    for (const e of store.latest.values()) {
      if (e.draft_id === POLLED) continue;
      if (e.state === "handled") this.handledCount++;
      last = Math.max(last ?? e.update_id, e.update_id);
    }
    const polled = Date.parse(store.latest.get(POLLED)?.polled_at ?? "");
    this.polledBefore = Number.isFinite(polled) ? polled : null;
    this.polledWritten = this.polledBefore;
    this.cut = store.cutTail === null ? null : readJournalCut(store.cutTail, (id) => this.stateOf(id) !== undefined, last);
  }

  static async open(path: string, log: StoreLog): Promise<UpdateJournal> {
    const store = await JsonlStore.open<Entry>({
      path,
      parse: (v) => entrySchema.parse(v),
      log,
      compactAfterLines: PRUNE_AT,
      label: "update journal",
      corruptRemedy:
        `Move ${path} aside (for example to ${path}.damaged) and start again. Telegram delivers again every update it has not ` +
        "confirmed, but one it confirmed that this file still held unhandled (a tap made just before the stop) is lost: " +
        "look at /pending in the review chat and decide again where a decision did not take.",
    });
    const journal = new UpdateJournal(store, log);
    const cut = journal.cut;
    if (cut !== null) {
      log.warn(
        { path, reason: cut.reason, bytes: cut.bytes, update_ids: cut.missingUpdateIds, unreadable: cut.unreadable },
        cut.damagedAfterWrite
          ? "the update journal's last line was damaged after it was written, and was cut off: Telegram may have confirmed the update in it already; the first getUpdates tells"
          : "the update journal ended in an interrupted write, cut off: Telegram had not confirmed what it held and delivers it again",
      );
    }
    return journal;
  }

  /** The updates a stop left to handle (in flight, or to retry), in order. */
  entries(): Update[] {
    return [...this.store.latest.values()]
      .filter((e) => (e.state === "received" || e.state === "retry") && e.update !== undefined)
      .sort((a, b) => a.update_id - b.update_id)
      .map((e) => e.update as unknown as Update);
  }

  /** True when `updateId` was handled (or began to answer) already: a redelivery to skip. */
  isDone(updateId: number): boolean {
    const state = this.stateOf(updateId);
    return state === "handled" || state === "answered";
  }

  /** How many updates the journal remembers (in flight and recently handled). */
  get size(): number {
    return this.store.latest.size - (this.store.latest.has(POLLED) ? 1 : 0);
  }

  /**
   * Makes `updates` durable; resolves once fsync'd. An update known already (or being written) keeps
   * its state. Its handling may start before this resolves: marking it answered or handled waits.
   */
  async record(updates: readonly Update[]): Promise<void> {
    const fresh = updates.filter((u) => this.stateOf(u.update_id) === undefined && !this.recording.has(u.update_id));
    const writing = updates.map((u) => this.recording.get(u.update_id)).filter((p) => p !== undefined);
    if (fresh.length > 0) {
      const written = this.store.append(
        fresh.map((u) => ({
          draft_id: key(u.update_id),
          update_id: u.update_id,
          state: "received" as const,
          update: u as unknown as Entry["update"],
        })),
      );
      for (const u of fresh) this.recording.set(u.update_id, written);
      void written
        .finally(() => {
          for (const u of fresh) if (this.recording.get(u.update_id) === written) this.recording.delete(u.update_id);
        })
        .catch(() => {});
      writing.push(written);
    }
    await Promise.all(writing);
  }

  /**
   * Notes, durably, that the update's handling is about to answer in the review
   * chat; the first call per update writes, later ones wait for that write. A
   * failed write is logged and the answer goes out anyway.
   */
  markAnswered(updateId: number): Promise<void> {
    const recording = this.recording.get(updateId);
    // Its `received` line first (a failed one is logged by the poll, and the answer goes out anyway).
    if (recording !== undefined)
      return recording.then(
        () => this.markAnsweredNow(updateId),
        () => undefined,
      );
    return this.markAnsweredNow(updateId);
  }

  private markAnsweredNow(updateId: number): Promise<void> {
    if (this.stateOf(updateId) !== "received") return this.answering.get(updateId) ?? Promise.resolve();
    let pending = this.answering.get(updateId);
    if (pending === undefined) {
      // The body stays with the entry: an update answered and then marked `retry` (its decision could not be
      // saved) must still be there to handle again at the next start.
      const entry = this.store.latest.get(key(updateId));
      pending = this.store
        .append([{ ...entry, draft_id: key(updateId), update_id: updateId, state: "answered" }])
        .catch((err: unknown) => this.log.warn({ err, update_id: updateId }, "could not journal that an update is answered"))
        .finally(() => this.answering.delete(updateId));
      this.answering.set(updateId, pending);
    }
    return pending;
  }

  /** Marks the update's handling finished (`retry`: handle it again at the next start). */
  async finish(updateId: number, retry = false): Promise<void> {
    // Never before its `received` line (a failed one leaves nothing to mark: Telegram delivers the update again).
    await this.recording.get(updateId)?.catch(() => undefined);
    await this.answering.get(updateId);
    const entry = this.store.latest.get(key(updateId));
    if (entry === undefined) return;
    if (retry) {
      if (entry.update === undefined || entry.state === "retry") return;
      await this.store.append([{ ...entry, state: "retry" }]);
      return;
    }
    if (entry.state === "handled") return;
    await this.store.append([{ draft_id: key(updateId), update_id: updateId, state: "handled" }]);
    this.handledCount++;
    if (this.handledCount >= this.pruneAt) this.prune();
  }

  /**
   * Notes that Telegram answered a getUpdates at `at` (ms): written durably
   * at most every POLLED_EVERY_MS, and at close. A failed write is logged.
   */
  async notePolled(at: number): Promise<void> {
    this.polledNoted = at;
    if (this.polledWritten !== null && at - this.polledWritten < POLLED_EVERY_MS) return;
    await this.writePolled(at);
  }

  async close(): Promise<void> {
    await Promise.allSettled([...this.answering.values()]);
    if (this.polledNoted !== null && this.polledNoted !== this.polledWritten) await this.writePolled(this.polledNoted);
    await this.store.close();
  }

  private async writePolled(at: number): Promise<void> {
    this.polledWritten = at;
    await this.store
      .append([{ draft_id: POLLED, update_id: 0, state: "handled", polled_at: new Date(at).toISOString() }])
      .catch((err: unknown) =>
        this.log.warn({ err }, "could not journal when Telegram last answered; an outage may be measured from earlier"),
      );
  }

  /** Rewrites the journal without all but the last KEEP_HANDLED handled updates (first-seen order). */
  private prune(): void {
    if (this.pruning) return;
    this.pruning = true;
    const handled = [...this.store.latest.values()].filter((e) => e.state === "handled" && e.draft_id !== POLLED);
    const drop = new Set(handled.slice(0, handled.length - KEEP_HANDLED).map((e) => e.draft_id));
    void this.store
      .forget(drop)
      .then(
        () => {
          this.handledCount -= drop.size;
          this.pruneAt = PRUNE_AT;
        },
        (err: unknown) => {
          this.pruneAt = this.handledCount + PRUNE_AT;
          this.log.warn({ err }, "could not prune the update journal; it stays longer for now");
        },
      )
      .finally(() => (this.pruning = false));
  }

  private stateOf(updateId: number): State | undefined {
    return this.store.latest.get(key(updateId))?.state;
  }
}

function key(updateId: number): string {
  return `u${updateId}`;
}
