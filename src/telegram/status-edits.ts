import type { Api } from "grammy";
import type { InlineKeyboardMarkup, LinkPreviewOptions, Message } from "grammy/types";
import type { Clock } from "../clock/clock.js";
import type { StatusShown } from "../desk/ports.js";
import { awaitsUndoShown, pendingUndoWindowMs, wholeSecondAfter } from "../drafts/undo-window.js";
import type { DraftRecord } from "../drafts/record.js";
import { isFinal } from "../drafts/status.js";
import { isNotModified, isThreadGone, withoutToken } from "./classify.js";
import { flowButtons, offersUndo } from "./flow-format.js";
import { linkPreviewFor } from "./link-preview.js";
import { keepNewest, type PostsAsMade } from "./posts-as-made.js";
import {
  editedDecisionText,
  editedHeaderText,
  editedReviewText,
  reviewPost,
  statusText,
  type FormattedText,
  type ReviewFormatOptions,
} from "./review-format.js";
import { reviewKeyboard } from "./review-buttons.js";
import { LANE, usedOnce, type ReviewLane, type Turn } from "./review-lane.js";
import { withLead } from "./topic-gone.js";

/**
 * How long a send may go unanswered before its post drops its ↩️ Undo (ms, see `sendTurn`): a slower call gets
 * "📤 Sending…" at once, in the send's turn, and lets the turn go (its outcome follows as any other edit); a faster
 * one has its outcome shown in that turn, one edit for both.
 */
export const SENDING_SHOWN_AFTER_MS = 300;

/** How many messages' last shown content is remembered (to skip edits that would change nothing). */
const SHOWING_KEPT = 1_000;

const NO_PREVIEW: LinkPreviewOptions = { is_disabled: true };

/** What the status edits need from the review chat. */
export interface StatusEditDeps {
  readonly api: Api;
  readonly lane: ReviewLane;
  readonly format: ReviewFormatOptions;
  readonly clock: Clock;
  readonly chatId: string;
  readonly log: { warn(obj: object, msg: string): void };
  /** The thread of a draft's review post (its role's topic, or the main thread; null: the chat itself): replies go there. */
  threadOf(draft: DraftRecord): number | null;
  /** The words that start a message about the draft whose post went with its deleted topic (then it replies to nothing); "". */
  leadOf(draft: DraftRecord): string;
  /** Telegram said the thread is gone: its topic is forgotten (threadOf and leadOf change). */
  topicLost(thread: number): Promise<void>;
  /** One call in its turn, waiting out a 429 (TelegramReviewChat's). */
  attempt<T>(turn: Turn, fn: () => Promise<T>): Promise<T>;
  /** The posts no status edit changed yet (an undo a post never showed needs no edit); edits here are noted in it. */
  readonly asMade: PostsAsMade;
}

/** A message that shows a draft's ↩️ Undo in place of its post (an `undo` surface). */
export interface UndoMessage {
  readonly chatId: string;
  readonly messageId: number;
}

/** A draft's status as one edit renders it at one moment. */
interface View {
  /** The draft as shown: an approval whose ↩️ Undo this edit shows first carries the send time shown. */
  readonly shown: DraftRecord;
  /** That send time (ms), or null. */
  readonly sendAt: number | null;
  /** The post's new text (a split post's: the message with the buttons), or null when the status does not fit there (it goes on the header). */
  readonly text: FormattedText | null;
  /** The header message's text with the status on top, for a split post (or one whose text would pass the limit), or null. */
  readonly header: FormattedText | null;
  readonly markup: InlineKeyboardMarkup;
  /** The status line alone, its times under date_time entities (for a reply). */
  readonly status: FormattedText;
  /** What the message shows, as one string: equal keys, equal content. */
  readonly key: string;
}

/**
 * The review post's status edits, on the review chat's lane (contract v4,
 * "the undo window is what the chat shows"): each renders the draft as it is
 * when its turn comes (never a stale snapshot over a newer one), edits that
 * end an offer of Undo go before those that start one, an edit that would
 * change nothing is not made, and the time Telegram accepted an edit showing
 * ↩️ Undo is handed back: the window counts from it. When the post cannot be
 * edited, a new message shows the ↩️ Undo instead (an `undo` surface).
 */
export class StatusEdits {
  /** What each review post shows now, and since when (the last edit Telegram accepted). */
  private readonly showing = new Map<number, { readonly key: string; readonly at: number }>();
  /**
   * New messages showing a draft's ↩️ Undo because its post could not be edited, by draft (read back at start
   * from the open `undo` surfaces: see adoptUndo). Kept after their Undo ends, so a later edit finds the
   * status said there.
   */
  private readonly undoMessages = new Map<string, { readonly where: UndoMessage; ended: boolean }>();
  /** The header message of each split post (a long draft's), by draft: its status is shown there. */
  private readonly headers = new Map<string, number>();
  /** Drafts whose revision note a consumer of the feed acknowledged (their status says "told"), oldest first. */
  private readonly told = new Set<string>();

  constructor(private readonly deps: StatusEditDeps) {}

  /** Shows the draft's status (as `latest` has it at the edit's turn); see ReviewChat.showStatus. */
  show(draft: DraftRecord, latest: () => DraftRecord | undefined): Promise<StatusShown | undefined> {
    const now = this.deps.clock.now();
    const current = latest() ?? draft;
    if (current.review_message_id === null) return Promise.resolve(undefined);
    const already = this.alreadyShown(current, now);
    if (already) return Promise.resolve(already);
    const lane = awaitsUndoShown(current) || offersUndo(current, now) ? LANE.edit : LANE.end;
    return this.deps.lane.run(lane, (turn) => this.edit(latest() ?? current, turn));
  }

  /**
   * A message that shows the draft's ↩️ Undo in place of its post, read back
   * at start (an open `undo` surface whose Undo still counts): it loses the
   * Undo with the post's next edit, as one this process sent.
   */
  adoptUndo(draftId: string, where: UndoMessage): void {
    this.keepUndo(draftId, where);
  }

  /**
   * Ends the offer of Undo of an `undo` surface whose draft no longer offers
   * one (see closing.ts): it shows the draft's status, without buttons, in the
   * top lane; no call when it shows that already. Rejects when the edit fails.
   */
  endUndo(where: UndoMessage, draft: DraftRecord): Promise<void> {
    return this.deps.lane.run(LANE.end, async (turn) => {
      const status = this.view(draft, this.deps.clock.now()).status;
      await this.showOnUndoMessage(where, withLead(this.deps.leadOf(draft), status), turn);
    });
  }

  /** A split post's header message, as posted (or read back from an edit's answer: the draft's message replies to it). */
  noteHeader(draftId: string, messageId: number): void {
    this.headers.delete(draftId);
    this.headers.set(draftId, messageId);
    if (this.headers.size > SHOWING_KEPT) this.headers.delete(this.headers.keys().next().value!);
  }

  /**
   * The roles were told of the draft's revision note (a consumer acknowledged
   * its event): its post says so from now on, by an edit when it shows the
   * note now. Kept in memory only: after a restart the post says "queued for"
   * again if it is edited, the cautious claim.
   */
  showTold(draftId: string, latest: () => DraftRecord | undefined): Promise<StatusShown | undefined> {
    this.told.delete(draftId);
    this.told.add(draftId);
    if (this.told.size > SHOWING_KEPT) this.told.delete(this.told.values().next().value!);
    const draft = latest();
    if (draft?.status !== "revise" || !draft.revision_note) return Promise.resolve(undefined);
    return this.show(draft, latest);
  }

  /**
   * Runs `work` (a send to a destination: no review-chat call) in the review
   * chat's next top-priority turn, then edits the post in that same turn, so
   * the edit that ends its ↩️ Undo follows the send by one call. A send slower
   * than SENDING_SHOWN_AFTER_MS gets "📤 Sending…" (no Undo) then, and lets the
   * turn go (`shown` hears null).
   */
  sendTurn<T>(work: () => Promise<T>, latest: () => DraftRecord | undefined, shown: (s: StatusShown | null) => void): Promise<T> {
    let value: Promise<T> | undefined;
    const job = this.deps.lane.run(LANE.end, async (turn) => {
      await turn();
      value = work();
      if (!(await this.deps.lane.settlesWithin(value, SENDING_SHOWN_AFTER_MS))) {
        // A slow answer: the post drops its ↩️ Undo now, with the send under way ("📤 Sending…"), and lets the turn
        // go; the outcome is shown when it comes. An Undo tapped now could no longer work.
        const sending = latest();
        if (sending?.review_message_id != null && sending.status === "sending") await this.edit(sending, usedOnce(turn));
        return shown(null);
      }
      const current = latest();
      shown(current?.review_message_id == null ? null : await this.edit(current, usedOnce(turn)));
    });
    return job.then(
      () => value!,
      (err: unknown) => {
        shown(null);
        throw err;
      },
    );
  }

  /** One status edit in its turn; never rejects. */
  private async edit(draft: DraftRecord, turn: Turn): Promise<StatusShown> {
    const { clock } = this.deps;
    const already = this.alreadyShown(draft, clock.now());
    if (already) return already;
    const messageId = draft.review_message_id;
    if (messageId === null) return { draft, at: clock.now(), sendAt: null };
    // From its call on, the post may no longer show it as made: an undo meanwhile must edit it too (posts-as-made.ts).
    this.deps.asMade.edited(messageId);
    const chatId = draft.review_chat_id ?? this.deps.chatId;
    let view = this.view(draft, clock.now());
    // A message showing the ↩️ Undo in place of the post loses it first: the post may fail again (deleted).
    const told = this.undoMessages.has(draft.draft_id) && (await this.endUndoMessage(draft, view, turn));
    try {
      const edited = await this.deps.attempt(turn, () => {
        // Rendered at the call: an approval's send time counts from now.
        view = this.view(draft, clock.now());
        return this.editCall(chatId, messageId, view, draft);
      });
      const header = view.header === null ? undefined : repliedTo(edited);
      if (header !== undefined && !this.headers.has(draft.draft_id)) this.noteHeader(draft.draft_id, header);
    } catch (err) {
      if (!isNotModified(err)) return this.editFailed(draft, view, err, turn, told);
    }
    const at = clock.now();
    this.remember(messageId, view.key, at);
    // The status does not fit on the message with the buttons (a long one): it goes on the header.
    if (view.text === null) await this.statusOnHeader(draft, view, turn);
    return { draft, at, sendAt: view.sendAt };
  }

  private editCall(chatId: string, messageId: number, view: View, draft: DraftRecord): Promise<unknown> {
    const { api } = this.deps;
    if (view.text === null) return api.editMessageReplyMarkup(chatId, messageId, { reply_markup: view.markup });
    return api.editMessageText(chatId, messageId, view.text.text, {
      entities: view.text.entities,
      link_preview_options: linkPreviewFor(draft.draft_text),
      reply_markup: view.markup,
    });
  }

  /**
   * The status of a split post, on top of its header; in a reply when the
   * header is unknown (a restart, and no edit's answer named it yet), cannot
   * take it, or could not be edited.
   */
  private async statusOnHeader(draft: DraftRecord, view: View, turn: Turn): Promise<void> {
    const headerId = this.headers.get(draft.draft_id);
    const header = view.header;
    if (header === null || headerId === undefined) return this.statusReply(draft, view.status, turn);
    const chatId = draft.review_chat_id ?? this.deps.chatId;
    try {
      await this.deps.attempt(turn, () =>
        this.deps.api.editMessageText(chatId, headerId, header.text, { entities: header.entities, link_preview_options: NO_PREVIEW }),
      );
    } catch (err) {
      if (isNotModified(err)) return;
      this.deps.log.warn(
        { err, draft_id: draft.draft_id },
        "could not show the status on a long draft's header; telling the reviewers in a reply",
      );
      await this.statusReply(draft, view.status, turn);
    }
  }

  /**
   * The post could not be edited. An approval's ↩️ Undo is then shown in a
   * new message (a reply to the post), its window counting from that one; if
   * that fails too, nothing shows it (`failed`). A final status is said in a
   * reply, unless the message that showed the Undo says it now (`told`).
   */
  private async editFailed(draft: DraftRecord, view: View, err: unknown, turn: Turn, told: boolean): Promise<StatusShown> {
    const { clock, log } = this.deps;
    log.warn({ err, draft_id: draft.draft_id }, "could not edit the review message; telling the reviewers in a reply");
    if (view.sendAt === null) {
      if (!told && (isFinal(draft.status) || view.text === null)) await this.statusReply(draft, view.status, turn);
      return { draft, at: clock.now(), sendAt: null };
    }
    const chatId = draft.review_chat_id ?? this.deps.chatId;
    try {
      let shown = view;
      const message = await this.reply(draft, turn, () => {
        shown = this.view(draft, clock.now());
        return { status: shown.status, markup: { inline_keyboard: flowButtons(shown.shown, clock.now()) } };
      });
      this.keepUndo(draft.draft_id, { chatId, messageId: message.message_id });
      return { draft, at: clock.now(), sendAt: shown.sendAt, undoMessageId: message.message_id };
    } catch (again) {
      log.warn({ err: again, draft_id: draft.draft_id }, "could not show the approval's ↩️ Undo in a new message either");
      return { draft, at: clock.now(), sendAt: null, failed: withoutToken(String((again as Error).message ?? again)) };
    }
  }

  /**
   * A message that showed the draft's ↩️ Undo in place of its post loses it
   * once the draft offers none (same text as its status): true when it shows
   * that status now.
   */
  private async endUndoMessage(draft: DraftRecord, view: View, turn: Turn): Promise<boolean> {
    const undo = this.undoMessages.get(draft.draft_id);
    if (undo === undefined || offersUndo(view.shown, this.deps.clock.now())) return false;
    // Once its Undo ended it is not edited again: true while it still says the status.
    if (undo.ended) return this.showing.get(undo.where.messageId)?.key === undoEndedKey(withLead(this.deps.leadOf(draft), view.status));
    undo.ended = true;
    try {
      await this.showOnUndoMessage(undo.where, withLead(this.deps.leadOf(draft), view.status), turn);
      return true;
    } catch (err) {
      this.deps.log.warn({ err, draft_id: draft.draft_id }, "could not take ↩️ Undo off its message");
      return false;
    }
  }

  /** Edits a message that showed an ↩️ Undo to `status`, without buttons; no call when it shows that already. */
  private async showOnUndoMessage(undo: UndoMessage, status: FormattedText, turn: Turn): Promise<void> {
    const key = undoEndedKey(status);
    if (this.showing.get(undo.messageId)?.key === key) return;
    try {
      await this.deps.attempt(turn, () =>
        this.deps.api.editMessageText(undo.chatId, undo.messageId, status.text, {
          entities: status.entities,
          link_preview_options: NO_PREVIEW,
          reply_markup: { inline_keyboard: [] },
        }),
      );
    } catch (err) {
      if (!isNotModified(err)) throw err;
    }
    this.remember(undo.messageId, key, this.deps.clock.now());
  }

  private keepUndo(draftId: string, where: UndoMessage): void {
    keepNewest(this.undoMessages, draftId, { where, ended: false }, SHOWING_KEPT);
  }

  private async statusReply(draft: DraftRecord, status: FormattedText, turn: Turn): Promise<void> {
    try {
      await this.reply(draft, turn, () => ({ status }));
    } catch (err) {
      this.deps.log.warn({ err, draft_id: draft.draft_id }, "could not tell the reviewers the draft's status");
    }
  }

  /**
   * A reply to the draft's post (`make` renders it at the call), in its thread; when Telegram says that is gone (the
   * role's topic deleted, with the post), in the main thread, naming the draft: the owner is told at once.
   */
  private async reply(draft: DraftRecord, turn: Turn, make: () => { status: FormattedText; markup?: InlineKeyboardMarkup }) {
    const send = () => {
      const { status, markup } = make();
      const lead = this.deps.leadOf(draft);
      const { text, entities } = withLead(lead, status);
      const [where, replyTo] = [this.deps.threadOf(draft), lead === "" ? draft.review_message_id : null];
      return this.deps.api.sendMessage(draft.review_chat_id ?? this.deps.chatId, text, {
        ...(where === null ? {} : { message_thread_id: where }),
        ...(entities.length > 0 ? { entities } : {}),
        link_preview_options: NO_PREVIEW,
        ...(markup ? { reply_markup: markup } : {}),
        ...(replyTo === null ? {} : { reply_parameters: { message_id: replyTo, allow_sending_without_reply: true } }),
      });
    };
    const thread = this.deps.threadOf(draft);
    try {
      return await this.deps.attempt(turn, send);
    } catch (err) {
      if (thread === null || !isThreadGone(err)) throw err;
      await this.deps.topicLost(thread);
      if (this.deps.threadOf(draft) === thread) throw err;
      return this.deps.attempt(turn, send);
    }
  }

  /** The draft's status rendered at `now`; an approval whose ↩️ Undo is not shown yet gets its send time from `now`. */
  private view(draft: DraftRecord, now: number): View {
    const sendAt = awaitsUndoShown(draft) ? wholeSecondAfter(now + pendingUndoWindowMs(draft)) : null;
    const shown = sendAt === null ? draft : { ...draft, send_after: new Date(sendAt).toISOString() };
    const format = { ...this.deps.format, now: () => now, noteTold: this.told.has(draft.draft_id) };
    // A post made of a header and the draft keeps that form: the status goes on the message with the buttons.
    const split = this.headers.has(draft.draft_id) || reviewPost({ ...shown, status: "queued" }, format).kind === "split";
    const text = split ? editedDecisionText(shown, format) : editedReviewText(shown, format);
    const header = text === null ? editedHeaderText(shown, format) : null;
    const markup = reviewKeyboard(shown, format);
    const status = statusText(shown, format);
    return { shown, sendAt, text, header, markup, status, key: JSON.stringify([text, markup, text === null ? status : null]) };
  }

  /** What the post shows already, when an edit to `draft` at `now` would change nothing (never for a first ↩️ Undo). */
  private alreadyShown(draft: DraftRecord, now: number): StatusShown | undefined {
    if (draft.review_message_id === null || awaitsUndoShown(draft)) return undefined;
    const posted = this.deps.asMade.undoneUnseen(draft, this.undoMessages.has(draft.draft_id));
    if (posted !== undefined) return { draft, at: posted, sendAt: null };
    const prior = this.showing.get(draft.review_message_id);
    if (prior === undefined || prior.key !== this.view(draft, now).key) return undefined;
    return { draft, at: prior.at, sendAt: null };
  }

  /** What `messageId` shows since `at` (its post stopped counting as made when the edit's call began: see edit). */
  private remember(messageId: number, key: string, at: number): void {
    keepNewest(this.showing, messageId, { key, at }, SHOWING_KEPT);
  }
}

/** The message an edited message replies to, from the edit's answer (a split post's draft message: its header). */
function repliedTo(answer: unknown): number | undefined {
  return typeof answer === "object" && answer !== null ? (answer as Message).reply_to_message?.message_id : undefined;
}

/** What a message that showed an ↩️ Undo shows once it ended: the status alone. */
function undoEndedKey(status: FormattedText): string {
  return JSON.stringify(["undo ended", status.text, status.entities]);
}
