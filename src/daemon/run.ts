import { resolve } from "node:path";
import { Bot, GrammyError } from "grammy";
import { harnessPaths, openCore } from "../app/core.js";
import { systemClock } from "../clock/clock.js";
import type { Config } from "../config/config.js";
import type { Redactor } from "../desk/intake.js";
import { resolveApiToken } from "../app/api-token.js";
import { startApiServer } from "../http/server.js";
import type { Logger } from "../log/logger.js";
import { slidingWindowLimiter } from "../send/sliding-limiter.js";
import { auditEventFeed } from "../desk/event-feed.js";
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
import { Closers } from "./closers.js";
import { connectBot } from "./connect.js";
import { withPollingRetry } from "./poll-retry.js";
import { scaledBackoffs } from "../retry/backoff.js";
import { ownerFeatures } from "./owner-features.js";
import { tellSwitchChanged } from "../owner/switch-notice.js";
import { logDraftChanges } from "./draft-log.js";
import { DeliveryWatch } from "./delivery-watch.js";
import { startCallbacks } from "./callbacks.js";
import { DaemonHealth } from "./health.js";
import { installHandlers } from "./handlers.js";
import { startUp } from "./start-up.js";

/** What main hands the daemon besides the configuration. */
export interface DaemonEnv {
  readonly processSwitchValue: string | undefined;
  readonly redact: Redactor | null;
  /** The logger's secret list; the generated API token is added to it. */
  readonly secrets: (string | null | undefined)[];
}

/**
 * The live daemon: grammY long polling through @grammyjs/runner, every
 * fetched update journaled before Telegram can consider it confirmed, the
 * review desk, the intake API, and an orderly stop on SIGTERM/SIGINT.
 * Each part registers its closer as soon as it is open; the stop closes them
 * in reverse order. Returns the process exit code.
 */
export async function runDaemon(config: Config, log: Logger, env: DaemonEnv): Promise<number> {
  const stopSignal = waitForStopSignal(log);
  try {
    return await runUntilStopped(config, log, env, stopSignal);
  } finally {
    // Every way out (a failed connect, a held lock, an error) lets go of the keep-alive.
    stopSignal.dispose();
  }
}

async function runUntilStopped(config: Config, log: Logger, env: DaemonEnv, stopSignal: StopSignal): Promise<number> {
  // TELEGRAM_TIMEOUT_SECONDS (default 60): past it a call counts as lost (a send's outcome is then unknown).
  const { timeoutSeconds, rateScale } = config.telegram;
  const bot = new Bot(config.telegram.token!, { client: { apiRoot: config.telegram.apiRoot, timeoutSeconds } });
  const closers = new Closers(log);
  try {
    const clock = systemClock();
    // TELEGRAM_RATE_SCALE shortens the daemon's own waits against a local test double (1 in real use).
    const backoffs = scaledBackoffs(rateScale);
    // The stop signal aborts the start-up connect (grammY retries it by itself otherwise).
    const connected = await connectBot(bot, log, stopSignal.promise, clock, backoffs.connect);
    if (connected !== "ok") return connected === "stopped" ? 0 : 78;

    const topics = await openReviewTopics(config, bot, log);
    const reviewChat = new TelegramReviewChat({
      api: bot.api,
      chatId: config.reviewChatId,
      threadId: config.reviewThreadId,
      topics,
      deferForMs: config.deferForMs,
      ...(config.reviewTimeZone === null ? {} : { timeZone: config.reviewTimeZone }),
      clock,
      limits: reviewChatLimits(config.reviewChatId, rateScale),
      log,
    });
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
    });
    // Closing the core waits for the desk work that is running.
    closers.push("core", () => core.close());
    const paths = harnessPaths(config.harnessDir);
    const events = auditEventFeed(core.audit);
    const health = new DaemonHealth({
      clock: core.desk.clock,
      harnessDir: config.harnessDir,
      archiving: () => core.archiving.problem(),
      business: () => core.voice.status(),
      warnings: () => [...core.archive.problems(), ...(callbacks?.delivery.warning ? [callbacks.delivery.warning] : [])],
    });
    core.desk.onTransition(() => health.storeWritten());
    core.desk.onTransition(logDraftChanges(log, (id) => core.desk.get(id)));
    const callbacks = await startCallbacks(config, core, events, log);
    closers.push("callbacks", () => callbacks?.stop());
    // Review-chat work still waiting for a slot is dropped first (queued drafts stay queued on disk
    // and are posted at the next start).
    closers.push("review chat", () => reviewChat.stop());
    const owner = ownerFeatures({
      config,
      core,
      say: (text, buttons, thread, entities) => reviewChat.say(text, buttons, thread, entities),
      topicRole: (thread) => topics.roleOf(thread),
      answer: (text, replyTo, thread) => reviewChat.answer(text, replyTo, thread),
      sendPhoto: (png, caption, filename) => reviewChat.sendPhoto(png, caption, filename),
      api: bot.api,
      clock: core.desk.clock,
      log,
      callbacks: callbacks?.delivery ?? null,
    });

    // Updates that waited while the daemon was down: a ↩️ tap among them has no date the daemon can know.
    const heldWhileDown = new Set<number>();
    const deliveries = new DeliveryWatch({ feed: events, callbacks: callbacks?.delivery ?? null, clock });
    installHandlers(bot, {
      config,
      core,
      owner,
      log,
      tellReviewers: async (text) => void (await reviewChat.say(text)),
      delivered: (id) => deliveries.delivered(id),
      showTold: (id) => reviewChat.showTold(id, () => core.desk.get(id)),
      heldWhileDown,
    });

    const journal = await UpdateJournal.open(paths.updates, log);
    closers.push("update journal", () => journal.close());
    // Closed before the journal: an answer still waiting for its turn goes out (a call notes its update as answered).
    closers.push("review chat answers", () => reviewChat.drainAnswers());
    bot.api.config.use(markAnswers(journal, config.reviewChatId));
    const fetchUpdates = withPollingRetry(fetchReportingHealth(bot, health), log, clock, backoffs.poll);
    const started = await startUp({
      bot,
      core,
      journal,
      fetch: fetchUpdates,
      say: (text) => reviewChat.say(text),
      timeZone: config.reviewTimeZone ?? undefined,
      heldWhileDown,
      stopped: stopSignal.promise,
      log,
    });
    if (!started) return 0;

    const switchNoticesTold = new Set<string>();
    const token = await resolveApiToken(config, config.harnessDir, log);
    env.secrets.push(token);
    const api = await startApiServer({
      host: config.api.host,
      port: config.api.port,
      token,
      intake: core.intake,
      desk: core.desk,
      events: deliveries.readerFeed(),
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
      health,
      log,
    });
    closers.push("intake API", () => api.close());
    await owner.start();
    closers.push("owner features", () => owner.stop());

    const polling = startJournaledPolling({
      handleUpdate: (update) => bot.handleUpdate(update),
      // Each answer is noted (durably, once a minute): the next start measures an outage from the last one.
      fetch: async (args, signal) => {
        const updates = await fetchUpdates(args, signal);
        void journal.notePolled(clock.now());
        return updates;
      },
      journal,
      timeoutSeconds,
      log,
    });
    closers.push("running updates", () => polling.settle());
    // stop() returns undefined, not a promise, once the runner has ended by itself.
    closers.push("polling", () => Promise.resolve(polling.runner.stop()).catch(() => {}));
    log.info(
      { api: api.url, review_chat_id: config.reviewChatId, reviewers: [...config.reviewerIds], api_root: config.telegram.apiRoot },
      "draft-review is running",
    );
    const reason = await Promise.race([stopSignal.promise, polling.runner.task()?.then(() => "runner stopped") ?? stopSignal.promise]);
    log.info({ reason }, "stopping: draining running work");
    return 0;
  } catch (err) {
    if (err instanceof GrammyError && err.error_code === 409) {
      log.error("Telegram says another program is polling this bot (409 Conflict). Stop the other instance, or use a separate bot token.");
      return 1;
    }
    throw err;
  } finally {
    await closers.closeAll();
  }
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

/** The first stop signal, and the keep-alive that lasts until it is disposed. */
interface StopSignal {
  readonly promise: Promise<string>;
  dispose(): void;
}

/**
 * Resolves on the first SIGTERM or SIGINT. Until then it keeps the process
 * alive: the Clock's timers are unref'd, so work that waits on one during
 * start-up (a paced review-chat answer while the journal is replayed, before
 * the poller and the API server hold the event loop) would otherwise let
 * Node exit silently with code 0.
 */
function waitForStopSignal(log: Logger): StopSignal {
  const keepAlive = setInterval(() => {}, 1 << 30);
  let onSignal: (signal: NodeJS.Signals) => void = () => {};
  const promise = new Promise<string>((resolve) => {
    onSignal = (signal) => {
      log.info({ signal }, "stop requested");
      resolve(signal);
    };
  });
  process.once("SIGTERM", onSignal);
  process.once("SIGINT", onSignal);
  return {
    promise,
    dispose() {
      clearInterval(keepAlive);
      process.off("SIGTERM", onSignal);
      process.off("SIGINT", onSignal);
    },
  };
}
