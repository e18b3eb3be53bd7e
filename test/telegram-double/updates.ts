import type { Update } from "grammy/types";
import { ApiError } from "./errors.js";

/** The update types Telegram leaves out until a bot asks for them by name. */
export const NOT_DELIVERED_BY_DEFAULT: readonly string[] = ["message_reaction", "message_reaction_count", "chat_member"];

/** The wire arguments of getUpdates, already parsed. */
export interface PollRequest {
  offset?: number;
  limit?: number;
  /** Seconds to hold the request when nothing is pending; 0 answers at once. */
  timeoutSeconds?: number;
  /** Present: replaces the remembered list (an empty list means the default). */
  allowedUpdates?: string[];
}

interface Waiter {
  limit: number;
  resolve(updates: Update[]): void;
  reject(error: unknown): void;
}

/**
 * The bot's update queue, as Telegram keeps it: updates wait until a
 * getUpdates with a higher offset confirms them, then are gone for good.
 * The allowed_updates list is remembered between calls and applies when an
 * update is created, so a reaction that happens before the bot asks for
 * reactions is never delivered. One long poll at a time: a new one terminates
 * the held one with 409.
 */
export class UpdateQueue {
  private pending: Update[] = [];
  private readonly filtered: Update[] = [];
  private readonly delivered = new Set<number>();
  private allowed: string[] | undefined;
  private nextId: number;
  private waiter: Waiter | undefined;
  private wakeScheduled = false;
  /** Set by setWebhook; getUpdates is refused while it is. */
  webhookUrl: string | undefined;

  constructor(firstUpdateId: number) {
    this.nextId = firstUpdateId;
  }

  /** The allowed_updates list last given, or undefined if never given (the default applies). */
  get allowedUpdates(): readonly string[] | undefined {
    return this.allowed;
  }

  /** Updates created but not yet confirmed. */
  unconfirmed(): readonly Update[] {
    return this.pending;
  }

  /** Updates Telegram would never deliver because allowed_updates excluded them when they happened. */
  excluded(): readonly Update[] {
    return this.filtered;
  }

  /** The update_id of every update some getUpdates answer carried, in the order first delivered. */
  deliveredIds(): readonly number[] {
    return [...this.delivered];
  }

  /** Creates an update with the next update_id; queued only if its type is allowed now. */
  create(body: Omit<Update, "update_id">): { update: Update; queued: boolean } {
    const update = { update_id: this.nextId++, ...body } as Update;
    const type = Object.keys(body)[0] ?? "";
    const queued = this.isAllowed(type);
    if (queued) {
      this.pending.push(update);
      this.scheduleWake();
    } else this.filtered.push(update);
    return { update, queued };
  }

  /** Sets the remembered allowed_updates (setWebhook and getUpdates both do). */
  setAllowed(list: string[]): void {
    this.allowed = [...list];
  }

  /** Forgets every pending update (deleteWebhook with drop_pending_updates). */
  dropPending(): void {
    this.pending = [];
  }

  /**
   * Answers getUpdates: confirms below `offset`, then returns what is pending
   * at once, or holds until something arrives or the timeout passes. A client
   * that goes away (`signal`) loses nothing: updates leave only by confirmation.
   */
  poll(request: PollRequest, signal: AbortSignal): Promise<Update[]> {
    if (this.webhookUrl) {
      throw new ApiError(
        409,
        "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first",
      );
    }
    if (request.allowedUpdates !== undefined) this.setAllowed(request.allowedUpdates);
    this.confirm(request.offset);
    this.terminateHeld();
    const limit = Math.min(100, Math.max(1, request.limit ?? 100));
    const timeoutMs = Math.max(0, request.timeoutSeconds ?? 0) * 1000;
    if (this.pending.length > 0 || timeoutMs === 0) return Promise.resolve(this.deliver(this.pending.slice(0, limit)));
    return this.hold(limit, timeoutMs, signal);
  }

  /** Ends a held poll with an empty answer (used on stop). */
  releaseHeld(): void {
    const held = this.waiter;
    this.waiter = undefined;
    held?.resolve([]);
  }

  private hold(limit: number, timeoutMs: number, signal: AbortSignal): Promise<Update[]> {
    return new Promise<Update[]>((resolve, reject) => {
      const finish = (): void => {
        clearTimeout(timer);
        signal.removeEventListener("abort", onAbort);
        if (this.waiter === waiter) this.waiter = undefined;
      };
      const waiter: Waiter = {
        limit,
        resolve: (updates) => (finish(), resolve(updates)),
        reject: (error) => (finish(), reject(error)),
      };
      const onAbort = (): void => waiter.reject(signal.reason);
      const timer = setTimeout(() => waiter.resolve([]), timeoutMs);
      signal.addEventListener("abort", onAbort);
      this.waiter = waiter;
    });
  }

  private deliver(updates: Update[]): Update[] {
    for (const u of updates) this.delivered.add(u.update_id);
    return updates;
  }

  private confirm(offset: number | undefined): void {
    if (offset === undefined || offset === 0) return;
    if (offset < 0) {
      this.pending = this.pending.slice(offset);
      return;
    }
    this.pending = this.pending.filter((u) => u.update_id >= offset);
  }

  private terminateHeld(): void {
    const held = this.waiter;
    this.waiter = undefined;
    held?.reject(new ApiError(409, "Conflict: terminated by other getUpdates request; make sure that only one bot instance is running"));
  }

  private isAllowed(type: string): boolean {
    if (this.allowed === undefined || this.allowed.length === 0) return !NOT_DELIVERED_BY_DEFAULT.includes(type);
    return this.allowed.includes(type);
  }

  // Updates created in the same tick go out in one answer, as Telegram batches them.
  private scheduleWake(): void {
    if (this.wakeScheduled) return;
    this.wakeScheduled = true;
    setImmediate(() => {
      this.wakeScheduled = false;
      const held = this.waiter;
      if (held && this.pending.length > 0) held.resolve(this.deliver(this.pending.slice(0, held.limit)));
    });
  }
}
