import { GrammyError, type Bot } from "grammy";
import type { Logger } from "../log/logger.js";

/**
 * Gets the bot ready before anything else starts: checks the token (getMe),
 * removes a webhook that would block long polling, and waits out a network
 * that is not up yet (a laptop just woken) with backoff. A refused token is
 * final: the operator must fix it.
 */
export async function connectBot(bot: Bot, log: Logger, stop: Promise<string>): Promise<"ok" | "fatal" | "stopped"> {
  let stopped = false;
  void stop.then(() => (stopped = true));
  for (let attempt = 1; ; attempt++) {
    try {
      await bot.init();
      const hook = await bot.api.getWebhookInfo();
      if (hook.url) {
        log.warn({ webhook: "set" }, "this bot had a webhook, which blocks long polling; removing it (pending updates are kept)");
        await bot.api.deleteWebhook({ drop_pending_updates: false });
      }
      log.info({ bot: bot.botInfo.username, bot_id: bot.botInfo.id }, "connected to Telegram");
      return "ok";
    } catch (err) {
      if (err instanceof GrammyError && (err.error_code === 401 || err.error_code === 404)) {
        log.error(
          `Telegram refused TELEGRAM_BOT_TOKEN (${err.error_code}: ${err.description}). ` +
            "Copy the token again from @BotFather (/mybots → API Token) into .env, then start again.",
        );
        return "fatal";
      }
      const waitMs = Math.min(60_000, 1000 * 2 ** Math.min(attempt - 1, 6));
      log.warn({ err, retry_in_ms: waitMs }, "cannot reach Telegram yet; trying again");
      const done = await Promise.race([stop.then(() => true), new Promise<false>((r) => setTimeout(() => r(false), waitMs).unref())]);
      if (done || stopped) return "stopped";
    }
  }
}
