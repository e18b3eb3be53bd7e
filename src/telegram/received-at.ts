import type { Context, MiddlewareFn } from "grammy";
import type { Update } from "grammy/types";
import type { Clock } from "../clock/clock.js";

/** When each update entered the bot's middleware, on the daemon's clock. */
const received = new WeakMap<Update, number>();

/**
 * The bot's first middleware: stamps when the daemon received each update,
 * before it waits behind earlier updates about the same message (the runner's
 * sequentialize). A 👍 that waited is judged against a halt seen since it
 * came, not since it was applied: a halt after the tap stops it.
 */
export function stampReceived(clock: Clock): MiddlewareFn<Context> {
  return (ctx, next) => {
    if (!received.has(ctx.update)) received.set(ctx.update, clock.now());
    return next();
  };
}

/** `{ receivedAt }` for a decision made by `update`, or nothing when it was not stamped. */
export function receivedAtOf(update: Update): { receivedAt?: number } {
  const at = received.get(update);
  return at === undefined ? {} : { receivedAt: at };
}
