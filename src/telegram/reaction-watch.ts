import { Composer, type Context } from "grammy";
import type { Clock } from "../clock/clock.js";

/**
 * Notes when a reaction in the review chat last reached the daemon, for
 * /status. Telegram documents reactions as delivered to bots that are
 * administrators, and they often never arrive from a private chat with a bot:
 * this makes that visible instead of silent. Register it before the decision
 * handlers; it passes every update on.
 */
export class ReactionWatch {
  private lastMs: number | null = null;

  constructor(
    private readonly reviewChatId: string,
    private readonly clock: Clock,
  ) {}

  /** When a reaction last arrived (Clock ms), or null: none since the start. */
  get lastReactionMs(): number | null {
    return this.lastMs;
  }

  /** The middleware: records the time of each reaction in the review chat, then goes on. */
  middleware(): Composer<Context> {
    const composer = new Composer<Context>();
    composer.on("message_reaction", async (ctx, next) => {
      if (String(ctx.messageReaction.chat.id) === this.reviewChatId) this.lastMs = this.clock.now();
      await next();
    });
    return composer;
  }
}
