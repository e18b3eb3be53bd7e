/**
 * The daemon's start, step by step: each function builds one part of the
 * running daemon from what the steps before it built, and registers its closer.
 * run.ts calls them in order.
 */
import { resolve } from "node:path";
import { type Bot, GrammyError } from "grammy";
import { harnessPaths, openCore, type Core } from "../app/core.js";
import type { Clock } from "../clock/clock.js";
import type { Config } from "../config/config.js";
import type { Redactor } from "../desk/intake.js";
import { resolveApiToken } from "../app/api-token.js";
import { startApiServer } from "../http/server.js";
import type { Logger } from "../log/logger.js";
import { slidingWindowLimiter } from "../send/sliding-limiter.js";
import { auditEventFeed } from "../desk/event-feed.js";
import type { EventFeed } from "../drafts/feed-event.js";
import { TelegramReviewChat } from "../telegram/review-chat.js";
import { ReviewTopics } from "../telegram/review-topics.js";
import { TopicStore } from "../telegram/topic-store.js";
import { reviewChatLimits } from "../telegram/review-lane.js";
import { telegramSendCall } from "../telegram/send-call.js";
import { ALLOWED_UPDATES, startJournaledPolling, type FetchUpdates } from "../telegram/journaled-updates.js";
import { AUDIENCE_TTL_MS, TelegramAudienceResolver } from "../telegram/audience-resolver.js";
import { UpdateJournal } from "../telegram/update-journal.js";
import { businessConnectionCall } from "../telegram/business-updates.js";
import { markAnswers } from "../telegram/answer-mark.js";
import type { Closers } from "./closers.js";
import { withPollingRetry } from "./poll-retry.js";
import type { TelegramBackoffs } from "../retry/backoff.js";
import { ownerFeatures, type OwnerFeatures } from "./owner-features.js";
import { tellSwitchChanged } from "../owner/switch-notice.js";
import { logDraftChanges } from "./draft-log.js";
import { DeliveryWatch } from "./delivery-watch.js";
import { startCallbacks } from "./callbacks.js";
import { proveChannels, type ConfiguredChannels } from "../channels/configured.js";
import { sendStartedAt, sentEmailTo } from "../channels/known-recipients.js";
import { keyedWindowLimiter } from "../send/sliding-limiter.js";
import { DaemonHealth } from "./health.js";
import { installHandlers } from "./handlers.js";
import type { StopSignal } from "./stop-signal.js";

/** What main hands the daemon besides the configuration. */
export interface DaemonEnv {
  readonly processSwitchValue: string | undefined;
  readonly redact: Redactor | null;
  /** The logger's secret list; the generated API token is added to it. */
  readonly secrets: (string | null | undefined)[];
  /**
   * Linear, email and Slack as the environment configures them (contract v5); `sentBefore.known` is
   * set once the desk exists (an external address written to before needs no extra tap). Absent: none.
   */
  readonly channels?: Extract<ConfiguredChannels, { ok: true }> & {
    sentBefore: { known: (address: string) => boolean; startedAt: (reference: string) => number | null };
  };
}

/** What every step of the start needs: the settings, the connected bot, the clock, and the closers to register with. */
export interface DaemonBase {
  readonly config: Config;
  readonly log: Logger;
  readonly bot: Bot;
  readonly clock: Clock;
  readonly backoffs: TelegramBackoffs;
  readonly closers: Closers;
  readonly stopSignal: StopSignal;
}

/** The review chat (paced for its kind of chat) and its topics per role. */
interface OpenReviewChat {
  readonly reviewChat: TelegramReviewChat;
  readonly topics: ReviewTopics;
}

/** The review chat the desk posts to, in its role's topic where topics are on. */
export async function openReviewChat({ config, bot, clock, log }: DaemonBase): Promise<OpenReviewChat> {
  const topics = await openReviewTopics(config, bot, log);
  const reviewChat = new TelegramReviewChat({
    api: bot.api,
    chatId: config.reviewChatId,
    threadId: config.reviewThreadId,
    topics,
    deferForMs: config.deferForMs,
    ...(config.reviewTimeZone === null ? {} : { timeZone: config.reviewTimeZone }),
    clock,
    limits: reviewChatLimits(config.reviewChatId, config.telegram.rateScale),
    log,
  });
  return { reviewChat, topics };
}

/** The core (store, audit log, desk, intake, send path) on Telegram's edges; it closes last of all at the stop. */
export async function openDaemonCore(base: DaemonBase, reviewChat: TelegramReviewChat, env: DaemonEnv): Promise<Core> {
  const { config, log, bot, clock, backoffs, closers } = base;
  const rateScale = config.telegram.rateScale;
  const core = await openCore(config, log, {
    clock,
    makeReviewChat: () => reviewChat,
    sendCall: telegramSendCall(bot.api),
    audience: new TelegramAudienceResolver({ api: bot.api, botId: bot.botInfo.id, clock, ttlMs: AUDIENCE_TTL_MS / rateScale }),
    limiter: slidingWindowLimiter(clock, rateScale),
    redact: env.redact,
    processSwitchValue: env.processSwitchValue,
    envFilePath: resolve(".env"),
    haltPollMs: 1000,
    backoffs,
    business: {
      botUsername: bot.botInfo.username,
      fetchConnection: businessConnectionCall(bot.api),
      tell: (text) => reviewChat.say(text),
    },
    secrets: env.secrets,
    ...channelEdges(env, clock, rateScale),
  });
  // Closing the core waits for the desk work that is running.
  closers.push("core", () => core.close());
  if (env.channels?.channels) {
    env.channels.sentBefore.known = sentEmailTo(() => core.desk.everyDraft());
    env.channels.sentBefore.startedAt = sendStartedAt(() => core.desk.everyDraft());
    await proveChannels(env.channels.channels, log, (text) => reviewChat.say(text));
  }
  return core;
}

/** Linear, email and Slack for the core, with their own rate windows (Slack per conversation, EMAIL_RATE). */
function channelEdges(env: DaemonEnv, clock: Clock, rateScale: number) {
  const configured = env.channels;
  if (!configured?.channels) return {};
  const channelLimiter = keyedWindowLimiter(clock, { scale: rateScale, global: null, windowsFor: configured.windowsFor, pauseCapMs: 0 });
  return { channels: configured.channels, channelLimiter };
}

/** The event feed, /healthz's view, the draft log and the callbacks (CALLBACK_URL). */
interface Feeds {
  readonly events: EventFeed;
  readonly health: DaemonHealth;
  readonly callbacks: Awaited<ReturnType<typeof startCallbacks>>;
  readonly deliveries: DeliveryWatch;
}

/** Starts what reports the daemon's changes: the event feed, health, the draft log, the callbacks. */
export async function startFeeds({ config, log, clock, closers }: DaemonBase, core: Core): Promise<Feeds> {
  const events = auditEventFeed(core.audit);
  let callbacks: Feeds["callbacks"] = null;
  const health = new DaemonHealth({
    clock: core.desk.clock,
    harnessDir: config.harnessDir,
    archiving: () => core.archiving.problem(),
    business: () => core.voice.status(),
    haltedChannels: () => core.channels?.haltedChannels() ?? [],
    warnings: () => [...core.archive.problems(), ...(callbacks?.delivery.warning ? [callbacks.delivery.warning] : [])],
  });
  core.desk.onTransition(() => health.storeWritten());
  core.desk.onTransition(logDraftChanges(log, (id) => core.desk.get(id)));
  callbacks = await startCallbacks(config, core, events, log);
  closers.push("callbacks", () => callbacks?.stop());
  const deliveries = new DeliveryWatch({ feed: events, callbacks: callbacks?.delivery ?? null, clock });
  return { events, health, callbacks, deliveries };
}

/** The owner's commands, daily digest and weekly report, in the review chat. */
export function startOwnerFeatures(base: DaemonBase, chat: OpenReviewChat, core: Core, feed: Feeds): OwnerFeatures {
  const { config, log, bot, closers } = base;
  const { reviewChat, topics } = chat;
  // Review-chat work still waiting for a slot is dropped first (queued drafts stay queued on disk
  // and are posted at the next start).
  closers.push("review chat", () => reviewChat.stop());
  return ownerFeatures({
    config,
    core,
    say: (text, buttons, thread, entities) => reviewChat.say(text, buttons, thread, entities),
    topicRole: (thread) => topics.roleOf(thread),
    answer: (text, replyTo, thread) => reviewChat.answer(text, replyTo, thread),
    sendPhoto: (png, caption, filename) => reviewChat.sendPhoto(png, caption, filename),
    api: bot.api,
    clock: core.desk.clock,
    log,
    callbacks: feed.callbacks?.delivery ?? null,
  });
}

/** What the update handlers share with the start: the updates that waited while the daemon was down. */
export interface UpdateHandling {
  /** A ↩️ tap among them has no date the daemon can know. */
  readonly heldWhileDown: Set<number>;
  /** When Telegram last answered before this start (set once the update journal is open): a tap among them was made after it. */
  readonly lastSeen: { before: number | null };
}

/** The bot's handlers: decisions, replies, owner commands, business updates. */
export function installUpdateHandlers(
  { config, log, bot }: DaemonBase,
  reviewChat: TelegramReviewChat,
  core: Core,
  owner: OwnerFeatures,
  feed: Feeds,
): UpdateHandling {
  const heldWhileDown = new Set<number>();
  const lastSeen: { before: number | null } = { before: null };
  installHandlers(bot, {
    config,
    core,
    owner,
    log,
    tellReviewers: async (text) => void (await reviewChat.say(text)),
    delivered: (id) => feed.deliveries.delivered(id),
    showTold: (id) => reviewChat.showTold(id, () => core.desk.get(id)),
    heldWhileDown,
    lastSeenBeforeStop: () => lastSeen.before,
  });
  return { heldWhileDown, lastSeen };
}

/** The journal of fetched updates, and the getUpdates call that reports to /healthz and retries. */
interface JournaledUpdates {
  readonly journal: UpdateJournal;
  readonly fetch: FetchUpdates;
}

/** Opens the update journal (every fetched update written before Telegram may count it confirmed). */
export async function openUpdateJournal(base: DaemonBase, reviewChat: TelegramReviewChat, health: DaemonHealth): Promise<JournaledUpdates> {
  const { config, log, bot, clock, backoffs, closers } = base;
  const journal = await UpdateJournal.open(harnessPaths(config.harnessDir).updates, log);
  closers.push("update journal", () => journal.close());
  // Closed before the journal: an answer still waiting for its turn goes out (a call notes its update as answered).
  closers.push("review chat answers", () => reviewChat.drainAnswers());
  bot.api.config.use(markAnswers(journal, config.reviewChatId));
  const fetch = withPollingRetry(fetchReportingHealth(bot, health), log, clock, backoffs.poll);
  return { journal, fetch };
}

/** What the start-up backlog tells the review chat, and when it gives up. */
export function startUpTells({ config, log, stopSignal }: DaemonBase, reviewChat: TelegramReviewChat, updates: UpdateHandling) {
  return {
    say: (text: string) => reviewChat.say(text),
    timeZone: config.reviewTimeZone ?? undefined,
    heldWhileDown: updates.heldWhileDown,
    stopped: stopSignal.promise,
    log,
  };
}

/** What the intake API serves besides the core. */
interface ApiParts {
  readonly reviewChat: TelegramReviewChat;
  readonly core: Core;
  readonly owner: OwnerFeatures;
  readonly feed: Feeds;
  readonly updates: UpdateHandling;
  readonly env: DaemonEnv;
}

/** The intake API (POST /drafts, GET /drafts, /events, /healthz) on DRAFT_API_HOST:DRAFT_API_PORT. */
export async function startIntakeApi({ config, log, clock, closers }: DaemonBase, parts: ApiParts) {
  const { reviewChat, core, owner, feed, env } = parts;
  const paths = harnessPaths(config.harnessDir);
  const switchNoticesTold = new Set<string>();
  const token = await resolveApiToken(config, config.harnessDir, log);
  env.secrets.push(token);
  const api = await startApiServer({
    host: config.api.host,
    port: config.api.port,
    token,
    intake: core.intake,
    desk: core.desk,
    events: feed.deliveries.readerFeed(),
    status: owner.status,
    ownerSwitchNotice: (action) =>
      tellSwitchChanged(
        {
          haltPath: paths.ownerHalt,
          killSwitch: core.killSwitch,
          say: async (text) => void (await reviewChat.say(text)),
          recordPath: paths.haltRecord,
          now: () => clock.now(),
          told: switchNoticesTold,
        },
        action,
      ),
    health: feed.health,
    log,
  });
  closers.push("intake API", () => api.close());
  return api;
}

/** Long polling through @grammyjs/runner, each answer journaled before its updates are handled. */
export function startPolling({ config, log, bot, clock, closers }: DaemonBase, updates: JournaledUpdates) {
  const { journal } = updates;
  const polling = startJournaledPolling({
    handleUpdate: (update) => bot.handleUpdate(update),
    // Each answer is noted (durably, once a minute): the next start measures an outage from the last one.
    fetch: async (args, signal) => {
      const fetched = await updates.fetch(args, signal);
      void journal.notePolled(clock.now());
      return fetched;
    },
    journal,
    timeoutSeconds: config.telegram.timeoutSeconds,
    log,
  });
  closers.push("running updates", () => polling.settle());
  // stop() returns undefined, not a promise, once the runner has ended by itself.
  closers.push("polling", () => Promise.resolve(polling.runner.stop()).catch(() => {}));
  return polling;
}

/**
 * The review chat's topic per role (REVIEW_TOPICS), read from HARNESS_DIR. A
 * damaged file is no reason to stop: the topics are made again, and the owner
 * told with the next post.
 */
async function openReviewTopics(config: Config, bot: Bot, log: Logger): Promise<ReviewTopics> {
  const path = harnessPaths(config.harnessDir).reviewTopics;
  const { store, damaged } = await TopicStore.open(path, config.reviewChatId);
  // Read only (the lock on HARNESS_DIR is taken later): the file is written again when a topic is made.
  if (damaged !== null) log.warn({ path, problem: damaged }, "the review chat's topics file is damaged; the topics are made again");
  return new ReviewTopics({
    api: bot.api,
    chatId: config.reviewChatId,
    botId: bot.botInfo.id,
    botHasTopics: bot.botInfo.has_topics_enabled === true,
    settings: { ...config.reviewTopics, threadId: config.reviewThreadId },
    store,
    damaged,
    log,
  });
}

/** getUpdates for the allowed updates, telling /healthz whether Telegram answers (a 409 is another poller). */
function fetchReportingHealth(bot: Bot, health: DaemonHealth): FetchUpdates {
  return (args, signal) =>
    bot.api.getUpdates({ ...args, allowed_updates: [...ALLOWED_UPDATES] }, signal).then(
      (updates) => (health.telegramAnswered(), updates),
      (err: unknown) => {
        if (!signal.aborted) health.telegramFailed(err, err instanceof GrammyError && err.error_code === 409);
        throw err;
      },
    );
}
