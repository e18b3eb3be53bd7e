import type { InlineKeyboardMarkup, LinkPreviewOptions, Message, MessageEntity, Update } from "grammy/types";

/** The kinds of chat the double knows. */
export type ChatType = "private" | "group" | "supergroup" | "channel";

/** A chat the bot can talk to. Unknown chats answer "Bad Request: chat not found". */
export interface ChatConfig {
  /** Positive for a private chat (the user's id), negative for groups (-100... for supergroups). */
  id: number;
  type: ChatType;
  /** Group title; default "Chat <id>". */
  title?: string;
  /** Public @username without the @, so `chat_id: "@name"` resolves. */
  username?: string;
  /** The user's first name in a private chat; default "User<id>". */
  firstName?: string;
  /** The user blocked the bot (private) or the bot was removed (group): every send is a 403. Default false. */
  blocked?: boolean;
  /** The bot is an administrator here (getChatMember, getChatAdministrators). Default false. */
  botIsAdmin?: boolean;
  /** A supergroup with topics; with `topics`, an unknown message_thread_id is refused. */
  isForum?: boolean;
  /**
   * Forum topics (message_thread_id values) that exist from the start, besides those createForumTopic
   * makes. Unset, in a forum where nothing was created: any thread id is accepted.
   */
  topics?: number[];
  /** The bot, an administrator of this forum, has the can_manage_topics right (createForumTopic). Default true. */
  botCanManageTopics?: boolean;
  /** Members besides the bot, for getChatMember and getChatAdministrators. */
  members?: MemberConfig[];
  /** What getChatMemberCount answers (groups and channels); default the configured members plus the bot. */
  memberCount?: number;
  /** The group was upgraded to this supergroup: every call on this id is a 400 with migrate_to_chat_id. */
  migratedTo?: number;
  /**
   * False: the bot is in the chat but may not post (restricted in a group, not an
   * admin with can_post_messages in a channel); sendMessage is refused. Default true.
   */
  botCanPost?: boolean;
  /** The chat's last name for a private chat (getChat's last_name). */
  lastName?: string;
}

/** A human member of a group chat. */
export interface MemberConfig {
  userId: number;
  status: "creator" | "administrator" | "member";
  firstName?: string;
  username?: string;
}

/** A human user, so updates carry a realistic `from`. Unknown ids get "User<id>". */
export interface UserConfig {
  id: number;
  firstName?: string;
  username?: string;
}

/**
 * Telegram's documented send limits, enforced only when asked for. `timeScale`
 * shrinks every window (0.01: one second lasts 10 ms), so tests stay fast;
 * `retry_after` is still reported in unscaled seconds, as Telegram would.
 */
export interface RateLimitOptions {
  /** Real milliseconds per Telegram millisecond. Default 1. */
  timeScale?: number;
  /** Messages per second in any one chat. Default 1. */
  perChatPerSecond?: number;
  /** Messages per minute in one group (negative id). Default 20. */
  groupPerMinute?: number;
  /** Messages per second over all chats. Default 30. */
  globalPerSecond?: number;
}

/** Everything `startTelegramDouble` can be told; all optional. */
export interface TelegramDoubleOptions {
  /** The bot token to accept; default a random realistic one (`<bot id>:AA...`). */
  token?: string;
  /** The bot's identity in getMe and in `from` of its messages. */
  bot?: {
    id?: number;
    firstName?: string;
    username?: string;
    /** getMe's `has_topics_enabled` (Bot API 9.3): topics in private chats with the bot, turned on in @BotFather. Default false. */
    hasTopicsEnabled?: boolean;
    /** getMe's `allows_users_to_create_topics` (Bot API 9.4). Default true when topics are enabled. */
    allowsUsersToCreateTopics?: boolean;
  };
  /** Chats known from the start (more with `addChat`). */
  chats?: ChatConfig[];
  /** Users known from the start (more with `addUser`). */
  users?: UserConfig[];
  /** Enforce send limits (off by default). `true` means the defaults. */
  rateLimits?: boolean | RateLimitOptions;
  /** The first update_id handed out. Default 700000001: real ids are large, never start at 1. */
  firstUpdateId?: number;
  /** A webhook set beforehand: getUpdates is a 409 until deleteWebhook. */
  webhookUrl?: string;
}

/** One accepted sendMessage, as the test inspects it. */
export interface SentMessage {
  chatId: number;
  messageId: number;
  /** The text as stored (after entity parsing and trimming). */
  text: string;
  threadId: number | undefined;
  replyMarkup: unknown;
  /** Recorded so a test can assert it was never used. */
  parseMode: string | undefined;
  entities: MessageEntity[] | undefined;
  /** The link_preview_options given, if any. */
  linkPreview: LinkPreviewOptions | undefined;
  replyToMessageId: number | undefined;
  /** Set when sent on behalf of a business account (sendMessage with business_connection_id). */
  businessConnectionId?: string;
  /** Milliseconds since the epoch when the double accepted it. */
  at: number;
  /** The Message object that was (or would have been) returned. */
  message: Message.TextMessage;
}

/**
 * What one message showed from one moment on: its content once Telegram
 * accepted (answered) a sendMessage or an edit of it. A message's versions,
 * in order, are its history: what the chat showed when.
 */
export interface ShownVersion {
  chatId: number;
  messageId: number;
  /** The call that made this version. */
  method: "sendMessage" | "editMessageText" | "editMessageReplyMarkup";
  /** Milliseconds since the epoch when the double accepted the call (the answer follows at once). */
  at: number;
  text: string | undefined;
  entities: MessageEntity[] | undefined;
  /** The inline keyboard it carries from then on (undefined: none). */
  replyMarkup: InlineKeyboardMarkup | undefined;
}

/** One accepted sendPhoto (an uploaded PNG or JPEG), as the test inspects it. */
export interface SentPhoto {
  chatId: number;
  messageId: number;
  caption: string | undefined;
  threadId: number | undefined;
  /** The uploaded file, bytes intact. */
  file: import("./body.js").UploadedFile;
  /** The image's size, read from its header. */
  width: number;
  height: number;
  /** Milliseconds since the epoch when the double accepted it. */
  at: number;
  message: Message.PhotoMessage;
}

/** What became of one call. `pending` while it is being handled (e.g. a held long poll). */
export type CallOutcome =
  | { kind: "pending" }
  | { kind: "ok"; result: unknown }
  | { kind: "error"; errorCode: number; description: string }
  /** Handled, then the socket was destroyed without an answer. */
  | { kind: "dropped"; result?: unknown; errorCode?: number }
  /** The socket was destroyed before anything was done. */
  | { kind: "reset" }
  /** The client went away while the call was held. */
  | { kind: "aborted" };

/** One HTTP call to the double, with its outcome. */
export interface CallRecord {
  /** The method as spelt by the client. */
  method: string;
  params: Record<string, unknown>;
  /** Milliseconds since the epoch when the request arrived. */
  at: number;
  outcome: CallOutcome;
}

/** An injected error: the next call(s) of a method fail with it, doing nothing else. */
export interface FailSpec {
  error_code: number;
  description: string;
  /** Sent as `parameters.retry_after` (seconds). */
  retry_after?: number;
  /** How many calls fail. Default 1. */
  times?: number;
  /** Each failure is answered once this settles (the call is not handled meanwhile): the test acts between the call and its answer. */
  until?: () => Promise<unknown>;
}

/** An answerCallbackQuery the double accepted. */
export interface AnsweredCallback {
  callbackQueryId: string;
  text: string | undefined;
  showAlert: boolean;
  url: string | undefined;
  at: number;
}

/** `injectReaction` input. Give `userId`, or `actorChat` for an anonymous admin. */
export interface ReactionInjection {
  chatId: number;
  messageId: number;
  userId?: number;
  actorChat?: number;
  oldEmojis?: string[];
  newEmojis?: string[];
}

/** `injectCallback` input: a user pressed a button under a message. */
export interface CallbackInjection {
  chatId: number;
  messageId: number;
  userId: number;
  data: string;
}

/** `injectMessage` input: a user wrote in a chat, maybe as a reply. */
export interface MessageInjection {
  chatId: number;
  userId: number;
  text: string;
  replyToMessageId?: number;
  threadId?: number;
  username?: string;
  firstName?: string;
}

/** Re-exported for tests that build expectations. */
export type { InlineKeyboardMarkup, Message, Update };
