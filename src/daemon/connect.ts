import { GrammyError, type Bot } from "grammy";
import type { Clock } from "../clock/clock.js";
import type { Logger } from "../log/logger.js";
import { backoffMs, CONNECT_BACKOFF, type Backoff } from "../retry/backoff.js";

/**
 * Gets the bot ready before anything else starts: checks the token (getMe),
 * removes a webhook that would block long polling, and waits out a network
 * that is not up yet (a laptop just woken) with backoff. A refused token is
 * final: the operator must fix it. The stop signal aborts every call at once
 * (grammY's `bot.init()` retries a network error by itself for up to an hour).
 */
export async function connectBot(
  bot: Bot,
  log: Logger,
  stop: Promise<string>,
  clock: Clock,
  backoff: Backoff = CONNECT_BACKOFF,
): Promise<"ok" | "fatal" | "stopped"> {
  let stopped = false;
  const abort = new AbortController();
  void stop.then(() => {
    stopped = true;
    abort.abort();
  });
  // grammY types its signal with the abort-controller shim; Node's own AbortSignal is what it gets at run time.
  const signal = abort.signal as Parameters<Bot["init"]>[0];
  for (let attempt = 1; ; attempt++) {
    try {
      await bot.init(signal);
      const hook = await bot.api.getWebhookInfo(signal);
      if (hook.url) {
        log.warn({ webhook: "set" }, "this bot had a webhook, which blocks long polling; removing it (pending updates are kept)");
        await bot.api.deleteWebhook({ drop_pending_updates: false }, signal);
      }
      log.info({ bot: bot.botInfo.username, bot_id: bot.botInfo.id }, "connected to Telegram");
      return "ok";
    } catch (err) {
      if (stopped) return "stopped";
      if (err instanceof GrammyError && (err.error_code === 401 || err.error_code === 404)) {
        log.error(
          `Telegram refused TELEGRAM_BOT_TOKEN (${err.error_code}: ${err.description}). ` +
            "Copy the token again from @BotFather (/mybots → API Token) into .env, then start again.",
        );
        return "fatal";
      }
      const waitMs = backoffMs(backoff, attempt);
      log.warn({ err, retry_in_ms: waitMs }, "cannot reach Telegram yet; trying again");
      const done = await Promise.race([stop.then(() => true), new Promise<false>((r) => clock.setTimeout(() => r(false), waitMs))]);
      if (done || stopped) return "stopped";
    }
  }
}
