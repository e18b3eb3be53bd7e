/**
 * Every Bot API call TelegramReviewChat makes, taken in its turn of the review lane: a 429 pauses
 * the whole review chat for retry_after and the call tries again (the only retry of a sendMessage:
 * a send to a destination is never retried blindly), and the id of each message sent is remembered
 * so the bot knows its own messages. Apart from the chat because it is the one gate all of its
 * calls pass, whatever they say.
 */
import { GrammyError } from "grammy";
import type { Lane, ReviewLane, Turn } from "./review-lane.js";

/**
 * How many of the bot's latest messages in the review chat it knows as its own (a reaction on one that
 * takes no decision, a command's answer say, is answered at once); older ones are answered at most once per 10 s.
 */
const OWN_MESSAGES_KEPT = 512;

/** How often a 429 in the review chat is waited out before the call gives up. */
const MAX_ATTEMPTS = 5;

/** The review chat's calls, paced by its lane; see the file's comment. */
export class PacedCalls {
  /** The ids of the bot's latest messages here (see isOwnMessage). */
  private readonly own = new Set<number>();

  constructor(
    private readonly lane: ReviewLane,
    private readonly log: { warn(obj: object, msg: string): void },
  ) {}

  /** True when the bot sent the message (one of its last OWN_MESSAGES_KEPT). */
  isOwnMessage(messageId: number): boolean {
    return this.own.has(messageId);
  }

  /** One call as its own job in `lane`. */
  once<T>(lane: Lane, fn: () => Promise<T>): Promise<T> {
    return this.lane.run(lane, (turn) => this.attempt(turn, fn));
  }

  /** One call in its turn; a 429 pauses the whole review chat for retry_after, then it tries again. */
  async attempt<T>(turn: Turn, fn: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      await turn();
      try {
        const result = await fn();
        this.noteOwn(result);
        return result;
      } catch (err) {
        if (!(err instanceof GrammyError) || err.error_code !== 429 || attempt >= MAX_ATTEMPTS) throw err;
        const seconds = Math.max(1, Number(err.parameters.retry_after ?? 1));
        this.log.warn({ retry_after: seconds }, "Telegram rate-limited the review chat; waiting");
        this.lane.pause(seconds * 1000);
      }
    }
  }

  /** Remembers the id of a message the call sent (the last OWN_MESSAGES_KEPT: a constant, whatever the history). */
  private noteOwn(result: unknown): void {
    if (typeof result !== "object" || result === null || !("message_id" in result)) return;
    const id = (result as { message_id: number }).message_id;
    this.own.delete(id);
    this.own.add(id);
    if (this.own.size > OWN_MESSAGES_KEPT) this.own.delete(this.own.values().next().value as number);
  }
}
