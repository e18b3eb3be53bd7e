import type { ForumTopic, Message } from "grammy/types";
import { badRequest } from "./errors.js";
import { chatIdParam, optInt, optString, type Params } from "./params.js";
import type { DoubleState, Handler } from "./methods/state.js";
import { checkNotBlocked } from "./methods/send.js";
import { type ChatState, type World, unixNow } from "./world.js";

/**
 * Forum topics, in forum supergroups and (Bot API 9.3/9.4) in private chats
 * of a bot whose getMe says `has_topics_enabled`: createForumTopic,
 * deleteForumTopic, the thread a message goes to, and the rule that a reply
 * stays in its target's topic.
 */

/** The icon colours createForumTopic accepts (@grammyjs/types 5.0.0); the first is Telegram's default. */
export const TOPIC_ICON_COLORS = [0x6fb9f0, 0xffd67e, 0xcb86db, 0x8eee98, 0xff93b2, 0xfb6f5f] as const;

/** Telegram's answer for a thread id that names no topic (also a deleted one). */
export const THREAD_NOT_FOUND = "message thread not found";

/** True when `threadId` names a topic that exists in the chat (created, or configured with `topics`). */
function topicExists(chat: ChatState, threadId: number): boolean {
  return chat.forumTopics.has(threadId) || (chat.config.topics ?? []).includes(threadId);
}

/**
 * The message_thread_id a message is sent with, checked as Telegram does: in a
 * chat with topics it must name one (a deleted topic is "message thread not
 * found"); a forum that never had topics configured or created takes any id.
 * In a chat without topics the message does not carry it (see topicFields).
 */
export function threadFor(world: World, chat: ChatState, params: Params): number | undefined {
  const threadId = optInt(params, "message_thread_id");
  if (threadId === undefined) return undefined;
  const known = chat.forumTopics.size > 0 || chat.config.topics !== undefined;
  if (world.hasTopics(chat) && (chat.config.type === "private" || known)) {
    if (!topicExists(chat, threadId)) throw badRequest(THREAD_NOT_FOUND);
    return threadId;
  }
  if (chat.config.topics !== undefined && !chat.config.topics.includes(threadId)) throw badRequest(THREAD_NOT_FOUND);
  return threadId;
}

/**
 * The thread of a reply in a chat with topics. A reply stays in its target's
 * topic: in a forum supergroup a reply sent without message_thread_id goes
 * into the target's topic; in a private chat the message_thread_id must be the
 * target's (Telegram: allow_sending_without_reply is "always False for replies
 * in another ... forum topic"), otherwise the target is "not found".
 */
export function replyThread(world: World, chat: ChatState, threadId: number | undefined, target: Message | undefined): number | undefined {
  if (target === undefined || !world.hasTopics(chat)) return threadId;
  const targetThread = target.is_topic_message ? target.message_thread_id : undefined;
  if (threadId === undefined && chat.config.type !== "private") return targetThread;
  if (threadId !== targetThread) throw badRequest("message to be replied not found");
  return threadId;
}

/** The fields a message in `threadId` carries, in a chat with topics. */
export function topicFields(world: World, chat: ChatState, threadId: number | undefined): Partial<Message> {
  return threadId !== undefined && world.hasTopics(chat) ? { message_thread_id: threadId, is_topic_message: true } : {};
}

/** Refuses createForumTopic where the bot may not make one, in Telegram's words. */
function checkMayCreate(world: World, chat: ChatState): void {
  checkNotBlocked(chat);
  if (!world.hasTopics(chat)) throw badRequest("the chat is not a forum");
  const c = chat.config;
  if (c.type === "supergroup" && (!c.botIsAdmin || c.botCanManageTopics === false)) throw badRequest("not enough rights to create a topic");
}

/**
 * createForumTopic: in a forum supergroup (the bot an admin with
 * can_manage_topics) or a private chat with a bot that has topics enabled.
 * The topic's id is the message_id of its service message (forum_topic_created),
 * as in Telegram; returns the ForumTopic.
 */
export const createForumTopic: Handler = (params, state) => {
  const chat = state.world.resolveChat(chatIdParam(params));
  checkMayCreate(state.world, chat);
  const name = optString(params, "name") ?? "";
  if (name.trim() === "") throw badRequest("TOPIC_TITLE_EMPTY");
  if ([...name].length > 128) throw badRequest("TOPIC_TITLE_TOO_LONG");
  const color = optInt(params, "icon_color") ?? TOPIC_ICON_COLORS[0];
  if (!(TOPIC_ICON_COLORS as readonly number[]).includes(color)) throw badRequest("TOPIC_ICON_COLOR_INVALID");
  const threadId = state.world.nextMessageId(chat);
  const topic: ForumTopic = { message_thread_id: threadId, name, icon_color: color };
  chat.forumTopics.set(threadId, topic);
  const created = {
    message_id: threadId,
    message_thread_id: threadId,
    is_topic_message: true,
    from: state.world.botUser(),
    chat: state.world.chatObject(chat),
    date: unixNow(),
    forum_topic_created: { name, icon_color: color },
  } as unknown as Message;
  chat.messages.set(threadId, created);
  return topic;
};

/** deleteForumTopic: the topic and every message in it are gone; an unknown id is "message thread not found". */
export const deleteForumTopic: Handler = (params, state) => {
  const chat = state.world.resolveChat(chatIdParam(params));
  checkNotBlocked(chat);
  const threadId = optInt(params, "message_thread_id");
  if (threadId === undefined) throw badRequest("message thread identifier is not specified");
  if (!state.world.hasTopics(chat)) throw badRequest("the chat is not a forum");
  if (chat.config.type === "supergroup" && (!chat.config.botIsAdmin || chat.config.botCanManageTopics === false)) {
    throw badRequest("not enough rights to delete a topic");
  }
  if (!removeTopic(chat, threadId)) throw badRequest(THREAD_NOT_FOUND);
  return true;
};

/** Removes a topic and its messages (the bot's deleteForumTopic, or the user deleting it in the app); false when unknown. */
export function removeTopic(chat: ChatState, threadId: number): boolean {
  if (!topicExists(chat, threadId)) return false;
  chat.forumTopics.delete(threadId);
  if (chat.config.topics) chat.config.topics = chat.config.topics.filter((t) => t !== threadId);
  for (const [id, m] of chat.messages) if (m.is_topic_message && m.message_thread_id === threadId) chat.messages.delete(id);
  return true;
}

/** The topics of a chat, as createForumTopic made them, oldest first. */
export function topicsOf(state: DoubleState, chatId: number): ForumTopic[] {
  return [...state.world.requireChat(chatId).forumTopics.values()];
}
