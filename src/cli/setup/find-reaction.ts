import type { Update } from "grammy/types";
import type { UpdateSource, UpdateType, WaitOptions } from "./find-start.js";

/** The reaction that proved reactions reach the bot. */
export interface FoundReaction {
  readonly emoji: string;
  readonly updateId: number;
}

/** True for a reaction added to message `messageId` in chat `chatId`. */
function isReactionOn(update: Update, chatId: number, messageId: number): boolean {
  const r = update.message_reaction;
  return r !== undefined && r.chat.id === chatId && r.message_id === messageId && r.new_reaction.length > 0;
}

/**
 * Long-polls getUpdates (with the daemon's update types, so Telegram keeps
 * them) until a reaction on setup's hello arrives or the deadline passes.
 * Updates before it are confirmed as it goes; resolves null on timeout.
 * Telegram documents reactions as delivered to bots that are administrators,
 * and users report that in a private chat with a bot they never arrive: a
 * timeout here is that, made visible.
 */
export async function waitForReaction(
  api: UpdateSource,
  target: { readonly chatId: number; readonly messageId: number },
  allowedUpdates: readonly UpdateType[],
  options: WaitOptions,
): Promise<FoundReaction | null> {
  let offset: number | undefined;
  while (options.now() < options.deadlineMs) {
    const seconds = Math.max(1, Math.min(options.pollSeconds ?? 25, Math.ceil((options.deadlineMs - options.now()) / 1000)));
    const updates = await api.getUpdates({ offset, timeout: seconds, limit: 100, allowed_updates: allowedUpdates });
    for (const update of updates) {
      offset = update.update_id + 1;
      if (isReactionOn(update, target.chatId, target.messageId)) {
        const first = update.message_reaction!.new_reaction[0]!;
        return { emoji: first.type === "emoji" ? first.emoji : first.type, updateId: update.update_id };
      }
    }
  }
  return null;
}
