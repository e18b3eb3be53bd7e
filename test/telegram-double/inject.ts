import type { Message, MessageEntity, Update } from "grammy/types";
import { embedded } from "./methods/send.js";
import type { DoubleState } from "./methods/state.js";
import { toReactions } from "./reactions.js";
import type { CallbackInjection, MessageInjection, ReactionInjection } from "./types.js";
import { unixNow } from "./world.js";

/** The result of an injection: the update, and whether allowed_updates let it into the queue. */
export interface Injected {
  update: Update;
  /** False when the remembered allowed_updates excluded it: the bot will never see it. */
  queued: boolean;
}

let callbackCounter = 0;

/** A message_reaction update: a user (or an anonymous admin as `actorChat`) changed their reaction. */
export function injectReaction(state: DoubleState, o: ReactionInjection): Injected {
  const chat = state.world.requireChat(o.chatId);
  if ((o.userId === undefined) === (o.actorChat === undefined))
    throw new Error("telegram double: give exactly one of userId and actorChat");
  const actor =
    o.userId !== undefined
      ? { user: state.world.userObject(o.userId) }
      : { actor_chat: state.world.chatObject(state.world.requireChat(o.actorChat!)) };
  return state.updates.create({
    message_reaction: {
      chat: state.world.chatObject(chat),
      message_id: o.messageId,
      ...actor,
      date: unixNow(),
      old_reaction: toReactions(o.oldEmojis ?? []),
      new_reaction: toReactions(o.newEmojis ?? []),
    },
  });
}

/**
 * A callback_query update: a user pressed a button. `message` is the stored
 * message in its current state, or an InaccessibleMessage (date 0) when the
 * double does not know it. The query id can be answered once.
 */
export function injectCallback(state: DoubleState, o: CallbackInjection): Injected {
  const chat = state.world.requireChat(o.chatId);
  const stored = chat.messages.get(o.messageId);
  const message = stored ?? { chat: state.world.chatObject(chat), message_id: o.messageId, date: 0 as const };
  callbackCounter += 1;
  const id = String(4_611_686_018_427_387_904n + BigInt(o.userId) * 1_000_000n + BigInt(callbackCounter));
  state.openCallbacks.add(id);
  return state.updates.create({
    callback_query: {
      id,
      from: state.world.userObject(o.userId),
      message,
      chat_instance: String(-(8_000_000_000_000_000_000n + BigInt(Math.abs(o.chatId)))),
      data: o.data,
    },
  });
}

function commandEntities(text: string): MessageEntity[] {
  const command = /^\/[A-Za-z0-9_]+(@[A-Za-z0-9_]+)?/.exec(text);
  return command ? [{ type: "bot_command", offset: 0, length: command[0].length }] : [];
}

/**
 * A message update: a user wrote in a chat, maybe replying to a stored message
 * (which then appears as reply_to_message). The message takes the chat's next
 * message_id and is stored, so later replies and callbacks can refer to it.
 */
export function injectMessage(state: DoubleState, o: MessageInjection): Injected {
  const chat = state.world.requireChat(o.chatId);
  if (o.username !== undefined || o.firstName !== undefined) {
    state.world.addUser({
      id: o.userId,
      ...(o.firstName ? { firstName: o.firstName } : {}),
      ...(o.username ? { username: o.username } : {}),
    });
  }
  const replyTo = o.replyToMessageId === undefined ? undefined : chat.messages.get(o.replyToMessageId);
  // A reply is in its target's topic, as in the app; a message elsewhere names its topic with `threadId`.
  const threadId = o.threadId ?? (replyTo?.is_topic_message ? replyTo.message_thread_id : undefined);
  const entities = commandEntities(o.text);
  const message = {
    message_id: state.world.nextMessageId(chat),
    from: state.world.userObject(o.userId),
    chat: state.world.chatObject(chat),
    date: unixNow(),
    ...(threadId !== undefined ? { message_thread_id: threadId, ...(state.world.hasTopics(chat) ? { is_topic_message: true } : {}) } : {}),
    ...(replyTo ? { reply_to_message: embedded(replyTo) } : {}),
    text: o.text,
    ...(entities.length ? { entities } : {}),
  } as Message;
  chat.messages.set(message.message_id, message);
  return state.updates.create({ message } as Omit<Update, "update_id">);
}
