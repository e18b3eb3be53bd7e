import type { Context } from "grammy";
import type { DraftRecord, Role } from "../drafts/record.js";
import { topicOf } from "./review-topics.js";
import { AWAITING_DECISION } from "../drafts/status.js";
import { pendingPage, PENDING_TAP_PATTERN, readPendingTap } from "../owner/pending-text.js";
import { authorizeActor } from "../reactions/authorize.js";
import { shortDestination } from "./audience-text.js";

/** What /pending's buttons need: who may tap, the drafts, the time, and a way to reply to a post. */
export interface PendingTapOptions {
  readonly reviewChatId: string;
  readonly reviewerIds: ReadonlySet<number>;
  readonly drafts: () => Iterable<DraftRecord>;
  readonly now: () => number;
  /** Answers in the review chat as a reply to `replyTo`, in its topic `thread` (TelegramReviewChat.answer). */
  readonly answer: (text: string, replyTo: number, thread: number | null) => Promise<unknown>;
  readonly log: { warn(obj: object, msg: string): void };
  /** The role whose topic a thread is: a page turned there lists that role's drafts. */
  readonly topicRole?: (threadId: number) => Role | null;
}

/** The line a "go to the post" tap gets, as a reply to the draft's post: its quote is one tap from there. */
export function gotoText(draft: DraftRecord): string {
  return `⬆️ ${draft.drafted_by_role} → ${shortDestination(draft)} (${draft.status}): tap the quote above to open its post, and decide there.`;
}

/**
 * The taps on /pending's buttons. These are no decisions: a number answers
 * with a reply to that draft's review post (in a private chat, where
 * Telegram shows no message numbers or links, the reply's quote leads to
 * it), and ◀ ▶ turn the page in place. Only reviewers, in the review chat.
 */
export function pendingTaps(options: PendingTapOptions) {
  return {
    pattern: PENDING_TAP_PATTERN,
    handle: async (ctx: Context): Promise<void> => {
      const q = ctx.callbackQuery!;
      const tell = (text: string) =>
        ctx.answerCallbackQuery({ text }).catch((err: unknown) => options.log.warn({ err }, "answerCallbackQuery failed"));
      const who = authorizeActor({ chatId: q.message?.chat.id ?? 0, userId: q.from.id, actorChatId: null, isBot: q.from.is_bot }, options);
      const tap = readPendingTap(q.data);
      if (!who.ok || tap === null) return void (await tell("Only the reviewer can use this list."));
      if (tap.kind === "page") {
        const thread = topicOf(q.message);
        const role = thread === null ? undefined : (options.topicRole?.(thread) ?? undefined);
        const page = pendingPage(options.drafts(), options.now(), tap.page, undefined, role);
        await ctx
          .editMessageText(page.text, { entities: page.entities, reply_markup: page.buttons })
          .catch((err: unknown) => options.log.warn({ err }, "could not turn the /pending page"));
        return void (await ctx.answerCallbackQuery().catch((err: unknown) => options.log.warn({ err }, "answerCallbackQuery failed")));
      }
      const draft = [...options.drafts()].find((d) => d.draft_id === tap.draftId);
      if (!draft || !AWAITING_DECISION.has(draft.status) || draft.review_message_id === null) {
        return void (await tell(`That draft ${draft ? `is ${draft.status}` : "is gone"} now; send /pending again for the current list.`));
      }
      await options.answer(gotoText(draft), draft.review_message_id, draft.review_thread_id);
      await tell("Its post is quoted in the chat.");
    },
  };
}
