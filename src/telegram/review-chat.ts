import { GrammyError, InputFile, type Api } from "grammy";
import type { InlineKeyboardMarkup, LinkPreviewOptions, MessageEntity } from "grammy/types";
import type { Clock } from "../clock/clock.js";
import type { SurfaceState } from "../audit/audit-schema.js";
import type { Asked, ReviewChat, ReviewPost } from "../desk/ports.js";
import type { Decision, DraftRecord } from "../drafts/record.js";
import { isFinal } from "../drafts/status.js";
import { isNotModified } from "./classify.js";
import { linkPreviewFor } from "./link-preview.js";
import { editPrompt, supersededText } from "./flow-format.js";
import {
  asBotMarkup,
  askMessage,
  confirmMessage,
  editedReviewText,
  reviewKeyboard,
  reviewPost,
  statusText,
  type FormattedText,
  type ReviewFormatOptions,
} from "./review-format.js";
import { BurstTracker } from "./burst-summary.js";
import { closedMessage, reminderMessage } from "./closing-format.js";
import { LANE, REVIEW_CHAT_LIMITS, ReviewLane, type Lane, type ReviewChatLimits, type Turn } from "./review-lane.js";

export { REVIEW_CHAT_LIMITS, type ReviewChatLimits } from "./review-lane.js";

/** Where review posts go and how they look. */
export interface TelegramReviewChatOptions extends Omit<ReviewFormatOptions, "now"> {
  readonly api: Api;
  readonly chatId: string;
  readonly threadId: number | null;
  readonly clock: Clock;
  readonly limits?: ReviewChatLimits;
  readonly log: { warn(obj: object, msg: string): void };
}

/**
 * How many of the bot's latest messages in the review chat it knows as its own (a reaction on one that
 * takes no decision, a command's answer say, is answered at once); older ones are answered at most once per 10 s.
 */
const OWN_MESSAGES_KEPT = 512;

/** How often a 429 in the review chat is waited out before the call gives up. */
const MAX_ATTEMPTS = 5;

/** No preview for the daemon's own messages (they carry no links of the draft). */
const NO_PREVIEW: LinkPreviewOptions = { is_disabled: true };

/**
 * The review chat on Telegram. Every message and edit to it goes through one
 * ReviewLane on the injected clock, so the daemon never needs Telegram to say
 * 429, and the owner's answers overtake queued review posts; if Telegram says
 * 429 anyway, the call waits `retry_after` and tries again (this is the only
 * retry of a sendMessage: the send to a destination is never retried blindly).
 */
export class TelegramReviewChat implements ReviewChat {
  private readonly lane: ReviewLane;
  private readonly format: ReviewFormatOptions;
  private readonly burst = new BurstTracker();
  /** The ids of the bot's latest messages here (see isOwnMessage). */
  private readonly own = new Set<number>();

  constructor(private readonly options: TelegramReviewChatOptions) {
    this.lane = new ReviewLane(options.clock, options.limits ?? REVIEW_CHAT_LIMITS);
    this.format = { deferForMs: options.deferForMs, timeZone: options.timeZone, now: () => options.clock.now() };
  }

  isOwnMessage(messageId: number): boolean {
    return this.own.has(messageId);
  }

  claimFreeSlot(): boolean {
    return this.lane.claimFreeSlot();
  }

  /**
   * Posts the draft: one message, or a header and the draft as a reply to it,
   * in one job so that no other post comes between them. The buttons are on
   * the message that holds the draft.
   */
  async post(draft: DraftRecord): Promise<ReviewPost> {
    const post = reviewPost(draft, this.format);
    const markup = reviewKeyboard({ ...draft, status: "pending" }, this.format);
    const preview = linkPreviewFor(draft.draft_text);
    const { api, chatId } = this.options;
    // A new version (payload `revises`) replies to the earlier draft's post: its quote leads there.
    const earlier =
      draft.revises_post === null ? {} : { reply_parameters: { message_id: draft.revises_post, allow_sending_without_reply: true } };
    const waiting = {};
    if (this.burst.add(waiting, draft.drafted_by_role)) void this.announceBurst();
    let header: { message_id: number } | undefined;
    const message = await this.lane
      .run(LANE.post, async (turn) => {
        this.burst.remove(waiting);
        if (post.kind === "single") {
          return this.attempt(turn, () =>
            api.sendMessage(chatId, post.message.text, {
              ...this.where(),
              entities: post.message.entities,
              link_preview_options: preview,
              reply_markup: markup,
              ...earlier,
            }),
          );
        }
        const first = await this.attempt(turn, () =>
          api.sendMessage(chatId, post.header.text, {
            ...this.where(),
            entities: post.header.entities,
            link_preview_options: NO_PREVIEW,
            ...earlier,
          }),
        );
        header = first;
        return this.attempt(turn, () =>
          api.sendMessage(chatId, post.draft.text, {
            ...this.where(),
            entities: post.draft.entities,
            link_preview_options: preview,
            reply_markup: markup,
            reply_parameters: { message_id: first.message_id, allow_sending_without_reply: true },
          }),
        );
      })
      .finally(() => this.burst.remove(waiting));
    const split = header === undefined ? {} : { headerMessageId: header.message_id };
    return { reviewChatId: String(message.chat.id), reviewMessageId: message.message_id, ...split };
  }

  /** One line before a burst's posts, counting the drafts waiting when it goes out by role (see BURST_MIN_WAITING). */
  private async announceBurst(): Promise<void> {
    const { api, chatId } = this.options;
    await this.lane
      .run(LANE.notice, async (turn) => {
        const text = this.burst.summary();
        if (text !== null)
          await this.attempt(turn, () => api.sendMessage(chatId, text, { ...this.where(), link_preview_options: NO_PREVIEW }));
      })
      .catch((err: unknown) => this.options.log.warn({ err }, "could not post the summary of a burst of drafts"));
  }

  async showStatus(draft: DraftRecord): Promise<void> {
    if (draft.review_message_id === null) return;
    const messageId = draft.review_message_id;
    const chatId = draft.review_chat_id ?? this.options.chatId;
    const markup = reviewKeyboard(draft, this.format);
    const edited = editedReviewText(draft, this.format);
    const { api } = this.options;
    try {
      if (edited !== null) {
        await this.once(LANE.edit, () =>
          api.editMessageText(chatId, messageId, edited.text, {
            entities: edited.entities,
            link_preview_options: linkPreviewFor(draft.draft_text),
            reply_markup: markup,
          }),
        );
        return;
      }
      await this.once(LANE.edit, () => api.editMessageReplyMarkup(chatId, messageId, { reply_markup: markup }));
    } catch (err) {
      if (isNotModified(err)) return;
      this.options.log.warn({ err, draft_id: draft.draft_id }, "could not edit the review message; telling the reviewers in a reply");
    }
    if (isFinal(draft.status) || edited === null) await this.replyTo(draft, LANE.notice, statusText(draft, this.format));
  }

  async notify(draft: DraftRecord, text: string): Promise<number> {
    return this.replyTo(draft, LANE.notice, text);
  }

  /** Asks for the extra tap a 👍 needs for a large audience, as a reply to the review post, ahead of queued posts. */
  async askConfirmation(draft: DraftRecord): Promise<Asked> {
    const { text, markup, question } = confirmMessage(draft);
    return { messageId: await this.replyTo(draft, LANE.answer, text, markup), question };
  }

  /** The notice of a draft the owner's identity could not send, with "🤖 Send as the bot instead", as a reply to the review post. */
  async offerAsBot(draft: DraftRecord, text: string): Promise<number> {
    return this.replyTo(draft, LANE.notice, text, asBotMarkup(draft));
  }

  /** Asks what a reply "ok" meant, as a reply to it, ahead of queued posts (see askMessage). */
  async askApproval(draft: DraftRecord, note: string, replyTo: number): Promise<Asked> {
    const { text, markup, question } = askMessage(draft, note);
    const message = await this.once(LANE.answer, () =>
      this.options.api.sendMessage(draft.review_chat_id ?? this.options.chatId, text, {
        ...this.where(),
        link_preview_options: NO_PREVIEW,
        reply_markup: markup,
        reply_parameters: { message_id: replyTo, allow_sending_without_reply: true },
      }),
    );
    return { messageId: message.message_id, question };
  }

  /** The REMIND_BEFORE reminder, as a reply to the draft's post (a reply notifies; an edit does not), with the post's buttons. */
  async remind(draft: DraftRecord): Promise<{ text: string; messageId: number }> {
    const reminder = reminderMessage(draft, this.format);
    const messageId = await this.replyTo(draft, LANE.notice, reminder, reviewKeyboard(draft, this.format));
    return { text: reminder.text, messageId };
  }

  /** Shows a reminder as it was sent, with the post's buttons, again (its draft's approval was undone). */
  async reopenReminder(surface: SurfaceState, draft: DraftRecord): Promise<void> {
    const { text, entities } = reminderMessage(draft, this.format);
    await this.editSurface(surface, LANE.notice, text, entities, reviewKeyboard(draft, this.format));
  }

  /**
   * Edits a question or reminder that counts no more to say what became of it
   * (see closedMessage), and takes its buttons off. A question just answered
   * goes with the answers; one the draft left behind waits behind status edits.
   */
  async close(surface: SurfaceState, draft: DraftRecord, chose: Decision | null): Promise<void> {
    const { text, entities } = closedMessage(surface, draft, chose, this.format);
    await this.editSurface(surface, chose === null ? LANE.notice : LANE.answer, text, entities, { inline_keyboard: [] });
  }

  /** Edits a question or reminder to `text` with `markup`; "not modified" is no failure. */
  private async editSurface(surface: SurfaceState, lane: Lane, text: string, entities: MessageEntity[], markup: InlineKeyboardMarkup) {
    try {
      await this.once(lane, () =>
        this.options.api.editMessageText(surface.chat_id, surface.message_id, text, {
          entities,
          link_preview_options: NO_PREVIEW,
          reply_markup: markup,
        }),
      );
    } catch (err) {
      if (!isNotModified(err)) throw err;
    }
  }

  /** Sends a message of the daemon's own (a command's answer, a refusal, a confirmation) ahead of queued review posts; `entities`: its times. */
  async say(text: string, buttons?: InlineKeyboardMarkup, entities?: MessageEntity[]): Promise<number> {
    const message = await this.once(LANE.answer, () =>
      this.options.api.sendMessage(this.options.chatId, text, {
        ...this.where(),
        ...(entities && entities.length > 0 ? { entities } : {}),
        link_preview_options: NO_PREVIEW,
        ...(buttons ? { reply_markup: buttons } : {}),
      }),
    );
    return message.message_id;
  }

  /** Sends a picture (PNG) with a caption of the daemon's own, ahead of queued review posts; resolves with its message id. */
  async sendPhoto(png: Uint8Array, caption: string, filename: string): Promise<number> {
    const message = await this.once(LANE.answer, () =>
      this.options.api.sendPhoto(this.options.chatId, new InputFile(png, filename), { ...this.where(), caption }),
    );
    return message.message_id;
  }

  async markSuperseded(draft: DraftRecord, reviewMessageId: number): Promise<void> {
    const chatId = draft.review_chat_id ?? this.options.chatId;
    try {
      await this.once(LANE.edit, () =>
        this.options.api.editMessageText(chatId, reviewMessageId, supersededText(draft), {
          link_preview_options: NO_PREVIEW,
          reply_markup: { inline_keyboard: [] },
        }),
      );
    } catch (err) {
      if (!isNotModified(err)) throw err;
    }
  }

  /** The ✏️ Edit prompt, as a reply to the review post, ahead of queued posts: the text to copy and a ForceReply. */
  async promptEdit(draft: DraftRecord): Promise<number> {
    const { text, entities } = editPrompt(draft);
    const replyTo = draft.review_message_id;
    const message = await this.once(LANE.answer, () =>
      this.options.api.sendMessage(draft.review_chat_id ?? this.options.chatId, text, {
        ...this.where(),
        entities,
        link_preview_options: NO_PREVIEW,
        reply_markup: { force_reply: true, selective: true, input_field_placeholder: "The new text of the draft" },
        ...(replyTo === null ? {} : { reply_parameters: { message_id: replyTo, allow_sending_without_reply: true } }),
      }),
    );
    return message.message_id;
  }

  async answer(text: string, replyTo: number | null): Promise<number> {
    const message = await this.once(LANE.answer, () =>
      this.options.api.sendMessage(this.options.chatId, text, {
        ...this.where(),
        link_preview_options: NO_PREVIEW,
        ...(replyTo === null ? {} : { reply_parameters: { message_id: replyTo, allow_sending_without_reply: true } }),
      }),
    );
    return message.message_id;
  }

  /** Resolves when no call is running; for tests that move a simulated clock. */
  whenIdle(): Promise<void> {
    return this.lane.whenIdle();
  }

  /** How many review-chat jobs wait. */
  get queued(): number {
    return this.lane.queued;
  }

  async stop(): Promise<void> {
    this.lane.stop();
    await this.lane.whenIdle();
  }

  /** Sends `message` (a text, or one with entities: times) as a reply to the draft's post, in `lane`; resolves with its id. */
  private async replyTo(draft: DraftRecord, lane: Lane, message: string | FormattedText, markup?: InlineKeyboardMarkup): Promise<number> {
    const chatId = draft.review_chat_id ?? this.options.chatId;
    const replyTo = draft.review_message_id;
    const { text, entities } = typeof message === "string" ? { text: message, entities: [] } : message;
    const sent = await this.once(lane, () =>
      this.options.api.sendMessage(chatId, text, {
        ...this.where(),
        ...(entities.length > 0 ? { entities } : {}),
        link_preview_options: NO_PREVIEW,
        ...(markup ? { reply_markup: markup } : {}),
        ...(replyTo === null ? {} : { reply_parameters: { message_id: replyTo, allow_sending_without_reply: true } }),
      }),
    );
    return sent.message_id;
  }

  private where(): { message_thread_id?: number } {
    return this.options.threadId === null ? {} : { message_thread_id: this.options.threadId };
  }

  /** Remembers the id of a message the call sent (the last OWN_MESSAGES_KEPT: a constant, whatever the history). */
  private noteOwn(result: unknown): void {
    if (typeof result !== "object" || result === null || !("message_id" in result)) return;
    const id = (result as { message_id: number }).message_id;
    this.own.delete(id);
    this.own.add(id);
    if (this.own.size > OWN_MESSAGES_KEPT) this.own.delete(this.own.values().next().value as number);
  }

  /** One call as its own job in `lane`. */
  private once<T>(lane: Lane, fn: () => Promise<T>): Promise<T> {
    return this.lane.run(lane, (turn) => this.attempt(turn, fn));
  }

  /** One call in its turn; a 429 pauses the whole review chat for retry_after, then it tries again. */
  private async attempt<T>(turn: Turn, fn: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      await turn();
      try {
        const result = await fn();
        this.noteOwn(result);
        return result;
      } catch (err) {
        if (!(err instanceof GrammyError) || err.error_code !== 429 || attempt >= MAX_ATTEMPTS) throw err;
        const seconds = Math.max(1, Number(err.parameters.retry_after ?? 1));
        this.options.log.warn({ retry_after: seconds }, "Telegram rate-limited the review chat; waiting");
        this.lane.pause(seconds * 1000);
      }
    }
  }
}
