import { InputFile, type Api } from "grammy";
import type { InlineKeyboardMarkup, LinkPreviewOptions, Message, MessageEntity } from "grammy/types";
import type { SurfaceState } from "../audit/audit-schema.js";
import type { Clock } from "../clock/clock.js";
import type { Asked, ReviewChat, ReviewPost, StatusShown } from "../desk/ports.js";
import type { Decision, DraftRecord } from "../drafts/record.js";
import type { ConfirmNeed } from "../drafts/decide.js";
import { isNotModified, isReplyTargetGone, isThreadGone } from "./classify.js";
import { editPrompt, supersededText } from "./flow-format.js";
import { asBotMarkup, askMessage, confirmMessage, reviewKeyboard } from "./review-buttons.js";
import type { FormattedText, ReviewFormatOptions } from "./review-format.js";
import { BurstNotices } from "./burst-notices.js";
import { PostsAsMade } from "./posts-as-made.js";
import { PacedCalls } from "./paced-calls.js";
import { postInThread, type PostPlace } from "./post-messages.js";
import { DailyLegend } from "./daily-legend.js";
import { closedMessage, reminderMessage } from "./closing-format.js";
import { StatusEdits } from "./status-edits.js";
import { goneTopicLead, withLead } from "./topic-gone.js";
import { LANE, REVIEW_CHAT_LIMITS, ReviewLane, type Lane, type ReviewChatLimits } from "./review-lane.js";
import type { PacedCall, ReviewTopics } from "./review-topics.js";

export { REVIEW_CHAT_LIMITS, type ReviewChatLimits } from "./review-lane.js";

/** How long a stop waits for the review chat's waiting answers (five at a private chat's pace). */
export const STOP_ANSWER_DRAIN_MS = 5_000;

/** Where review posts go and how they look. */
export interface TelegramReviewChatOptions extends Omit<ReviewFormatOptions, "now"> {
  readonly api: Api;
  readonly chatId: string;
  /** REVIEW_THREAD_ID: the main thread (null: the chat itself); commands' answers, summaries and reports go there. */
  readonly threadId: number | null;
  /** The topic per role (REVIEW_TOPICS=role); absent: every post goes to the main thread. */
  readonly topics?: ReviewTopics;
  readonly clock: Clock;
  readonly limits?: ReviewChatLimits;
  readonly log: { warn(obj: object, msg: string): void };
}

/** What a sendMessage to the review chat takes besides the chat and the text. */
type SendOther = NonNullable<Parameters<Api["sendMessage"]>[2]>;

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
  /** Which posts show the legend of reactions: one a day. */
  private readonly legend = new DailyLegend();
  /** The desk's drafts, once it exists: a replaced draft's post names the version that replaced it. */
  private drafts: ((draftId: string) => DraftRecord | undefined) | null = null;
  private readonly burst: BurstNotices;
  private readonly place: PostPlace;
  /** Every call here, in its turn of the lane (429s waited out, own messages remembered). */
  private readonly calls: PacedCalls;
  private readonly statuses: StatusEdits;
  /** The posts no status edit changed yet (see PostsAsMade). */
  private readonly asMade = new PostsAsMade(1_000);

  constructor(private readonly options: TelegramReviewChatOptions) {
    this.lane = new ReviewLane(options.clock, options.limits ?? REVIEW_CHAT_LIMITS);
    this.calls = new PacedCalls(this.lane, options.log);
    this.format = {
      deferForMs: options.deferForMs,
      timeZone: options.timeZone,
      now: () => options.clock.now(),
      draftById: (id) => this.drafts?.(id),
      legend: (draft) => this.legend.shows(draft.draft_id),
    };
    const { api, chatId, clock, log } = options;
    this.statuses = new StatusEdits({
      api,
      lane: this.lane,
      format: this.format,
      clock,
      chatId,
      log,
      threadOf: (draft) => this.threadOf(draft),
      leadOf: (draft) => this.leadOf(draft),
      topicLost: (thread) => this.options.topics?.lost(thread) ?? Promise.resolve(),
      attempt: (turn, fn) => this.calls.attempt(turn, fn),
      asMade: this.asMade,
    });
    const topics = options.topics === undefined ? {} : { topics: options.topics };
    this.place = { api, chatId, format: this.format, threadId: options.threadId, log, where: () => this.where(), ...topics };
    this.burst = new BurstNotices({
      api,
      chatId,
      clock,
      log,
      lane: this.lane,
      gapMs: (options.limits ?? REVIEW_CHAT_LIMITS).gapMs,
      threadId: options.threadId,
      ...topics,
      where: () => this.where(),
      attempt: (turn, fn) => this.calls.attempt(turn, fn),
    });
  }

  isOwnMessage(messageId: number): boolean {
    return this.calls.isOwnMessage(messageId);
  }

  useDrafts(get: (draftId: string) => DraftRecord | undefined): void {
    this.drafts = get;
  }

  claimFreeSlot(): boolean {
    return this.lane.claimFreeSlot();
  }

  /**
   * Posts the draft: one message, or a header and the draft as a reply to it,
   * in one job so that no other post comes between them. The buttons are on
   * the message that holds the draft.
   */
  async post(draft: DraftRecord, onCall?: () => void): Promise<ReviewPost> {
    const waiting = {};
    this.legend.posting(draft.draft_id, this.options.clock.now());
    // A draft's new version (an ✏️ edit) is no new draft: its post is not counted by a burst's summary.
    const burst = draft.superseded_posts.length > 0 ? null : this.burst.add(waiting, draft.drafted_by_role);
    const { sent, thread } = await this.lane
      .run(LANE.post, async (turn) => {
        this.burst.done(waiting);
        onCall?.();
        const paced: PacedCall = (fn) => this.calls.attempt(turn, fn);
        return postInThread(this.place, draft, paced, (thread, id) => this.burst.posted(burst, draft, thread, id));
      })
      .finally(() => this.burst.done(waiting));
    const { message, header, parts } = sent;
    this.asMade.posted(message.message_id, this.options.clock.now());
    if (header !== null) this.statuses.noteHeader(draft.draft_id, header.message_id);
    const split = header === null ? {} : { headerMessageId: header.message_id, partMessageIds: parts.map((p) => p.message_id) };
    return { reviewChatId: String(message.chat.id), reviewMessageId: message.message_id, reviewThreadId: thread, ...split };
  }

  /** Shows the draft's status on its post, as it is when the edit's turn comes (see status-edits.ts). */
  showStatus(draft: DraftRecord, latest: () => DraftRecord | undefined = () => draft): Promise<StatusShown | undefined> {
    // A version his words decided owes the post's edit, whatever comes after it (posts-as-made.ts).
    this.asMade.wordsToAnswer(draft);
    return this.statuses.show(draft, latest);
  }

  /** The roles acknowledged the draft's revision note: its post says "told" (an edit, see status-edits.ts). */
  showTold(draftId: string, latest: () => DraftRecord | undefined): Promise<StatusShown | undefined> {
    return this.statuses.showTold(draftId, latest);
  }

  /** A message showing a draft's ↩️ Undo in place of its post, read back at start: it loses the Undo with the post (see status-edits.ts). */
  adoptUndo(draftId: string, where: { readonly chatId: string; readonly messageId: number }): void {
    this.statuses.adoptUndo(draftId, where);
  }

  /** A send in the review chat's next top-priority turn, its status edit in the same turn (see status-edits.ts). */
  sendTurn<T>(work: () => Promise<T>, latest: () => DraftRecord | undefined, shown: (s: StatusShown | null) => void): Promise<T> {
    return this.statuses.sendTurn(work, latest, shown);
  }

  async notify(draft: DraftRecord, text: string): Promise<number> {
    return this.replyTo(draft, LANE.notice, text);
  }

  /** Asks for the extra tap a 👍 needs for a large audience, as a reply to the review post, ahead of queued posts. */
  async askConfirmation(draft: DraftRecord, needs: readonly ConfirmNeed[] = []): Promise<Asked> {
    const { text, markup, question } = confirmMessage(draft, needs);
    return { messageId: await this.replyTo(draft, LANE.answer, text, markup), question };
  }

  /** The notice of a draft the owner's identity could not send, with "🤖 Send as the bot instead", as a reply to the review post. */
  async offerAsBot(draft: DraftRecord, text: string): Promise<number> {
    return this.replyTo(draft, LANE.notice, text, asBotMarkup(draft));
  }

  /** Asks what a reply "ok" meant, as a reply to it, ahead of queued posts (see askMessage). */
  async askApproval(draft: DraftRecord, note: string, replyTo: number): Promise<Asked> {
    const { text, markup, question } = askMessage(draft, note);
    const message = await this.sendReply(LANE.answer, draft.review_chat_id, this.threadOf(draft), replyTo, text, { reply_markup: markup });
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
    // A message that showed an ↩️ Undo in place of the post says the draft's status, as the post would.
    if (surface.asks === "undo") return this.statuses.endUndo({ chatId: surface.chat_id, messageId: surface.message_id }, draft);
    const { text, entities } = closedMessage(surface, draft, chose, this.format);
    // An ✏️ Edit prompt carries a ForceReply, no inline keyboard: its text changes, it has no buttons to take off.
    const markup = surface.asks === "edit" ? undefined : { inline_keyboard: [] };
    await this.editSurface(surface, chose === null ? LANE.notice : LANE.answer, text, entities, markup);
  }

  /** Edits a question or reminder to `text` with `markup`; "not modified" is no failure. */
  private async editSurface(surface: SurfaceState, lane: Lane, text: string, entities: MessageEntity[], markup?: InlineKeyboardMarkup) {
    try {
      await this.calls.once(lane, () =>
        this.options.api.editMessageText(surface.chat_id, surface.message_id, text, {
          entities,
          link_preview_options: NO_PREVIEW,
          ...(markup === undefined ? {} : { reply_markup: markup }),
        }),
      );
    } catch (err) {
      if (!isNotModified(err)) throw err;
    }
  }

  /**
   * Sends a message of the daemon's own (a command's answer, a refusal, a confirmation) ahead of queued review
   * posts, in `thread` (a topic the command was typed in; absent or null: the main thread); `entities`: its times.
   */
  async say(text: string, buttons?: InlineKeyboardMarkup, thread?: number | null, entities?: MessageEntity[]): Promise<number> {
    const message = await this.calls.once(LANE.answer, () =>
      this.options.api.sendMessage(this.options.chatId, text, {
        ...(thread == null ? this.where() : { message_thread_id: thread }),
        ...(entities && entities.length > 0 ? { entities } : {}),
        link_preview_options: NO_PREVIEW,
        ...(buttons ? { reply_markup: buttons } : {}),
      }),
    );
    return message.message_id;
  }

  /** Sends a picture (PNG) with a caption of the daemon's own, ahead of queued review posts; resolves with its message id. */
  async sendPhoto(png: Uint8Array, caption: string, filename: string): Promise<number> {
    const message = await this.calls.once(LANE.answer, () =>
      this.options.api.sendPhoto(this.options.chatId, new InputFile(png, filename), { ...this.where(), caption }),
    );
    return message.message_id;
  }

  async markSuperseded(draft: DraftRecord, reviewMessageId: number): Promise<void> {
    const chatId = draft.review_chat_id ?? this.options.chatId;
    try {
      await this.calls.once(LANE.end, () =>
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
    const message = await this.sendReply(LANE.answer, draft.review_chat_id, this.threadOf(draft), draft.review_message_id, text, {
      entities,
      reply_markup: { force_reply: true, selective: true, input_field_placeholder: "The new text of the draft" },
    });
    return message.message_id;
  }

  /** Answers, as a reply to `replyTo` when given, in `thread` (the topic of the message it replies to; null: the main thread). */
  async answer(text: string, replyTo: number | null, thread: number | null = null): Promise<number> {
    return (await this.sendReply(LANE.answer, null, thread ?? this.options.threadId, replyTo, text, {})).message_id;
  }

  /** Resolves when no call is running; for tests that move a simulated clock. */
  whenIdle(): Promise<void> {
    return this.lane.whenIdle();
  }

  /** How many review-chat jobs wait. */
  get queued(): number {
    return this.lane.queued;
  }

  /** True when its work waits on the clock alone (ReviewLane.waitsOnClock). */
  get waitsOnClock(): boolean {
    return this.lane.waitsOnClock;
  }

  /**
   * Before a stop: lets the answers and the reports of decisions that wait
   * for their turn go out, for at most `withinMs` on the clock. Their updates
   * are handled (the journal will not give them again), so a stop in the
   * second after a reply would otherwise leave it unanswered for good. New
   * review posts stay queued on disk for the next start.
   */
  async drainAnswers(withinMs: number = STOP_ANSWER_DRAIN_MS): Promise<void> {
    const until = this.options.clock.now() + withinMs;
    while (this.lane.hasWaiting([LANE.end, LANE.answer]) && this.options.clock.now() < until) await this.lane.pauseFor(100);
  }

  async stop(): Promise<void> {
    this.lane.stop();
    await this.lane.whenIdle();
  }

  /**
   * Sends `message` (a text, or one with entities: times) as a reply to the
   * draft's post, in `lane`; resolves with its id. A post whose topic was
   * deleted cannot be replied to: the message goes to the main thread, naming the draft.
   */
  private async replyTo(draft: DraftRecord, lane: Lane, message: string | FormattedText, markup?: InlineKeyboardMarkup): Promise<number> {
    const lead = this.leadOf(draft);
    const { text, entities } = withLead(lead, typeof message === "string" ? { text: message, entities: [] } : message);
    const other = { ...(markup ? { reply_markup: markup } : {}), ...(entities.length > 0 ? { entities } : {}) };
    const replyTo = lead === "" ? draft.review_message_id : null;
    const sent = await this.sendReply(lane, draft.review_chat_id, this.threadOf(draft), replyTo, text, other);
    return sent.message_id;
  }

  /** The thread of a draft's review post: its role's topic, or the main thread (also when that topic was deleted). */
  private threadOf(draft: DraftRecord): number | null {
    const thread = draft.review_thread_id;
    return thread === null || this.options.topics?.deleted(thread) === true ? this.options.threadId : thread;
  }

  /** The words that start a message about the draft when its post went with its deleted topic; "" otherwise. */
  private leadOf(draft: DraftRecord): string {
    const thread = draft.review_thread_id;
    return thread !== null && this.options.topics?.deleted(thread) === true ? goneTopicLead(draft) : "";
  }

  /**
   * Sends `text` in `lane` as a reply to `replyTo`, in the thread that message
   * is in (in a chat with topics Telegram takes a reply only in its target's
   * topic). Where the topic or the message is gone (the owner deleted it), it
   * goes to the main thread without the reply, so the owner still reads it.
   */
  private async sendReply(
    lane: Lane,
    chatId: string | null,
    thread: number | null,
    replyTo: number | null,
    text: string,
    other: SendOther,
  ): Promise<Message.TextMessage> {
    const chat = chatId ?? this.options.chatId;
    const send = (where: SendOther) =>
      this.calls.once(lane, () => this.options.api.sendMessage(chat, text, { link_preview_options: NO_PREVIEW, ...other, ...where }));
    try {
      return await send({
        ...(thread === null ? {} : { message_thread_id: thread }),
        ...(replyTo === null ? {} : { reply_parameters: { message_id: replyTo, allow_sending_without_reply: true } }),
      });
    } catch (err) {
      const threadGone = thread !== null && isThreadGone(err);
      if (!threadGone && !(replyTo !== null && isReplyTargetGone(err))) throw err;
      if (threadGone) await this.options.topics?.lost(thread);
      this.options.log.warn({ err, reply_to: replyTo }, "the message to reply to is gone; answering in the main thread instead");
      return send(this.where());
    }
  }

  private where(): { message_thread_id?: number } {
    return this.options.threadId === null ? {} : { message_thread_id: this.options.threadId };
  }
}
