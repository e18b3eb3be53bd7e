import { join } from "node:path";
import { Bot } from "grammy";
import type { Update } from "grammy/types";
import pino from "pino";
import { harnessPaths, openCore, type Core } from "../../../src/app/core.js";
import type { ChannelSet } from "../../../src/channels/channel-set.js";
import { proveChannels } from "../../../src/channels/configured.js";
import type { SimulatedClock } from "../../../src/clock/simulated-clock.js";
import { loadConfig, type Config } from "../../../src/config/config.js";
import { DeliveryWatch } from "../../../src/daemon/delivery-watch.js";
import { installHandlers } from "../../../src/daemon/handlers.js";
import { ownerFeatures } from "../../../src/daemon/owner-features.js";
import { startUp } from "../../../src/daemon/start-up.js";
import { auditEventFeed } from "../../../src/desk/event-feed.js";
import { unlimited } from "../../../src/send/limiter.js";
import { markAnswers } from "../../../src/telegram/answer-mark.js";
import { TelegramAudienceResolver } from "../../../src/telegram/audience-resolver.js";
import { businessConnectionCall } from "../../../src/telegram/business-updates.js";
import { handleJournaled } from "../../../src/telegram/journaled-updates.js";
import { TelegramReviewChat } from "../../../src/telegram/review-chat.js";
import { reviewChatLimits } from "../../../src/telegram/review-lane.js";
import { telegramSendCall } from "../../../src/telegram/send-call.js";
import { UpdateJournal } from "../../../src/telegram/update-journal.js";
import { BOT_ID, OWNER, SECOND_REVIEWER, type FakeTelegram } from "./fake-telegram.js";

/** UNDO_WINDOW of the explored desk. */
export const UNDO_WINDOW_MS = 30_000;
/** AUDIENCE_CONFIRM_OVER of the explored desk. */
export const CONFIRM_OVER = 1000;

const SILENT = pino({ level: "silent" });

/** Turns of the event loop the daemon's work may stay waiting on the clock alone before the harness stops waiting for it. */
const SETTLE_TURNS = 20;

/** The explored daemon's configuration on `dir`: the owner and a second reviewer, the owner's private chat with the bot. */
export function explorerConfig(dir: string, extra: Record<string, string> = {}): Config {
  return loadConfig({
    TELEGRAM_BOT_TOKEN: "123456:explorer-token-abcdefghijklmnop",
    REVIEW_CHAT_ID: String(OWNER),
    REVIEWER_USER_IDS: `${OWNER},${SECOND_REVIEWER}`,
    HARNESS_DIR: dir,
    UNDO_WINDOW: `${UNDO_WINDOW_MS / 1000}s`,
    AUDIENCE_CONFIRM_OVER: String(CONFIRM_OVER),
    DRAFT_TTL: "2h",
    DEFER_FOR: "1h",
    // A reminder 30 min after the post (its draft expires after 2 h): the explorer's clock gets there often.
    REMIND_BEFORE: "90m",
    ...extra,
  });
}

/**
 * The daemon as run.ts wires it, minus the HTTP API and the runner's long
 * poll: the real core (store, audit log, desk, send path, kill switch) on
 * real files, the real TelegramReviewChat, audience resolver, business
 * connection check and send call over the explorer's Telegram, the bot's
 * handlers installed by run.ts's own installHandlers, its update journal
 * (each update journaled, then handled as the poller does) and its start-up
 * sequence (startUp: the journal's leftovers, the business refresh, the
 * updates that waited while it was down, recovery). One instance is one run
 * of the daemon; a restart closes it and opens another on the same directory
 * and clock.
 */
export class DeskHarness {
  private constructor(
    readonly core: Core,
    readonly config: Config,
    private readonly bot: Bot,
    private readonly reviewChat: TelegramReviewChat,
    private readonly journal: UpdateJournal,
    private readonly clock: SimulatedClock,
  ) {}

  /** Updates whose handling has not finished. */
  private readonly handling = new Set<Promise<void>>();

  /** Opens the daemon on `dir` and runs its start-up, as runDaemon does. */
  static async open(dir: string, clock: SimulatedClock, telegram: FakeTelegram, channels: ChannelSet | null = null): Promise<DeskHarness> {
    const config = explorerConfig(dir);
    const log = SILENT;
    const bot = new Bot(config.telegram.token!, {
      botInfo: {
        id: BOT_ID,
        is_bot: true,
        first_name: "Explorer",
        username: "explorer_bot",
        can_join_groups: true,
        can_read_all_group_messages: false,
        supports_inline_queries: false,
        can_connect_to_business: true,
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
      // run.ts's pace (a private chat: a message or edit a second): the owner sees each one when Telegram accepts it.
      limits: reviewChatLimits(config.reviewChatId),
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
      // run.ts polls the kill switch every second; its file watch and the check at each send do not wait for a poll.
      // Every 30 s here: a poll reads three files, the explorer moves its clock by hours, and a run's halts reach the
      // daemon without a poll (.env writes get a look at once, /halt is its own); forged audit lines wait for the next look.
      // At 5 s the polls were two thirds of a run's CPU time (node --cpu-prof, seed 777).
      haltPollMs: 30_000,
      // Linear, email and Slack (contract v5) as the explorer's in-process services; their rate windows are the limiter's.
      channels,
      business: {
        botUsername: "explorer_bot",
        fetchConnection: businessConnectionCall(bot.api),
        tell: (text) => reviewChat.say(text),
      },
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
    const heldWhileDown = new Set<number>();
    const deliveries = new DeliveryWatch({ feed: auditEventFeed(core.audit), callbacks: null, clock });
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
    const journal = await UpdateJournal.open(harnessPaths(dir).updates, log);
    bot.api.config.use(markAnswers(journal, config.reviewChatId));
    const harness = new DeskHarness(core, config, bot, reviewChat, journal, clock);
    // As start-steps.ts does: each channel proves its credentials; one refused is halted, the review chat told.
    if (channels !== null) await harness.passTimeUntil(proveChannels(channels, log, (text) => reviewChat.say(text)));
    // Time passes while the daemon starts (a notice it posts waits for the review chat's pace).
    await harness.passTimeUntil(
      startUp({
        bot,
        core,
        journal,
        fetch: async (args) => telegram.getUpdates(args.offset, args.limit),
        say: (text) => reviewChat.say(text),
        timeZone: "UTC",
        heldWhileDown,
        stopped: new Promise(() => {}),
        log,
      }),
    );
    await harness.quiesce();
    return harness;
  }

  /**
   * Takes one update as the poller does (journaled, then handled), and lets
   * the daemon do what it can at this moment. Its handling goes on while the
   * owner acts (the runner handles updates side by side, one message's in
   * order): an answer waiting for the review chat's pace comes as the clock
   * moves.
   */
  async deliver(update: Update): Promise<void> {
    await this.journal.record([update]);
    const handling: Promise<void> = handleJournaled(update, {
      handleUpdate: (u) => this.bot.handleUpdate(u),
      journal: this.journal,
      log: SILENT,
    }).finally(() => this.handling.delete(handling));
    this.handling.add(handling);
    await this.journal.notePolled(this.clock.now());
    await this.quiesce();
  }

  /** Moves the clock, letting each timer's work finish before the next fires; Telegram answered the poll all along. */
  async advance(ms: number): Promise<void> {
    await this.clock.advance(ms, () => this.settleOnce());
    await this.journal.notePolled(this.clock.now());
    await this.quiesce();
  }

  /** Lets the daemon do all it can without the clock moving: its desk, the updates it handles, the review chat's calls. */
  async quiesce(): Promise<void> {
    for (let i = 0; i < 3; i++) {
      await this.settleOnce();
      await this.clock.advance(0, () => this.settleOnce());
    }
  }

  /**
   * Lets time pass until `work` settles: the clock moves a quarter second
   * whenever what is left waits on it (the review chat's pace; or nothing
   * moved for 50 turns of real time: a timer of its own), at most 10
   * simulated minutes; a file write under way is waited for in real time.
   */
  async passTimeUntil<T>(work: Promise<T>): Promise<T> {
    let done = false;
    const watched = work.finally(() => {
      done = true;
    });
    for (let moves = 0, still = 0; !done && moves < 2400; ) {
      await this.settleOnce();
      if (done) break;
      if (this.reviewChat.waitsOnClock || still >= 50) {
        await this.clock.advance(250, () => this.settleOnce());
        moves++;
        // Waiting on a timer of its own: the next quarter second comes after 10 turns, not 50.
        still = still >= 50 ? 40 : 0;
      } else {
        await new Promise((resolve) => setTimeout(resolve, 1));
        still++;
      }
    }
    await this.quiesce();
    return watched;
  }

  /**
   * Waits until the desk is settled, the updates handled and the review chat
   * idle, or until what is left waits on the clock alone (the review chat's
   * pace, a send holding its turn): then a few more turns of the event loop
   * let a file write under way finish.
   */
  private async settleOnce(): Promise<void> {
    let done = false;
    let laneIdle = false;
    const all = Promise.all([this.core.desk.settle(), ...this.handling]).then(
      () => void (done = true),
      () => void (done = true),
    );
    const idle = this.reviewChat.whenIdle().then(() => void (laneIdle = true));
    for (let blocked = 0, turns = 0; !(done && laneIdle) && blocked < SETTLE_TURNS && turns < 100_000; turns++) {
      await Promise.race([all.then(() => idle), new Promise((resolve) => setImmediate(resolve))]);
      blocked = this.reviewChat.waitsOnClock || done ? blocked + 1 : 0;
    }
  }

  /**
   * Stops as run.ts's closers do: the updates being handled finish, the
   * review chat's waiting answers go out (time passes meanwhile), the update
   * journal (noting the last poll), the review chat's other waiting work,
   * then the core.
   */
  async close(): Promise<void> {
    await this.passTimeUntil(Promise.all(this.handling));
    await this.passTimeUntil(this.reviewChat.drainAnswers());
    await this.journal.notePolled(this.clock.now());
    await this.journal.close();
    await this.reviewChat.stop();
    await this.core.close();
  }
}
