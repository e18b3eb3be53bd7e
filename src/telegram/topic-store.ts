import { z } from "zod";
import { ROLES, type Role } from "../drafts/record.js";
import { errCode, errMessage, readNoFollow, writeFileDurably } from "../store/fs-util.js";

/** At most this many notices are remembered as told (the oldest go first). */
const TOLD_MAX = 50;
/** At most this many deleted topics are remembered (the oldest go first). */
const DELETED_MAX = 50;

const topicSchema = z.object({
  /** The topic's message_thread_id, as createForumTopic answered. */
  thread_id: z.number().int().positive(),
  name: z.string(),
});
/** A role's topic in the review chat. */
export type RoleTopic = z.infer<typeof topicSchema>;

const fileSchema = z.object({
  version: z.literal(1),
  /** The review chat the topics are in: another REVIEW_CHAT_ID starts afresh. */
  chat_id: z.string(),
  topics: z.partialRecord(z.enum(ROLES), topicSchema),
  /** Keys of the notices the review chat was told (each once, also across restarts). */
  told: z.array(z.string()).max(TOLD_MAX),
  /** Role topics Telegram said were deleted (their thread ids, the last DELETED_MAX): messages about their posts go to the main thread. */
  deleted: z
    .array(z.object({ thread_id: z.number().int().positive(), role: z.enum(ROLES) }))
    .max(DELETED_MAX)
    .default([]),
});
type TopicFile = z.infer<typeof fileSchema>;

/** What opening the file found: the store, and why its content was not used (null: it was, or there was none). */
export interface OpenedTopics {
  readonly store: TopicStore;
  readonly damaged: string | null;
}

/**
 * The review chat's topics, one per role, kept in HARNESS_DIR/review_topics.json
 * so they are made once: written whole, atomically and fsync'd, mode 0600, and
 * read back with zod. A damaged file is not fatal: the topics are made again
 * (and the caller tells the owner). The notices told about topics are kept here
 * too, so each is said once.
 */
export class TopicStore {
  private constructor(
    private readonly path: string | null,
    private file: TopicFile,
  ) {}

  /** Reads the file for `chatId` (absent, or of another chat: empty). `path` null: in memory only. */
  static async open(path: string | null, chatId: string): Promise<OpenedTopics> {
    const empty: TopicFile = { version: 1, chat_id: chatId, topics: {}, told: [], deleted: [] };
    if (path === null) return { store: new TopicStore(null, empty), damaged: null };
    let text: string;
    try {
      text = await readNoFollow(path);
    } catch (err) {
      if (errCode(err) === "ENOENT") return { store: new TopicStore(path, empty), damaged: null };
      return { store: new TopicStore(path, empty), damaged: errMessage(err) };
    }
    const parsed = safeJson(text);
    const file = parsed === undefined ? undefined : fileSchema.safeParse(parsed);
    if (!file?.success) return { store: new TopicStore(path, empty), damaged: file ? z.prettifyError(file.error) : "not JSON" };
    return { store: new TopicStore(path, file.data.chat_id === chatId ? file.data : empty), damaged: null };
  }

  /** The role's topic, if one was made. */
  topicOf(role: Role): RoleTopic | null {
    return this.file.topics[role] ?? null;
  }

  /** The role whose topic has this thread id, if any. */
  roleOf(threadId: number): Role | null {
    return ROLES.find((role) => this.file.topics[role]?.thread_id === threadId) ?? null;
  }

  /** Records the role's topic (null: it is gone), durably. */
  async setTopic(role: Role, topic: RoleTopic | null): Promise<void> {
    const topics = { ...this.file.topics };
    if (topic === null) delete topics[role];
    else topics[role] = topic;
    await this.write({ ...this.file, topics });
  }

  /** The role's topic `threadId` was deleted (Telegram said so): forgotten as its topic, remembered as deleted, durably. */
  async lose(role: Role, threadId: number): Promise<void> {
    const topics = { ...this.file.topics };
    if (topics[role]?.thread_id === threadId) delete topics[role];
    const deleted = [...this.file.deleted.filter((d) => d.thread_id !== threadId), { thread_id: threadId, role }].slice(-DELETED_MAX);
    await this.write({ ...this.file, topics, deleted });
  }

  /** The role topics known to be deleted, oldest first. */
  deletedTopics(): readonly { readonly thread_id: number; readonly role: Role }[] {
    return this.file.deleted;
  }

  /** True when the thread was a role's topic that Telegram said was deleted. */
  wasDeleted(threadId: number): boolean {
    return this.file.deleted.some((d) => d.thread_id === threadId);
  }

  /** True once the notice with this key was told. */
  wasTold(key: string): boolean {
    return this.file.told.includes(key);
  }

  /** Records that the notice with this key was told, durably. */
  async told(key: string): Promise<void> {
    if (this.wasTold(key)) return;
    await this.write({ ...this.file, told: [...this.file.told, key].slice(-TOLD_MAX) });
  }

  /** Forgets the told notices whose key starts with `prefix` (what they said no longer holds), durably. */
  async untell(prefix: string): Promise<void> {
    const told = this.file.told.filter((key) => !key.startsWith(prefix));
    if (told.length !== this.file.told.length) await this.write({ ...this.file, told });
  }

  /** Writes `file` whole; it is what this run uses even when the write fails (the caller hears of that). */
  private async write(file: TopicFile): Promise<void> {
    this.file = file;
    if (this.path !== null) await writeFileDurably(this.path, `${JSON.stringify(file)}\n`, { mode: 0o600 });
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
