import type { Api } from "grammy";
import type { InlineKeyboardMarkup, LinkPreviewOptions } from "grammy/types";
import type { Clock } from "../clock/clock.js";
import type { StatusShown } from "../desk/ports.js";
import { awaitsUndoShown, pendingUndoWindowMs } from "../drafts/undo-window.js";
import type { DraftRecord } from "../drafts/record.js";
import { isFinal } from "../drafts/status.js";
import { isNotModified, withoutToken } from "./classify.js";
import { flowButtons, offersUndo } from "./flow-format.js";
import { linkPreviewFor } from "./link-preview.js";
import { editedReviewText, reviewKeyboard, statusText, type FormattedText, type ReviewFormatOptions } from "./review-format.js";
import { LANE, type ReviewLane, type Turn } from "./review-lane.js";

/**
 * How long a send may hold the review chat's turn (ms, see `sendTurn`): a
 * destination call slower than this lets the turn go, and its edit follows
 * as any other end of an offer of Undo.
 */
export const SEND_TURN_HOLD_MS = 2_000;

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
  /** One call in its turn, waiting out a 429 (TelegramReviewChat's). */
  attempt<T>(turn: Turn, fn: () => Promise<T>): Promise<T>;
}

/** A draft's status as one edit renders it at one moment. */
interface View {
  /** The draft as shown: an approval whose ↩️ Undo this edit shows first carries the send time shown. */
  readonly shown: DraftRecord;
  /** That send time (ms), or null. */
  readonly sendAt: number | null;
  /** The post's new text, or null for a split post (only its buttons change; the status goes in a reply). */
  readonly text: FormattedText | null;
  readonly markup: InlineKeyboardMarkup;
  /** The status line alone, its times under date_time entities (for a reply). */
  readonly status: FormattedText;
  /** What the message shows, as one string: equal keys, equal content. */
  readonly key: string;
}

/** A send time shown to the second, never earlier than the window allows. */
function wholeSecondAfter(ms: number): number {
  return Math.ceil(ms / 1000) * 1000;
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
  /** New messages showing a draft's ↩️ Undo because its post could not be edited, by draft. */
  private readonly undoMessages = new Map<string, { readonly chatId: string; readonly messageId: number }>();
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
   * than SEND_TURN_HOLD_MS lets the turn go (`shown` hears null).
   */
  sendTurn<T>(work: () => Promise<T>, latest: () => DraftRecord | undefined, shown: (s: StatusShown | null) => void): Promise<T> {
    let value: Promise<T> | undefined;
    const job = this.deps.lane.run(LANE.end, async (turn) => {
      await turn();
      value = work();
      if (!(await this.deps.lane.settlesWithin(value, SEND_TURN_HOLD_MS))) return shown(null);
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
    const chatId = draft.review_chat_id ?? this.deps.chatId;
    let view = this.view(draft, clock.now());
    try {
      await this.deps.attempt(turn, () => {
        // Rendered at the call: an approval's send time counts from now.
        view = this.view(draft, clock.now());
        return this.editCall(chatId, messageId, view, draft);
      });
    } catch (err) {
      if (!isNotModified(err)) return this.editFailed(draft, view, err, turn);
    }
    const at = clock.now();
    this.remember(messageId, view.key, at);
    // A split post holds the draft alone: its status goes in a reply.
    if (view.text === null) await this.statusReply(draft, view.status, turn);
    await this.endUndoMessage(draft, view, turn);
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
   * The post could not be edited. An approval's ↩️ Undo is then shown in a
   * new message (a reply to the post), its window counting from that one; if
   * that fails too, nothing shows it (`failed`). A final status is said in a
   * reply, as before.
   */
  private async editFailed(draft: DraftRecord, view: View, err: unknown, turn: Turn): Promise<StatusShown> {
    const { clock, log } = this.deps;
    log.warn({ err, draft_id: draft.draft_id }, "could not edit the review message; telling the reviewers in a reply");
    if (view.sendAt === null) {
      if (isFinal(draft.status) || view.text === null) await this.statusReply(draft, view.status, turn);
      return { draft, at: clock.now(), sendAt: null };
    }
    const chatId = draft.review_chat_id ?? this.deps.chatId;
    try {
      let shown = view;
      const message = await this.deps.attempt(turn, () => {
        shown = this.view(draft, clock.now());
        return this.reply(draft, shown.status, { inline_keyboard: flowButtons(shown.shown, clock.now()) });
      });
      this.undoMessages.set(draft.draft_id, { chatId, messageId: message.message_id });
      return { draft, at: clock.now(), sendAt: shown.sendAt, undoMessageId: message.message_id };
    } catch (again) {
      log.warn({ err: again, draft_id: draft.draft_id }, "could not show the approval's ↩️ Undo in a new message either");
      return { draft, at: clock.now(), sendAt: null, failed: withoutToken(String((again as Error).message ?? again)) };
    }
  }

  /** A message that showed a draft's ↩️ Undo in place of its post loses it with the post (same text as its status). */
  private async endUndoMessage(draft: DraftRecord, view: View, turn: Turn): Promise<void> {
    const undo = this.undoMessages.get(draft.draft_id);
    if (undo === undefined || offersUndo(view.shown, this.deps.clock.now())) return;
    this.undoMessages.delete(draft.draft_id);
    try {
      await this.deps.attempt(turn, () =>
        this.deps.api.editMessageText(undo.chatId, undo.messageId, view.status.text, {
          entities: view.status.entities,
          link_preview_options: NO_PREVIEW,
          reply_markup: { inline_keyboard: [] },
        }),
      );
    } catch (err) {
      if (!isNotModified(err)) this.deps.log.warn({ err, draft_id: draft.draft_id }, "could not take ↩️ Undo off its message");
    }
  }

  private async statusReply(draft: DraftRecord, text: FormattedText, turn: Turn): Promise<void> {
    try {
      await this.deps.attempt(turn, () => this.reply(draft, text));
    } catch (err) {
      this.deps.log.warn({ err, draft_id: draft.draft_id }, "could not tell the reviewers the draft's status");
    }
  }

  private reply(draft: DraftRecord, { text, entities }: FormattedText, markup?: InlineKeyboardMarkup) {
    const replyTo = draft.review_message_id;
    const thread = this.deps.threadOf(draft);
    return this.deps.api.sendMessage(draft.review_chat_id ?? this.deps.chatId, text, {
      ...(thread === null ? {} : { message_thread_id: thread }),
      ...(entities.length > 0 ? { entities } : {}),
      link_preview_options: NO_PREVIEW,
      ...(markup ? { reply_markup: markup } : {}),
      ...(replyTo === null ? {} : { reply_parameters: { message_id: replyTo, allow_sending_without_reply: true } }),
    });
  }

  /** The draft's status rendered at `now`; an approval whose ↩️ Undo is not shown yet gets its send time from `now`. */
  private view(draft: DraftRecord, now: number): View {
    const sendAt = awaitsUndoShown(draft) ? wholeSecondAfter(now + pendingUndoWindowMs(draft)) : null;
    const shown = sendAt === null ? draft : { ...draft, send_after: new Date(sendAt).toISOString() };
    const format = { ...this.deps.format, now: () => now, noteTold: this.told.has(draft.draft_id) };
    const text = editedReviewText(shown, format);
    const markup = reviewKeyboard(shown, format);
    const status = statusText(shown, format);
    return { shown, sendAt, text, markup, status, key: JSON.stringify([text, markup, text === null ? status : null]) };
  }

  /** What the post shows already, when an edit to `draft` at `now` would change nothing (never for a first ↩️ Undo). */
  private alreadyShown(draft: DraftRecord, now: number): StatusShown | undefined {
    if (draft.review_message_id === null || awaitsUndoShown(draft)) return undefined;
    const prior = this.showing.get(draft.review_message_id);
    if (prior === undefined || prior.key !== this.view(draft, now).key) return undefined;
    return { draft, at: prior.at, sendAt: null };
  }

  private remember(messageId: number, key: string, at: number): void {
    this.showing.delete(messageId);
    this.showing.set(messageId, { key, at });
    if (this.showing.size > SHOWING_KEPT) this.showing.delete(this.showing.keys().next().value!);
  }
}

/** A turn already taken: the first call uses it, later ones (a 429's retry) wait for their own. */
function usedOnce(turn: Turn): Turn {
  let used = false;
  return async () => {
    if (used) return turn();
    used = true;
  };
}
