import type { Message, Update } from "grammy/types";

/** An update type, as allowed_updates names it. */
export type UpdateType = Exclude<keyof Update, "update_id">;

/** The part of grammY's Api that waiting needs (a test passes a plain object). */
export interface UpdateSource {
  getUpdates(other: { offset?: number; timeout?: number; limit?: number; allowed_updates?: readonly UpdateType[] }): Promise<Update[]>;
}

/** The /start that names the review chat and its owner. */
export interface FoundStart {
  readonly message: Message;
  readonly updateId: number;
}

/** Telegram's stand-in user for an anonymous group admin. */
export const ANONYMOUS_ADMIN_ID = 1_087_968_824;

/** True for `/start` or `/start@<this bot>`, with or without a payload. */
export function isStart(message: Message | undefined, botUsername: string): message is Message {
  const m = /^\/start(?:@(\w+))?(?:\s|$)/i.exec(message?.text ?? "");
  return m !== null && (m[1] === undefined || m[1].toLowerCase() === botUsername.toLowerCase());
}

/** How long to wait, and how to tell the time (a test passes its own). */
export interface WaitOptions {
  readonly deadlineMs: number;
  readonly now: () => number;
  /** Longest single long poll, in seconds; default 25. */
  readonly pollSeconds?: number;
}

/**
 * Long-polls getUpdates (messages only) until a /start for this bot arrives
 * or the deadline passes. Updates before the /start are confirmed as it goes
 * (setup consumed them); those after it are left for the daemon. Resolves
 * null on timeout. A 409 (someone else polls) rejects: the caller explains.
 */
export async function waitForStart(api: UpdateSource, botUsername: string, options: WaitOptions): Promise<FoundStart | null> {
  let offset: number | undefined;
  while (options.now() < options.deadlineMs) {
    const seconds = Math.max(1, Math.min(options.pollSeconds ?? 25, Math.ceil((options.deadlineMs - options.now()) / 1000)));
    const updates = await api.getUpdates({ offset, timeout: seconds, limit: 100, allowed_updates: ["message"] });
    for (const update of updates) {
      offset = update.update_id + 1;
      if (isStart(update.message, botUsername)) return { message: update.message, updateId: update.update_id };
    }
  }
  return null;
}

/**
 * Confirms every update up to the /start (a getUpdates with a higher offset),
 * so the daemon never sees it, and gives Telegram back the daemon's list of
 * update types (waiting asked for messages only, and Telegram remembers the
 * list). With `updateId` null nothing more is confirmed: only the list is restored.
 */
export async function confirmUpTo(api: UpdateSource, updateId: number | null, allowedUpdates: readonly UpdateType[]): Promise<void> {
  await api.getUpdates({ ...(updateId === null ? {} : { offset: updateId + 1 }), timeout: 0, limit: 1, allowed_updates: allowedUpdates });
}
