import Bottleneck from "bottleneck";
import { GrammyError, type Api } from "grammy";
import type { InlineKeyboardMarkup } from "grammy/types";
import type { ReviewChat, ReviewPost } from "../desk/ports.js";
import type { DraftRecord } from "../drafts/record.js";
import { isFinal } from "../drafts/status.js";
import { isNotModified } from "./classify.js";
import { editedReviewText, reviewKeyboard, reviewPost, statusLine, type ReviewFormatOptions } from "./review-format.js";

/** The review chat's own budget: Telegram allows a group about 20 messages a minute, a chat about 1 a second. */
export interface ReviewChatLimits {
  readonly gapMs: number;
  readonly perMinute: number;
}

/** 1 message per second and 20 per minute, counting edits and notices. */
export const REVIEW_CHAT_LIMITS: ReviewChatLimits = { gapMs: 1000, perMinute: 20 };

/** Where review posts go and how they look. */
export interface TelegramReviewChatOptions extends ReviewFormatOptions {
  readonly api: Api;
  readonly chatId: string;
  readonly threadId: number | null;
  readonly limits?: ReviewChatLimits;
  readonly log: { warn(obj: object, msg: string): void };
}

// Bottleneck runs lower numbers first: posts before status edits before notices.
const PRIORITY = { post: 4, notice: 5, edit: 6 } as const;

/**
 * The review chat on Telegram. Every message and edit to it goes through one
 * Bottleneck limiter, so the daemon never needs Telegram to say 429; if it
 * does anyway, the job waits `retry_after` and tries again.
 */
export class TelegramReviewChat implements ReviewChat {
  private readonly limiter: Bottleneck;
  private readonly limits: ReviewChatLimits;
  /** When each recent message or edit started (or was claimed), for `claimFreeSlot`. */
  private readonly starts: number[] = [];
  /** Claimed slots whose post has not started yet (their start is already counted). */
  private claimed = 0;

  constructor(private readonly options: TelegramReviewChatOptions) {
    const limits = (this.limits = options.limits ?? REVIEW_CHAT_LIMITS);
    this.limiter = new Bottleneck({
      maxConcurrent: 1,
      minTime: limits.gapMs,
      reservoir: limits.perMinute,
      reservoirRefreshAmount: limits.perMinute,
      reservoirRefreshInterval: 60 * limits.gapMs,
    });
  }

  claimFreeSlot(): boolean {
    const now = Date.now();
    const { gapMs, perMinute } = this.limits;
    while (this.starts.length > 0 && this.starts[0]! <= now - 60 * gapMs) this.starts.shift();
    const counts = this.limiter.counts();
    const busy = counts.RECEIVED + counts.QUEUED + counts.RUNNING + counts.EXECUTING > 0;
    const last = this.starts.at(-1);
    if (busy || this.starts.length >= perMinute || (last !== undefined && now - last < gapMs)) return false;
    this.starts.push(now);
    this.claimed++;
    return true;
  }

  async post(draft: DraftRecord): Promise<ReviewPost> {
    const post = reviewPost(draft, this.options);
    const markup = reviewKeyboard({ ...draft, status: "pending" }, this.options);
    if (post.kind === "split") await this.call(PRIORITY.post, () => this.options.api.sendMessage(this.options.chatId, post.header, this.where()));
    const message = await this.call(PRIORITY.post, () =>
      this.options.api.sendMessage(this.options.chatId, post.text, { ...this.where(), reply_markup: markup }),
    );
    return { reviewChatId: String(message.chat.id), reviewMessageId: message.message_id };
  }

  async showStatus(draft: DraftRecord): Promise<void> {
    if (draft.review_message_id === null) return;
    const messageId = draft.review_message_id;
    const chatId = draft.review_chat_id ?? this.options.chatId;
    const markup = reviewKeyboard(draft, this.options);
    const text = editedReviewText(draft, this.options);
    try {
      if (text !== null) {
        await this.call(PRIORITY.edit, () => this.options.api.editMessageText(chatId, messageId, text, { reply_markup: markup }));
        return;
      }
      await this.call(PRIORITY.edit, () => this.options.api.editMessageReplyMarkup(chatId, messageId, { reply_markup: markup }));
    } catch (err) {
      if (isNotModified(err)) return;
      this.options.log.warn({ err, draft_id: draft.draft_id }, "could not edit the review message; telling the reviewers in a reply");
    }
    if (isFinal(draft.status) || text === null) await this.notify(draft, statusLine(draft));
  }

  async notify(draft: DraftRecord, text: string): Promise<void> {
    const chatId = draft.review_chat_id ?? this.options.chatId;
    const replyTo = draft.review_message_id;
    await this.call(PRIORITY.notice, () =>
      this.options.api.sendMessage(chatId, text, {
        ...this.where(),
        ...(replyTo === null ? {} : { reply_parameters: { message_id: replyTo, allow_sending_without_reply: true } }),
      }),
    );
  }

  /** Sends a message of the daemon's own (a command's answer) within the review chat's budget. */
  async say(text: string, buttons?: InlineKeyboardMarkup): Promise<void> {
    await this.call(PRIORITY.notice, () =>
      this.options.api.sendMessage(this.options.chatId, text, { ...this.where(), ...(buttons ? { reply_markup: buttons } : {}) }),
    );
  }

  async stop(): Promise<void> {
    await this.limiter.stop({ dropWaitingJobs: true }).catch(() => {});
  }

  private where(): { message_thread_id?: number } {
    return this.options.threadId === null ? {} : { message_thread_id: this.options.threadId };
  }

  /**
   * Runs one API call in a limiter slot; a 429 holds the slot for retry_after
   * and tries again. The slot is held for one gap after the call ends (the
   * caller has its answer already), so Telegram never sees two messages
   * closer than the gap, however long a request took to arrive.
   */
  private call<T>(priority: number, fn: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.limiter
        .schedule({ priority }, async () => {
          await this.attempt(priority, fn).then(resolve, reject);
          // Not unref'd: stop() waits for this job, and an unref'd timer as the last thing the
          // process waits for lets it exit in the middle of the shutdown (lock kept, files unclosed).
          await new Promise((r) => setTimeout(r, this.limits.gapMs));
        })
        .catch(reject);
    });
  }

  private async attempt<T>(priority: number, fn: () => Promise<T>): Promise<T> {
    if (priority === PRIORITY.post && this.claimed > 0) this.claimed--;
    else this.starts.push(Date.now());
    for (let attempt = 1; ; attempt++) {
      try {
        return await fn();
      } catch (err) {
        if (!(err instanceof GrammyError) || err.error_code !== 429 || attempt >= 5) throw err;
        const seconds = Math.max(1, Number(err.parameters.retry_after ?? 1));
        this.options.log.warn({ retry_after: seconds }, "Telegram rate-limited the review chat; waiting");
        await new Promise((r) => setTimeout(r, seconds * 1000));
      }
    }
  }
}
