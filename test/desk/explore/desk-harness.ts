import { join } from "node:path";
import { Bot, type Context } from "grammy";
import type { Update } from "grammy/types";
import pino from "pino";
import { openCore, type Core } from "../../../src/app/core.js";
import type { SimulatedClock } from "../../../src/clock/simulated-clock.js";
import { loadConfig, type Config } from "../../../src/config/config.js";
import { ownerFeatures } from "../../../src/daemon/owner-features.js";
import { resumeDrafts } from "../../../src/desk/recovery.js";
import { unlimited } from "../../../src/send/limiter.js";
import { TelegramAudienceResolver } from "../../../src/telegram/audience-resolver.js";
import { businessUpdates } from "../../../src/telegram/business-updates.js";
import { decisionHandlers } from "../../../src/telegram/decision-handlers.js";
import { TelegramReviewChat } from "../../../src/telegram/review-chat.js";
import { telegramSendCall } from "../../../src/telegram/send-call.js";
import { BOT_ID, OWNER, type FakeTelegram } from "./fake-telegram.js";

/** UNDO_WINDOW of the explored desk. */
export const UNDO_WINDOW_MS = 30_000;
/** AUDIENCE_CONFIRM_OVER of the explored desk. */
export const CONFIRM_OVER = 1000;

/** No pacing in the review chat: the explorer moves the clock itself, and every post goes out at once. */
const UNPACED = { gapMs: 0, perMinute: 1_000_000, reservedForAnswers: 0 };

/**
 * The daemon as run.ts wires it, minus polling and the HTTP API: the real
 * core (store, audit log, desk, send path, kill switch) on real files, the
 * real TelegramReviewChat, audience resolver and send call over the
 * explorer's Telegram, and the real grammY handlers (the /resume taps, the
 * decision handlers, the owner commands) fed Update JSON. One instance is
 * one run of the daemon; a restart closes it and opens another on the same
 * directory and clock.
 */
export class DeskHarness {
  private constructor(
    readonly core: Core,
    readonly config: Config,
    private readonly bot: Bot,
    private readonly reviewChat: TelegramReviewChat,
    private readonly clock: SimulatedClock,
  ) {}

  /** Opens the daemon on `dir` and runs its start-up recovery, as runDaemon does. */
  static async open(dir: string, clock: SimulatedClock, telegram: FakeTelegram): Promise<DeskHarness> {
    const config = loadConfig({
      TELEGRAM_BOT_TOKEN: "123456:explorer-token-abcdefghijklmnop",
      REVIEW_CHAT_ID: String(OWNER),
      HARNESS_DIR: dir,
      UNDO_WINDOW: `${UNDO_WINDOW_MS / 1000}s`,
      AUDIENCE_CONFIRM_OVER: String(CONFIRM_OVER),
      DRAFT_TTL: "2h",
      DEFER_FOR: "1h",
    });
    const log = pino({ level: "silent" });
    const bot = new Bot(config.telegram.token!, {
      botInfo: {
        id: BOT_ID,
        is_bot: true,
        first_name: "Explorer",
        username: "explorer_bot",
        can_join_groups: true,
        can_read_all_group_messages: false,
        supports_inline_queries: false,
        can_connect_to_business: false,
        has_main_web_app: false,
      } as never,
    });
    bot.api.config.use(telegram.transformer);
    const reviewChat = new TelegramReviewChat({
      api: bot.api,
      chatId: config.reviewChatId,
      threadId: null,
      deferForMs: config.deferForMs,
      timeZone: "UTC",
      clock,
      limits: UNPACED,
      log,
    });
    const core = await openCore(config, log, {
      clock,
      makeReviewChat: () => reviewChat,
      sendCall: telegramSendCall(bot.api),
      audience: new TelegramAudienceResolver({ api: bot.api, botId: BOT_ID, clock }),
      limiter: unlimited(),
      redact: null,
      processSwitchValue: undefined,
      envFilePath: join(dir, ".env"),
      haltPollMs: 1000,
    });
    const owner = ownerFeatures({
      config,
      core,
      say: (text, buttons, entities) => reviewChat.say(text, buttons, entities),
      answer: (text, replyTo) => reviewChat.answer(text, replyTo),
      sendPhoto: (png, caption, filename) => reviewChat.sendPhoto(png, caption, filename),
      api: bot.api,
      clock,
      log,
    });
    // In run.ts's order (installHandlers): the reaction watch, /resume taps and business updates before the decision handlers.
    bot.use(owner.reactionWatch as never as (ctx: Context, next: () => Promise<void>) => Promise<void>);
    bot.use(owner.confirmations);
    bot.use(businessUpdates(core.voice) as never as (ctx: Context, next: () => Promise<void>) => Promise<void>);
    bot.use(
      decisionHandlers({
        desk: core.desk,
        reviewChatId: config.reviewChatId,
        reviewerIds: config.reviewerIds,
        log,
        tellReviewers: async (text) => void (await reviewChat.say(text)),
      }),
    );
    bot.use(owner.commands as never as (ctx: Context, next: () => Promise<void>) => Promise<void>);
    const harness = new DeskHarness(core, config, bot, reviewChat, clock);
    await resumeDrafts(core.desk);
    await harness.quiesce();
    return harness;
  }

  /** Hands one update to the bot's handlers, then waits until the desk has nothing left to do now. */
  async deliver(update: Update): Promise<void> {
    await this.bot.handleUpdate(update);
    await this.quiesce();
  }

  /** Moves the clock, letting each timer's work finish before the next fires. */
  async advance(ms: number): Promise<void> {
    await this.clock.advance(ms, () => this.settleOnce());
    await this.quiesce();
  }

  /** Waits until no desk work, review-chat call or due timer is left at this moment. */
  async quiesce(): Promise<void> {
    for (let i = 0; i < 4; i++) {
      await this.settleOnce();
      await this.clock.advance(0, () => this.settleOnce());
    }
  }

  private async settleOnce(): Promise<void> {
    await this.core.desk.settle();
    await this.reviewChat.whenIdle();
    await new Promise((resolve) => setImmediate(resolve));
    await this.core.desk.settle();
  }

  /** Stops as the daemon stops: the review chat's waiting work first, then the core. */
  async close(): Promise<void> {
    await this.reviewChat.stop();
    await this.core.close();
  }
}
