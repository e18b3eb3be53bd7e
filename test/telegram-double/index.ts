/**
 * A test double of the Telegram Bot API: a real HTTP server on 127.0.0.1 that
 * answers grammY (or any client) as Telegram does, with the same envelopes,
 * status codes and error descriptions. Tests configure chats, inject updates
 * and faults, and inspect what was sent:
 *
 *   const double = await startTelegramDouble({ chats: [{ id: 42, type: "private" }] });
 *   const bot = new Bot(double.token, { client: { apiRoot: double.url } });
 *
 * A daemon in a child process gets `TELEGRAM_API_ROOT=double.url`.
 */
import { randomBytes } from "node:crypto";
import type { AddressInfo } from "node:net";
import type { ForumTopic, Message, Update, UserFromGetMe } from "grammy/types";
import {
  changeBusiness,
  connectBusiness,
  injectBusinessMessage,
  moveBusiness,
  revokeBusiness,
  type BusinessConnectInjection,
  type BusinessMessageInjection,
} from "./business.js";
import { FaultPlan } from "./faults.js";
import { injectCallback, injectMessage, injectReaction, type Injected } from "./inject.js";
import { CallJournal, type CallListener } from "./journal.js";
import type { DoubleState } from "./methods/index.js";
import { RateLimiter } from "./rate-limit.js";
import { type ApiServer, createApiServer } from "./server.js";
import type {
  AnsweredCallback,
  CallbackInjection,
  CallRecord,
  ChatConfig,
  FailSpec,
  MessageInjection,
  RateLimitOptions,
  ReactionInjection,
  SentMessage,
  TelegramDoubleOptions,
  UserConfig,
  SentPhoto,
  ShownVersion,
} from "./types.js";
import { removeTopic, topicsOf } from "./topics.js";
import { UpdateQueue } from "./updates.js";
import { World } from "./world.js";

/** A running fake Bot API. Point grammY at it with `{ client: { apiRoot: double.url } }`. */
export interface TelegramDouble {
  /** The apiRoot, e.g. "http://127.0.0.1:41234" (no trailing slash, as grammY requires). */
  readonly url: string;
  /** The one token the double accepts; any other gets 401. */
  readonly token: string;
  /** What getMe answers. */
  readonly botInfo: UserFromGetMe;
  /** Adds a chat, or reconfigures a known one (e.g. `blocked: true`) keeping its messages. */
  addChat(chat: ChatConfig): void;
  /** Adds or renames a user. */
  addUser(user: UserConfig): void;
  /** Turns the bot's topics in private chats on or off in @BotFather: what getMe's `has_topics_enabled` says from now on. */
  setTopicsEnabled(on: boolean): void;
  /** The topics createForumTopic made in a chat (and not deleted), oldest first. */
  topics(chatId: number): readonly ForumTopic[];
  /** The user deletes a topic in the app: it and its messages are gone (sends to it: "message thread not found"). False when unknown. */
  deleteTopic(chatId: number, threadId: number): boolean;
  /** A user deletes a message in the chat (as in a client): every later edit of it is "message to edit not found". True if it was there. */
  deleteMessage(chatId: number, messageId: number): boolean;
  /** Turns rate limits on (with options) or off, from now on. */
  setRateLimits(options: boolean | RateLimitOptions): void;
  /** A message_reaction update. Queued only if allowed_updates names it (not by default). Unknown emoji: throws. */
  injectReaction(o: ReactionInjection): Injected;
  /** A callback_query update carrying the stored message; its id can be answered once. */
  injectCallback(o: CallbackInjection): Injected;
  /** A message update from a user, stored under the chat's next message_id. */
  injectMessage(o: MessageInjection): Injected;
  /** A user connects the bot to their account under Telegram Business: a business_connection update; returns the connection id. */
  connectBusiness(o: BusinessConnectInjection): { id: string; injected: Injected };
  /** The user pauses or resumes the connection, or changes its can_reply right: a business_connection update. */
  changeBusiness(id: string, change: { enabled?: boolean; canReply?: boolean }): Injected;
  /** The connection's id silently names another account (no update): what getBusinessConnection and sends through it say from now on. */
  moveBusiness(id: string, userId: number): void;
  /** The user removes the bot from their account: a business_connection update with is_enabled false; the id is unknown after. */
  revokeBusiness(id: string): Injected;
  /** A business_message update: a person wrote to the connected account (dated `ageSeconds` ago). */
  injectBusinessMessage(o: BusinessMessageInjection): Injected & { messageId: number };
  /** The next `spec.times` (default 1) calls of `method` fail with this error and do nothing else. */
  failNext(method: string, spec: FailSpec): void;
  /** The next `times` calls of `method` wait `ms` first. A client giving up meanwhile does not stop the call. */
  delayNext(method: string, ms: number, times?: number): void;
  /** The next call of `method` is handled and recorded, then its socket is destroyed unanswered. */
  dropResponseAfterAccept(method: string, times?: number): void;
  /** The next call of `method` has its socket destroyed before anything is done. */
  resetConnection(method: string, times?: number): void;
  /** The next `times` calls of `method` are handled and recorded at once, and answered `ms` later (a crash in between). */
  answerLate(method: string, ms: number, times?: number): void;
  /**
   * The next call of `method` is handled and recorded at once, and answered when `until(result)` settles:
   * what the test does in `until` (an update about the new message) happens before the caller hears.
   */
  answerWhen(method: string, until: (result: unknown) => Promise<unknown>): void;
  /** Forgets planned faults. */
  clearFaults(): void;
  /** Accepted sendMessage calls, all or of one chat, in order. */
  messages(chatId?: number): readonly SentMessage[];
  /** Accepted sendPhoto calls, all or of one chat, in order. */
  photos(chatId?: number): readonly SentPhoto[];
  /**
   * What the bot's messages showed, and from when: a version per accepted sendMessage and edit
   * (also those of other chats), in order; `chatId` (and `messageId`): one chat's (one message's).
   */
  history(chatId?: number, messageId?: number): readonly ShownVersion[];
  /** The version of a bot's message that the chat showed at `at` (ms): the last one accepted at or before it. */
  showing(chatId: number, messageId: number, at: number): ShownVersion | undefined;
  /** A stored message in its current state (edits applied), sent by the bot or injected. */
  message(chatId: number, messageId: number): Message | undefined;
  /** Calls received, all or of one method (case-insensitive), with outcomes. */
  calls(method?: string): readonly CallRecord[];
  /** How many calls of `method` were received. */
  callCount(method: string): number;
  /** Subscribes to finished calls; returns the unsubscribe function. */
  onCall(listener: CallListener): () => void;
  /** The first finished call of `method` matching `predicate`, past or future; rejects after `timeoutMs` (default 5000). */
  waitForCall(method: string, predicate?: (call: CallRecord) => boolean, timeoutMs?: number): Promise<CallRecord>;
  /** answerCallbackQuery calls accepted, in order. */
  answeredCallbacks(): readonly AnsweredCallback[];
  /** The last of `answeredCallbacks()`. */
  readonly lastAnsweredCallback: AnsweredCallback | undefined;
  /** Updates queued and not yet confirmed by an offset. */
  pendingUpdates(): readonly Update[];
  /** Updates the remembered allowed_updates kept out of the queue (never delivered). */
  excludedUpdates(): readonly Update[];
  /** The update_id of every update a getUpdates answer has carried so far, each once, in the order first delivered. */
  deliveredUpdateIds(): readonly number[];
  /** The allowed_updates last given by getUpdates or setWebhook; undefined: never given. */
  readonly allowedUpdates: readonly string[] | undefined;
  /** How many 429 answers the double gave. */
  readonly tooManyRequestsCount: number;
  /** Closes the server, held long polls and every socket at once. */
  stop(): Promise<void>;
}

/** The limiter for an options value; undefined means off. */
function limiterFor(options: boolean | RateLimitOptions | undefined): RateLimiter | undefined {
  if (!options) return undefined;
  return new RateLimiter(options === true ? {} : options);
}

/** The token and getMe of the bot: given, or a random realistic pair (`<id>:AA<33 chars>`). */
function botInfoFor(options: TelegramDoubleOptions): { token: string; bot: UserFromGetMe } {
  const tokenId = options.token ? Number(options.token.split(":")[0]) : NaN;
  const id = options.bot?.id ?? (Number.isSafeInteger(tokenId) ? tokenId : 7_000_000_000 + Math.floor(Math.random() * 900_000_000));
  const token = options.token ?? `${id}:AA${randomBytes(32).toString("base64url").slice(0, 33)}`;
  const bot: UserFromGetMe = {
    id,
    is_bot: true,
    first_name: options.bot?.firstName ?? "Draft Review",
    username: options.bot?.username ?? "draft_review_test_bot",
    can_join_groups: true,
    can_read_all_group_messages: false,
    supports_inline_queries: false,
    can_connect_to_business: false,
    has_main_web_app: false,
    has_topics_enabled: options.bot?.hasTopicsEnabled ?? false,
    allows_users_to_create_topics: options.bot?.allowsUsersToCreateTopics ?? options.bot?.hasTopicsEnabled ?? false,
  } as UserFromGetMe;
  return { token, bot };
}

/** Starts a fake Telegram Bot API on 127.0.0.1 (a free port) and resolves once it listens. */
export async function startTelegramDouble(options: TelegramDoubleOptions = {}): Promise<TelegramDouble> {
  const { token, bot } = botInfoFor(options);
  const state: DoubleState = {
    world: new World(bot),
    updates: new UpdateQueue(options.firstUpdateId ?? 700_000_001),
    sent: [],
    shown: [],
    photos: [],
    answered: [],
    openCallbacks: new Set(),
    commands: new Map(),
    limiter: limiterFor(options.rateLimits),
    business: new Map(),
  };
  state.updates.webhookUrl = options.webhookUrl;
  for (const chat of options.chats ?? []) state.world.addChat(chat);
  for (const user of options.users ?? []) state.world.addUser(user);
  const faults = new FaultPlan();
  const journal = new CallJournal();
  const api = createApiServer({ token, state, faults, journal });
  await new Promise<void>((resolve, reject) => {
    api.server.once("error", reject);
    api.server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = api.server.address() as AddressInfo;
  return facade({ url: `http://127.0.0.1:${port}`, token, bot, state, faults, journal, api });
}

interface Parts {
  url: string;
  token: string;
  bot: UserFromGetMe;
  state: DoubleState;
  faults: FaultPlan;
  journal: CallJournal;
  api: ApiServer;
}

/** The test's handle on the running double. */
function facade({ url, token, bot, state, faults, journal, api }: Parts): TelegramDouble {
  return {
    url,
    token,
    botInfo: bot,
    addChat: (chat) => state.world.addChat(chat),
    addUser: (user) => state.world.addUser(user),
    setTopicsEnabled: (on) => {
      bot.has_topics_enabled = on;
    },
    topics: (chatId) => topicsOf(state, chatId),
    deleteTopic: (chatId, threadId) => removeTopic(state.world.requireChat(chatId), threadId),
    deleteMessage: (chatId, messageId) => state.world.requireChat(chatId).messages.delete(messageId),
    setRateLimits: (o) => void (state.limiter = limiterFor(o)),
    injectReaction: (o) => injectReaction(state, o),
    injectCallback: (o) => injectCallback(state, o),
    injectMessage: (o) => injectMessage(state, o),
    connectBusiness: (o) => connectBusiness(state, o),
    changeBusiness: (id, change) => changeBusiness(state, id, change),
    moveBusiness: (id, userId) => moveBusiness(state, id, userId),
    revokeBusiness: (id) => revokeBusiness(state, id),
    injectBusinessMessage: (o) => injectBusinessMessage(state, o),
    failNext: (method, spec) => faults.failNext(method, spec),
    delayNext: (method, ms, times) => faults.delayNext(method, ms, times),
    dropResponseAfterAccept: (method, times) => faults.dropResponseAfterAccept(method, times),
    resetConnection: (method, times) => faults.resetConnection(method, times),
    answerLate: (method, ms, times) => faults.answerLate(method, ms, times),
    answerWhen: (method, until) => faults.answerWhen(method, until),
    clearFaults: () => faults.clear(),
    messages: (chatId) => state.sent.filter((m) => chatId === undefined || m.chatId === chatId),
    photos: (chatId) => state.photos.filter((p) => chatId === undefined || p.chatId === chatId),
    message: (chatId, messageId) => state.world.message(chatId, messageId),
    history: (chatId, messageId) =>
      state.shown.filter((v) => (chatId === undefined || v.chatId === chatId) && (messageId === undefined || v.messageId === messageId)),
    showing: (chatId, messageId, at) => state.shown.filter((v) => v.chatId === chatId && v.messageId === messageId && v.at <= at).at(-1),
    calls: (method) => journal.list(method),
    callCount: (method) => journal.list(method).length,
    onCall: (listener) => journal.onCall(listener),
    waitForCall: (method, predicate, timeoutMs) => journal.waitFor(method, predicate, timeoutMs),
    answeredCallbacks: () => [...state.answered],
    get lastAnsweredCallback() {
      return state.answered.at(-1);
    },
    pendingUpdates: () => [...state.updates.unconfirmed()],
    excludedUpdates: () => [...state.updates.excluded()],
    deliveredUpdateIds: () => state.updates.deliveredIds(),
    get allowedUpdates() {
      return state.updates.allowedUpdates;
    },
    get tooManyRequestsCount() {
      return journal.tooManyRequests;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        api.server.close(() => resolve());
        api.destroyAll();
      }),
  };
}

export type { Injected } from "./inject.js";
export {
  BUSINESS_ERRORS,
  BUSINESS_REPLY_WINDOW_SECONDS,
  type BusinessConnectInjection,
  type BusinessMessageInjection,
} from "./business.js";
export type { CallListener } from "./journal.js";
export { NOT_DELIVERED_BY_DEFAULT } from "./updates.js";
export { REACTION_EMOJI } from "./reactions.js";
export * from "./types.js";
