import { z } from "zod";
import { errCode, readNoFollow, writeFileDurably } from "../store/fs-util.js";

/** How long what a person wrote is kept: twice Telegram's 24 h window, so a post can still say "wrote 30 h ago". */
export const CHAT_LOG_KEEP_MS = 48 * 3_600_000;
/** At most this many chats are kept (the least recently active go first). */
export const CHAT_LOG_MAX_CHATS = 200;
/** At most this many of a chat's last incoming messages are kept. */
export const CHAT_LOG_MAX_MESSAGES = 5;

const messageSchema = z.object({
  message_id: z.number().int(),
  /** When Telegram dated it (epoch ms). */
  at: z.number(),
  author: z.string(),
  /** The text as received: data, never parsed; shown only inside a quote entity. */
  text: z.string().max(4096),
});
/** One incoming message as the log keeps it. */
export type LoggedMessage = z.infer<typeof messageSchema>;

const chatSchema = z.object({
  chat_id: z.number().int(),
  /** The person's name as their last message gave it. */
  name: z.string(),
  /** Their @username (without @) as their last message gave it; null: none (older files: null). */
  username: z.string().nullable().default(null),
  /** When they last wrote (epoch ms): the evidence for Telegram's 24 h rule. */
  last_incoming: z.number(),
  messages: z.array(messageSchema).max(CHAT_LOG_MAX_MESSAGES),
});
/** One private chat of the owner's account, as the log keeps it. */
export type LoggedChat = z.infer<typeof chatSchema>;

const fileSchema = z.object({ version: z.literal(1), chats: z.array(chatSchema).max(CHAT_LOG_MAX_CHATS) });

/**
 * What people wrote to the owner (business_message updates), per private
 * chat: when they last wrote and their last few messages, kept 48 h at most
 * and bounded in count, in memory and in one small HARNESS_DIR file written
 * whole, atomically and fsync'd. It is the evidence for the 24 h rule and the
 * quote the reviewer sees; nothing in it is ever read as a command.
 */
export class ChatLog {
  private readonly chats = new Map<number, LoggedChat>();

  private constructor(
    private readonly path: string,
    private readonly now: () => number,
  ) {}

  /** Reads the file, dropping what is older than 48 h (absent or unreadable: empty). */
  static async open(path: string, now: () => number, log: { warn(obj: object, msg: string): void }): Promise<ChatLog> {
    const chatLog = new ChatLog(path, now);
    try {
      const file = fileSchema.parse(JSON.parse(await readNoFollow(path)));
      for (const chat of file.chats) chatLog.chats.set(chat.chat_id, chat);
      chatLog.prune();
    } catch (err) {
      if (errCode(err) !== "ENOENT") log.warn({ err, path }, "the log of what people wrote is unreadable; starting it afresh");
    }
    return chatLog;
  }

  /**
   * Records an incoming message (once per message id) and writes the log; false when it was known or too old.
   * `username`: the author's @username as the message gave it (kept with their name).
   */
  async record(chatId: number, message: LoggedMessage, username: string | null = null): Promise<boolean> {
    if (message.at < this.now() - CHAT_LOG_KEEP_MS) return false;
    const chat = this.chats.get(chatId) ?? { chat_id: chatId, name: message.author, username, last_incoming: 0, messages: [] };
    if (chat.messages.some((m) => m.message_id === message.message_id)) return false;
    // Older than every message kept in a full chat: seen before (a redelivery), and kept no longer.
    if (chat.messages.length >= CHAT_LOG_MAX_MESSAGES && message.message_id < chat.messages[0]!.message_id) return false;
    const messages = [...chat.messages, { ...message, text: message.text.slice(0, 4096) }]
      .sort((a, b) => a.message_id - b.message_id)
      .slice(-CHAT_LOG_MAX_MESSAGES);
    this.chats.delete(chatId);
    const latest = message.at >= chat.last_incoming;
    this.chats.set(chatId, {
      chat_id: chatId,
      name: message.author,
      username: latest ? username : chat.username,
      last_incoming: Math.max(chat.last_incoming, message.at),
      messages,
    });
    this.prune();
    await this.write();
    return true;
  }

  /** The chat with this person, or undefined (nothing in the last 48 h). */
  chat(chatId: number): LoggedChat | undefined {
    const chat = this.chats.get(chatId);
    return chat && chat.last_incoming >= this.now() - CHAT_LOG_KEEP_MS ? chat : undefined;
  }

  /** A message of that chat the log still has. */
  message(chatId: number, messageId: number): LoggedMessage | undefined {
    return this.chat(chatId)?.messages.find((m) => m.message_id === messageId);
  }

  /** How many chats had an incoming message within `windowMs` of `now`. */
  openChats(now: number, windowMs: number): number {
    let n = 0;
    for (const chat of this.chats.values()) if (now - chat.last_incoming < windowMs) n++;
    return n;
  }

  /** How many chats are kept. */
  get size(): number {
    return this.chats.size;
  }

  private prune(): void {
    const oldest = this.now() - CHAT_LOG_KEEP_MS;
    for (const [id, chat] of this.chats) {
      const messages = chat.messages.filter((m) => m.at >= oldest);
      if (chat.last_incoming < oldest || messages.length === 0) this.chats.delete(id);
      else if (messages.length !== chat.messages.length) this.chats.set(id, { ...chat, messages });
    }
    // Map order is insertion order and record() re-inserts the chat it touches: the first ones are the least recent.
    for (const id of this.chats.keys()) {
      if (this.chats.size <= CHAT_LOG_MAX_CHATS) break;
      this.chats.delete(id);
    }
  }

  private async write(): Promise<void> {
    await writeFileDurably(this.path, `${JSON.stringify({ version: 1, chats: [...this.chats.values()] })}\n`, { mode: 0o600 });
  }
}
