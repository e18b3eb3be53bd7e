/**
 * Raw update injection: queues an update of any shape (malformed but JSON),
 * for robustness tests of a bot fed through the double. The double's own
 * injectors build well-formed updates only; this one borrows a slot from
 * `injectReaction` (which stores nothing besides the queued update) and then
 * replaces that update's body in place, keeping the update_id the queue
 * handed out, so offsets and confirmation work as for any other update.
 * Existing behaviour of the double is unchanged.
 */
import type { Update } from "grammy/types";
import type { TelegramDouble } from "./index.js";

/** Where the borrowed slot is taken: any chat and user the double knows. */
export interface RawSlot {
  readonly chatId: number;
  readonly userId: number;
}

/**
 * Queues `{ update_id, ...body }` exactly as given (the body is JSON-encoded
 * on delivery, so it must be JSON-serialisable). Call it once the bot has
 * asked for `message_reaction` updates (after its first getUpdates), or the
 * slot is filtered out and this throws. Returns the queued update.
 */
export function injectRawUpdate(double: TelegramDouble, slot: RawSlot, body: Record<string, unknown>): Update {
  const { update, queued } = double.injectReaction({ chatId: slot.chatId, messageId: 1, userId: slot.userId, newEmojis: [] });
  if (!queued)
    throw new Error("telegram double: the bot has not asked for message_reaction updates yet; inject raw updates after it polls");
  if (!double.pendingUpdates().includes(update))
    throw new Error("telegram double: the queued update is not the one returned; raw injection cannot work");
  const target = update as unknown as Record<string, unknown>;
  for (const key of Object.keys(target)) if (key !== "update_id") delete target[key];
  for (const key of Object.keys(body)) {
    // defineProperty, so a "__proto__" key stays an own JSON key instead of setting the prototype.
    Object.defineProperty(target, key, { value: body[key], enumerable: true, writable: true, configurable: true });
  }
  return update;
}
