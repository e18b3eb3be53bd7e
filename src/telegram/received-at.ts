import type { Context, MiddlewareFn } from "grammy";
import type { Update } from "grammy/types";
import type { Clock } from "../clock/clock.js";

/** When each update entered the bot's middleware, on the daemon's clock. */
const received = new WeakMap<Update, number>();

/**
 * The bot's first middleware: stamps when the daemon received each update,
 * before it waits behind earlier updates about the same message (the runner's
 * sequentialize). A 👍 that waited is judged against a halt seen since it
 * came, not since it was applied: a halt after the tap stops it. An update
 * that waited while the daemon was down is stamped with when it was made
 * (`heldAt`, see madeWhileDown): a halt that came and went meanwhile, from the
 * CLI too, is after it, however late the update is applied.
 */
export function stampReceived(clock: Clock, heldAt?: (update: Update) => number | undefined): MiddlewareFn<Context> {
  return (ctx, next) => {
    if (!received.has(ctx.update)) received.set(ctx.update, heldAt?.(ctx.update) ?? clock.now());
    return next();
  };
}

/**
 * When an update that waited while the daemon was down was made, as far as the
 * daemon can know: Telegram's `date` for a reaction or a message (a reply); a
 * button tap carries none, so no later than `lastSeen`, the last time the
 * daemon saw Telegram answer before it stopped (earlier than the tap: a halt
 * since then voids it, failing closed). Undefined when neither is known.
 */
export function madeWhileDown(update: Update, lastSeen: number | null): number | undefined {
  const date = update.message_reaction?.date ?? update.message?.date ?? update.edited_message?.date;
  if (date !== undefined) return date * 1000;
  return lastSeen ?? undefined;
}

/** `{ receivedAt }` for a decision made by `update`, or nothing when it was not stamped. */
export function receivedAtOf(update: Update): { receivedAt?: number } {
  const at = received.get(update);
  return at === undefined ? {} : { receivedAt: at };
}
