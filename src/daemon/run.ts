import { Bot, GrammyError } from "grammy";
import { systemClock } from "../clock/clock.js";
import type { Config } from "../config/config.js";
import type { Logger } from "../log/logger.js";
import { scaledBackoffs } from "../retry/backoff.js";
import { Closers } from "./closers.js";
import { connectBot } from "./connect.js";
import { startUp } from "./start-up.js";
import {
  installUpdateHandlers,
  openDaemonCore,
  openReviewChat,
  openUpdateJournal,
  startFeeds,
  startIntakeApi,
  startOwnerFeatures,
  startPolling,
  startUpTells,
  type DaemonBase,
  type DaemonEnv,
} from "./start-steps.js";
import { waitForStopSignal, type StopSignal } from "./stop-signal.js";

export type { DaemonEnv };

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

/**
 * The start as a list of named steps (each in start-steps.ts builds one part
 * from the parts before it and registers its closer), then the wait for a stop.
 */
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
    const base: DaemonBase = { config, log, bot, clock, backoffs, closers, stopSignal };
    const chat = await openReviewChat(base);
    const core = await openDaemonCore(base, chat.reviewChat, env);
    const feed = await startFeeds(base, core);
    const owner = startOwnerFeatures(base, chat, core, feed);
    const updates = installUpdateHandlers(base, chat.reviewChat, core, owner, feed);
    const journal = await openUpdateJournal(base, chat.reviewChat, feed.health);
    // The updates that waited while the daemon was down count from when they were made (B1 of issue 32).
    updates.lastSeen.before = journal.journal.polledBefore;
    const started = await startUp({
      bot,
      core,
      journal: journal.journal,
      fetch: journal.fetch,
      ...startUpTells(base, chat.reviewChat, updates),
    });
    if (!started) return 0;
    const api = await startIntakeApi(base, { reviewChat: chat.reviewChat, core, owner, feed, updates, env });
    await owner.start();
    closers.push("owner features", () => owner.stop());
    const polling = startPolling(base, journal);
    log.info(
      { api: api.url, review_chat_id: config.reviewChatId, reviewers: [...config.reviewerIds], api_root: config.telegram.apiRoot },
      "draft-review is running",
    );
    const reason = await Promise.race([stopSignal.promise, polling.runner.task()?.then(() => "runner stopped") ?? stopSignal.promise]);
    log.info({ reason }, "stopping: draining running work");
    return 0;
  } catch (err) {
    return exitCodeOf(err, log);
  } finally {
    await closers.closeAll();
  }
}

/** 1 for another program polling the bot (409 Conflict), said in words; anything else is a bug and thrown on. */
function exitCodeOf(err: unknown, log: Logger): number {
  if (err instanceof GrammyError && err.error_code === 409) {
    log.error("Telegram says another program is polling this bot (409 Conflict). Stop the other instance, or use a separate bot token.");
    return 1;
  }
  throw err;
}
