import type { Chat, ForumTopic, Message, User, UserFromGetMe } from "grammy/types";
import { badRequest, migrated } from "./errors.js";
import type { ChatConfig, UserConfig } from "./types.js";

/** A chat with its per-chat message_id counter and stored messages. */
export interface ChatState {
  config: ChatConfig;
  /** The last message_id used in this chat (sent by the bot or injected). */
  lastMessageId: number;
  messages: Map<number, Message>;
  /** Topics made by createForumTopic (a forum, or a private chat of a bot with topics), by message_thread_id. */
  forumTopics: Map<number, ForumTopic>;
}

/**
 * What Telegram knows: the bot, the chats, the users and every message by
 * (chat, message_id). Message ids count from 1 in each chat and are shared by
 * the bot's messages and the users' injected ones, as in a real chat.
 */
export class World {
  readonly chats = new Map<number, ChatState>();
  readonly users = new Map<number, UserConfig>();

  constructor(readonly bot: UserFromGetMe) {}

  /** Adds a chat, or reconfigures a known one keeping its messages. */
  addChat(config: ChatConfig): void {
    const known = this.chats.get(config.id);
    if (known) known.config = { ...known.config, ...config };
    else this.chats.set(config.id, { config: { ...config }, lastMessageId: 0, messages: new Map(), forumTopics: new Map() });
  }

  /** Adds or renames a user. */
  addUser(user: UserConfig): void {
    this.users.set(user.id, { ...this.users.get(user.id), ...user });
  }

  /** The chat a `chat_id` names (id or @username); "chat not found" otherwise; a migrated group's 400. */
  resolveChat(chatId: number | string): ChatState {
    if (typeof chatId === "number") {
      const chat = this.chats.get(chatId);
      if (chat?.config.migratedTo !== undefined) throw migrated(chat.config.migratedTo);
      if (chat) return chat;
    } else {
      const name = chatId.replace(/^@/, "").toLowerCase();
      for (const chat of this.chats.values()) if (chat.config.username?.toLowerCase() === name) return chat;
    }
    throw badRequest("chat not found");
  }

  /** A chat the test names; a test bug (not a Telegram answer) if unknown. */
  requireChat(chatId: number): ChatState {
    const chat = this.chats.get(chatId);
    if (!chat) throw new Error(`telegram double: chat ${chatId} was never added (addChat)`);
    return chat;
  }

  /** The Chat object Telegram embeds in messages and updates. */
  chatObject(chat: ChatState): Chat {
    const c = chat.config;
    if (c.type === "private") {
      const user = this.users.get(c.id);
      const firstName = c.firstName ?? user?.firstName ?? `User${c.id}`;
      const username = c.username ?? user?.username;
      return {
        id: c.id,
        type: "private",
        first_name: firstName,
        ...(c.lastName ? { last_name: c.lastName } : {}),
        ...(username ? { username } : {}),
      };
    }
    const title = c.title ?? `Chat ${c.id}`;
    if (c.type === "group") return { id: c.id, type: "group", title };
    if (c.type === "channel") return { id: c.id, type: "channel", title, ...(c.username ? { username: c.username } : {}) };
    return {
      id: c.id,
      type: "supergroup",
      title,
      ...(c.username ? { username: c.username } : {}),
      ...(c.isForum ? { is_forum: true } : {}),
    };
  }

  /** The User object of a human, from `addUser`, a private chat, or a default name. */
  userObject(userId: number): User {
    const user = this.users.get(userId);
    const chat = this.chats.get(userId)?.config;
    const firstName = user?.firstName ?? chat?.firstName ?? `User${userId}`;
    const username = user?.username ?? chat?.username;
    return { id: userId, is_bot: false, first_name: firstName, ...(username ? { username } : {}) };
  }

  /** The bot as it appears in `from` of its own messages. */
  botUser(): User {
    const { id, first_name, username } = this.bot;
    return { id, is_bot: true, first_name, username };
  }

  /** Takes the next message_id of a chat. */
  nextMessageId(chat: ChatState): number {
    chat.lastMessageId += 1;
    return chat.lastMessageId;
  }

  /**
   * True when the chat has topics: a forum supergroup, or a private chat with a
   * bot whose getMe says `has_topics_enabled` (Bot API 9.3).
   */
  hasTopics(chat: ChatState): boolean {
    if (chat.config.type === "private") return this.bot.has_topics_enabled === true;
    return chat.config.type === "supergroup" && chat.config.isForum === true;
  }

  /** A stored message, or undefined. */
  message(chatId: number, messageId: number): Message | undefined {
    return this.chats.get(chatId)?.messages.get(messageId);
  }
}

/** Unix time in whole seconds, as Telegram's `date` fields are. */
export function unixNow(): number {
  return Math.floor(Date.now() / 1000);
}
