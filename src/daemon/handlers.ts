import { sequentialize } from "@grammyjs/runner";
import type { Bot, Context } from "grammy";
import type { Core } from "../app/core.js";
import type { Config } from "../config/config.js";
import type { Logger } from "../log/logger.js";
import { businessUpdates } from "../telegram/business-updates.js";
import { decisionHandlers } from "../telegram/decision-handlers.js";
import type { Update } from "grammy/types";
import { madeWhileDown, stampReceived } from "../telegram/received-at.js";
import type { OwnerFeatures } from "./owner-features.js";

/** What the bot's handlers are built from. */
export interface HandlerDeps {
  readonly config: Config;
  readonly core: Core;
  readonly owner: OwnerFeatures;
  readonly log: Logger;
  /** Posts a notice in the review chat (TelegramReviewChat.say). */
  readonly tellReviewers: (text: string) => Promise<void>;
  /** True once a consumer of the feed took the latest event of a draft (DeliveryWatch.delivered). */
  readonly delivered: (draftId: string) => Promise<boolean>;
  /** Edits a draft's post to say its revision note was told (TelegramReviewChat.showTold); absent: it says "queued for". */
  readonly showTold?: (draftId: string) => Promise<unknown>;
  /** Updates that waited while the daemon was down (a ↩️ among them has no date the daemon can know). */
  readonly heldWhileDown: ReadonlySet<number>;
  /** When Telegram last answered a getUpdates before this start (the update journal's note), or null: unknown. */
  readonly lastSeenBeforeStop?: () => number | null;
}

/**
 * The keys under which updates run in Telegram's order: the review message they are about, and the
 * draft that message belongs to (its post, a question, an Edit prompt, a reminder), so that two
 * actions on one draft made on two messages (a "Yes, send" on the question, then a reply `undo` on
 * the post) are never handled the other way round: the later one waits for the earlier.
 */
function orderKeys(desk: Pick<Core["desk"], "draftOfMessage">): (ctx: Context) => string[] | undefined {
  return (ctx) => {
    const u = ctx.update;
    const chat = ctx.chat?.id ?? ctx.callbackQuery?.message?.chat.id;
    const messageId = u.message_reaction?.message_id ?? u.callback_query?.message?.message_id ?? u.message?.reply_to_message?.message_id;
    if (messageId === undefined) return undefined;
    const draftId = desk.draftOfMessage(messageId)?.draft_id;
    return draftId === undefined ? [`${chat}:${messageId}`] : [`${chat}:${messageId}`, `draft:${draftId}`];
  };
}

/**
 * The bot's middleware, in order: the time each update came, per-message and per-draft serial, reaction watch, /resume
 * taps, business updates, decisions, owner commands. The one place they are
 * installed: the live daemon and the explorer (test/desk/explore) both call it.
 */
export function installHandlers(bot: Bot, deps: HandlerDeps): void {
  const { config, core, owner, log } = deps;
  // An update that waited while the daemon was down counts from when it was made, not from this start.
  const heldAt = (u: Update) => (deps.heldWhileDown.has(u.update_id) ? madeWhileDown(u, deps.lastSeenBeforeStop?.() ?? null) : undefined);
  bot.use(stampReceived(core.desk.clock, heldAt));
  bot.use(sequentialize(orderKeys(core.desk)));
  // Before the decision handlers, which refuse any button they do not know.
  bot.use(owner.reactionWatch);
  bot.use(owner.confirmations);
  bot.use(businessUpdates(core.voice));
  bot.use(
    decisionHandlers({
      desk: core.desk,
      reviewChatId: config.reviewChatId,
      reviewerIds: config.reviewerIds,
      log,
      tellReviewers: deps.tellReviewers,
      delivered: deps.delivered,
      ...(deps.showTold ? { showTold: deps.showTold } : {}),
      heldWhileDown: (updateId) => deps.heldWhileDown.has(updateId),
    }),
  );
  bot.use(owner.commands);
}
