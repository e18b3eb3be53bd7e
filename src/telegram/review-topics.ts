import { GrammyError, type Api } from "grammy";
import type { Role } from "../drafts/record.js";
import type { TopicStore } from "./topic-store.js";

/** The topic a message was written in (`is_topic_message`), or null: the chat's main thread. */
export function topicOf(message: { readonly is_topic_message?: boolean; readonly message_thread_id?: number } | undefined): number | null {
  return message?.is_topic_message === true && message.message_thread_id !== undefined ? message.message_thread_id : null;
}

/** Each role's topic icon (createForumTopic accepts six colours): blue, yellow, purple. */
const ROLE_ICON: Record<Role, 0x6fb9f0 | 0xffd67e | 0xcb86db> = { Scribe: 0x6fb9f0, CoS: 0xffd67e, Margot: 0xcb86db };

/** What the review chat's topics are configured and found to be. */
export interface TopicSettings {
  /** REVIEW_TOPICS, and whether it was set (a chat without topics is then said once). */
  readonly mode: "role" | "off";
  readonly explicit: boolean;
  /** REVIEW_THREAD_ID: when set, everything goes there. */
  readonly threadId: number | null;
}

/** Where the topics live and what the bot is. */
export interface ReviewTopicsOptions {
  readonly api: Pick<Api, "createForumTopic" | "getChat" | "getChatMember">;
  readonly chatId: string;
  readonly botId: number;
  /** getMe's `has_topics_enabled`: topics in private chats with the bot (@BotFather → Bot Settings). */
  readonly botHasTopics: boolean;
  readonly settings: TopicSettings;
  readonly store: TopicStore;
  /** Why the topics file could not be read (then the topics are made again, and the owner told); null: it could. */
  readonly damaged: string | null;
  readonly log: { info(obj: object, msg: string): void; warn(obj: object, msg: string): void; error(obj: object, msg: string): void };
}

/** Runs one Bot API call in the review chat's pace (the caller's turn). */
export type PacedCall = <T>(fn: () => Promise<T>) => Promise<T>;

/** A notice for the owner about the topics, said once: its key (kept as told) and its text. */
export interface TopicNotice {
  readonly key: string;
  readonly text: string;
}

/** Where a role's next post goes, and what the owner must be told first. */
export interface TopicChoice {
  /** The message_thread_id (null: the chat's main thread). */
  readonly thread: number | null;
  readonly notices: readonly TopicNotice[];
}

/** Whether the chat can have role topics: yes, no (why, and whether to say it), or not known yet (Telegram did not answer). */
type Availability = { readonly ok: true } | { readonly ok: false; readonly notice: TopicNotice | null } | null;

const OFF_HINT = "or set REVIEW_TOPICS=off to keep one stream";

/** What the owner is told, once (its key kept as told), of a role topic Telegram said was deleted. */
function deletedNotice(role: Role, threadId: number): TopicNotice {
  return {
    key: `deleted:${threadId}`,
    text:
      `🗂 The topic “${role}” was deleted, so ${role}'s drafts go to a new topic “${role}”. ` +
      "Posts that were in the deleted topic went with it: /pending lists the drafts still awaiting your decision.",
  };
}

/**
 * The review chat's topics, one per role (REVIEW_TOPICS=role, the default
 * where the chat has topics): which thread a role's post goes to, made once
 * with createForumTopic and kept in HARNESS_DIR (TopicStore). When the chat
 * has no topics, or a topic cannot be made, posts go to the main thread and
 * the owner is told once why; a deleted topic is made again and he is told.
 * REVIEW_THREAD_ID, when set, wins: everything goes there.
 */
export class ReviewTopics {
  private availability: Availability = null;
  /** Roles whose topic Telegram refused to make in this run (the reason was told). */
  private readonly refused = new Set<Role>();
  /** Notices due once, not kept as told (a damaged file, a deleted topic): said with the next post. */
  private readonly due: TopicNotice[] = [];

  constructor(private readonly options: ReviewTopicsOptions) {
    if (options.damaged !== null && this.wanted) {
      this.due.push({
        key: "",
        text:
          `⚠️ The file of the review chat's topics (review_topics.json) could not be read (${options.damaged}). ` +
          "A new topic is made for each role as its next draft comes; the old topics stay as they are, and you may delete them.",
      });
    }
    // A deletion not yet told (a restart came first) is told with the next post, as in the run that saw it.
    for (const d of options.store.deletedTopics()) this.due.push(deletedNotice(d.role, d.thread_id));
  }

  /** The main thread: REVIEW_THREAD_ID, or the chat itself (null). Commands, summaries and reports go there. */
  get main(): number | null {
    return this.options.settings.threadId;
  }

  /** True when drafts go to their role's topic: REVIEW_TOPICS=role, no REVIEW_THREAD_ID, and the chat was found to have topics. */
  get perRole(): boolean {
    return this.wanted && this.availability?.ok === true;
  }

  /** The role whose topic this thread is (/pending there lists its drafts); null: none. */
  roleOf(threadId: number): Role | null {
    return this.wanted ? this.options.store.roleOf(threadId) : null;
  }

  /** Where the role's next post goes: its topic (made now if need be), else the main thread, with what to tell the owner first. */
  async threadFor(role: Role, call: PacedCall): Promise<TopicChoice> {
    const due = this.due.splice(0);
    const choice = await this.choose(role, call);
    // A notice with a key is said once: not when it was told already (by an earlier post, or before a restart).
    const notices = [...due, ...choice.notices].filter((n) => n.key === "" || !this.options.store.wasTold(n.key));
    return { thread: choice.thread, notices };
  }

  private async choose(role: Role, call: PacedCall): Promise<TopicChoice> {
    if (!this.wanted) return { thread: this.main, notices: [] };
    const known = this.options.store.topicOf(role);
    if (known !== null) return { thread: known.thread_id, notices: [] };
    const available = await this.available(call);
    if (!available?.ok) return { thread: null, notices: available?.notice ? [available.notice] : [] };
    if (this.refused.has(role)) return { thread: null, notices: [] };
    const made = await this.create(role, call);
    return { thread: made.thread, notices: made.notice ? [made.notice] : [] };
  }

  /**
   * Telegram says the thread a post or reply went to is gone (the owner deleted the topic):
   * the role's topic is forgotten, so the next post makes a new one, and the owner is told once.
   */
  async lost(threadId: number): Promise<void> {
    const role = this.options.store.roleOf(threadId);
    if (role === null) return;
    this.options.log.warn(
      { role, thread_id: threadId },
      "the role's topic in the review chat was deleted; a new one is made for its next post",
    );
    try {
      await this.options.store.lose(role, threadId);
    } catch (err) {
      // Forgotten in memory all the same: this run makes a new topic and says so; a restart may not know it was deleted.
      this.options.log.error({ err, role }, "could not write the review chat's topics file; the deleted topic is forgotten in this run");
    }
    this.due.push(deletedNotice(role, threadId));
  }

  /** True when Telegram said this thread, a role's topic, was deleted (also before a restart): messages about its posts go elsewhere. */
  deleted(threadId: number): boolean {
    return this.wanted && this.options.store.wasDeleted(threadId);
  }

  /** Records that a notice was told (those with a key are told once, also across restarts). */
  async told(notice: TopicNotice): Promise<void> {
    if (notice.key !== "") await this.options.store.told(notice.key);
  }

  /** Role topics are wanted: REVIEW_TOPICS=role and no REVIEW_THREAD_ID. */
  private get wanted(): boolean {
    return this.options.settings.threadId === null && this.options.settings.mode === "role";
  }

  /** Whether the chat can have role topics, asked once (again later if Telegram did not answer). */
  private async available(call: PacedCall): Promise<Availability> {
    if (this.availability === null) this.availability = await this.check(call);
    return this.availability;
  }

  private async check(call: PacedCall): Promise<Availability> {
    const { chatId, botHasTopics, settings } = this.options;
    if (/^[1-9]\d*$/.test(chatId)) {
      if (botHasTopics) return { ok: true };
      return this.unavailable(
        "private",
        settings.explicit,
        `Topics are off for this bot, so every role's drafts share this chat. Turn them on in @BotFather (your bot → Bot Settings → Topics) and restart the daemon, ${OFF_HINT}.`,
      );
    }
    try {
      const chat = await call(() => this.options.api.getChat(chatId));
      if (chat.type !== "supergroup" || chat.is_forum !== true) {
        const how =
          chat.type === "group"
            ? "turn on Topics in the group's settings (it becomes a supergroup with a new id: run setup again)"
            : "turn on Topics in the group's settings";
        return this.unavailable(
          "no_forum",
          settings.explicit,
          `This review chat has no topics, so every role's drafts share it: ${how}, ${OFF_HINT}.`,
        );
      }
      const me = await call(() => this.options.api.getChatMember(chatId, this.options.botId));
      if (me.status === "administrator" && me.can_manage_topics) return { ok: true };
      return this.unavailable(
        "no_right",
        true,
        `The bot may not make topics in this group, so every role's drafts share the main topic: make it an administrator with the right to manage topics, ${OFF_HINT}.`,
      );
    } catch (err) {
      this.options.log.warn({ err }, "could not ask Telegram whether the review chat has topics; this post goes to the main thread");
      return null;
    }
  }

  /** Topics cannot be had here: said once when the owner asked for them or the chat has them; logged either way. */
  private unavailable(code: string, tell: boolean, text: string): Availability {
    this.options.log.info({ reason: code }, "the review chat has no topics the bot can use: drafts go to the main thread");
    return { ok: false, notice: tell ? { key: `off:${code}`, text: `🗂 ${text}` } : null };
  }

  /** Makes the role's topic; a refusal sends the role's drafts to the main thread for this run, said once. */
  private async create(role: Role, call: PacedCall): Promise<{ thread: number | null; notice: TopicNotice | null }> {
    let topic: { message_thread_id: number; name: string };
    try {
      topic = await call(() => this.options.api.createForumTopic(this.options.chatId, role, { icon_color: ROLE_ICON[role] }));
    } catch (err) {
      if (!(err instanceof GrammyError) || err.error_code === 429 || err.error_code >= 500) {
        this.options.log.warn({ err, role }, "could not make the role's topic in the review chat yet; this post goes to the main thread");
        return { thread: null, notice: null };
      }
      this.refused.add(role);
      this.options.log.warn({ err, role }, "Telegram refused to make the role's topic; its drafts go to the main thread");
      const text = `🗂 Telegram refused to make a topic for ${role} (${err.description}), so its drafts go to the main thread. Restart the daemon once that is fixed, ${OFF_HINT}.`;
      return { thread: null, notice: { key: `create:${err.description}`, text } };
    }
    this.options.log.info({ role, thread_id: topic.message_thread_id }, "made the role's topic in the review chat");
    try {
      await this.options.store.setTopic(role, { thread_id: topic.message_thread_id, name: topic.name });
      // What a refusal or a chat without topics said no longer holds.
      await this.options.store.untell("off:");
      await this.options.store.untell("create:");
    } catch (err) {
      // The topic exists: it is used (kept in memory); only a restart before the next write would make another.
      this.options.log.error(
        { err, role },
        "could not write the review chat's topics file; the topic is used, but a restart may make another",
      );
    }
    return { thread: topic.message_thread_id, notice: null };
  }
}
