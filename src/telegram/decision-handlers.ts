import { Composer, type Context } from "grammy";
import type { ReactionType } from "grammy/types";
import type { DecisionOutcome, DecisionRequest, ReviewDesk } from "../desk/review-desk.js";
import type { Decision } from "../drafts/record.js";
import { authorizeActor, type ActorFacts } from "../reactions/authorize.js";
import { decisionForEmoji } from "../reactions/decision-keys.js";
import { readReply } from "../reactions/reply.js";
import { readCallbackData } from "./review-format.js";
import { revisionAnswer } from "./revision-answer.js";

/** What the handlers need to know. */
export interface DecisionHandlerOptions {
  readonly desk: ReviewDesk;
  readonly reviewChatId: string;
  readonly reviewerIds: ReadonlySet<number>;
  readonly log: { debug(obj: object, msg: string): void; warn(obj: object, msg: string): void; error(obj: object, msg: string): void };
  /** Tells the reviewers something in the review chat (a decision that could not be saved). */
  readonly tellReviewers?: (text: string) => Promise<void>;
}

/** What the reviewer is told when a decision could not be written to disk. */
export const DECISION_NOT_SAVED =
  "⚠️ Your decision could not be saved (the daemon could not write to its disk), so it has not been applied. " +
  "It is applied at the next start if it was journaled; otherwise decide again once the disk problem is fixed.";

function emojisOf(reactions: readonly ReactionType[]): string[] {
  return reactions.flatMap((r) => (r.type === "emoji" ? [r.emoji] : []));
}

/** The decision emoji a reaction update added (a removed reaction is no decision). */
export function addedDecision(oldReaction: readonly ReactionType[], newReaction: readonly ReactionType[]): { decision: Decision; emoji: string } | "none" | "ambiguous" {
  const before = new Set(emojisOf(oldReaction));
  const added = emojisOf(newReaction).filter((e) => !before.has(e));
  const decisions = added.flatMap((emoji) => {
    const decision = decisionForEmoji(emoji);
    return decision === null ? [] : [{ decision, emoji }];
  });
  if (decisions.length === 0) return "none";
  if (new Set(decisions.map((d) => d.decision)).size > 1) return "ambiguous";
  return decisions[0]!;
}

/**
 * The grammY handlers that turn reactions, buttons and replies on review
 * messages into decisions. Each checks who acted from Telegram's own ids
 * (never names or text), and hands the decision to the desk, which records it
 * or audits why it did not count. Every callback query is answered.
 */
export function decisionHandlers(options: DecisionHandlerOptions): Composer<Context> {
  const { desk, log } = options;
  const composer = new Composer<Context>();
  const context = { reviewChatId: options.reviewChatId, reviewerIds: options.reviewerIds };

  const refuse = (facts: ActorFacts, decision: Decision | null, emoji: string | null, channel: string, reason: string, extra: { review_message_id?: number; username?: string | null; updateId: number }) =>
    desk.refuseDecision(
      {
        decision,
        actor: { user_id: facts.userId, channel, emoji, update_id: extra.updateId },
        reason,
        chat_id: String(facts.chatId),
        review_message_id: extra.review_message_id ?? null,
        actor_chat_id: facts.actorChatId,
        username: extra.username ?? null,
      },
      extra.review_message_id === undefined ? undefined : desk.byReviewMessageId(extra.review_message_id),
    );

  /** Hands a decision to the desk; if it cannot be saved, tells the reviewers and returns null. */
  const decideOrTell = async (request: DecisionRequest): Promise<DecisionOutcome | null> => {
    try {
      return await desk.decide(request);
    } catch (err) {
      log.error({ err, review_message_id: request.reviewMessageId }, "a reviewer's decision could not be saved");
      await options.tellReviewers?.(DECISION_NOT_SAVED).catch(() => {});
      return null;
    }
  };

  composer.on("message_reaction", async (ctx) => {
    const r = ctx.messageReaction;
    const found = addedDecision(r.old_reaction ?? [], r.new_reaction ?? []);
    if (found === "none") return log.debug({ update_id: ctx.update.update_id }, "reaction is not a decision");
    const facts: ActorFacts = { chatId: r.chat.id, userId: r.user?.id ?? null, actorChatId: r.actor_chat?.id ?? null, isBot: r.user?.is_bot ?? false };
    const extra = { review_message_id: r.message_id, username: r.user?.username ?? null, updateId: ctx.update.update_id };
    if (found === "ambiguous") return refuse(facts, null, emojisOf(r.new_reaction ?? []).join(""), "reaction", "ambiguous_reaction", extra);
    const who = authorizeActor(facts, context);
    if (!who.ok) return refuse(facts, found.decision, found.emoji, "reaction", who.reason, extra);
    await decideOrTell({
      reviewChatId: String(r.chat.id),
      reviewMessageId: r.message_id,
      decision: found.decision,
      actor: { user_id: who.userId, channel: "reaction", emoji: found.emoji, update_id: ctx.update.update_id },
    });
  });

  composer.on("callback_query", async (ctx) => {
    const q = ctx.callbackQuery;
    const answer = (text: string) => ctx.answerCallbackQuery({ text }).catch((err: unknown) => log.debug({ err }, "answerCallbackQuery failed"));
    const data = readCallbackData(q.data);
    const message = q.message;
    const facts: ActorFacts = { chatId: message?.chat.id ?? 0, userId: q.from.id, actorChatId: null, isBot: q.from.is_bot };
    const extra = { review_message_id: message?.message_id, username: q.from.username ?? null, updateId: ctx.update.update_id };
    if (data === null || message === undefined) {
      await refuse(facts, null, null, "button", data === null ? "unknown_button" : "message_unavailable", extra);
      return answer("This button is not recognised.");
    }
    const who = authorizeActor(facts, context);
    if (!who.ok) {
      await refuse(facts, data.decision, null, "button", who.reason, extra);
      return answer("Only the reviewer can decide on drafts.");
    }
    // "Yes, send" sits on the question (a reply to the review post), so it decides on the draft it names.
    const reviewMessageId = data.confirmed ? (desk.get(data.draftId)?.review_message_id ?? message.message_id) : message.message_id;
    const outcome = await decideOrTell({
      reviewChatId: String(message.chat.id),
      reviewMessageId,
      claimedDraftId: data.draftId,
      decision: data.decision,
      confirmed: data.confirmed,
      actor: { user_id: who.userId, channel: "button", emoji: data.confirmed ? "✅" : null, update_id: ctx.update.update_id },
    });
    if (outcome === null) return answer("Not saved: the daemon could not write to its disk. Try again later.");
    if (outcome.ok) return answer(`${data.decision === "send" ? "Approved" : data.decision === "revise" ? "Sent back for revision" : "Deferred"}.`);
    if (outcome.reason === "needs_confirmation") return answer("One more tap: confirm below that it goes to all those members.");
    return answer(outcome.draft ? `Not applied: the draft is ${outcome.draft.status}.` : `Not applied (${outcome.reason}).`);
  });

  composer.on("message", async (ctx, next) => {
    const m = ctx.message;
    const target = m.reply_to_message;
    if (target === undefined || String(m.chat.id) !== options.reviewChatId || desk.byReviewMessageId(target.message_id) === undefined) {
      return next();
    }
    const text = m.text ?? m.caption ?? "";
    const reply = readReply(text);
    const facts: ActorFacts = { chatId: m.chat.id, userId: m.from?.id ?? null, actorChatId: m.sender_chat?.id ?? null, isBot: m.from?.is_bot ?? false };
    const extra = { review_message_id: target.message_id, username: m.from?.username ?? null, updateId: ctx.update.update_id };
    const who = authorizeActor(facts, context);
    if (!who.ok) return refuse(facts, reply.decision, reply.emoji, "reply", who.reason, extra);
    // A reviewer's command sent as a reply is a command (see owner-commands), not a revision note.
    if (m.entities?.some((e) => e.type === "bot_command" && e.offset === 0)) return next();
    if (text.trim() === "") return refuse(facts, null, null, "reply", "empty_reply", extra);
    const outcome = await decideOrTell({
      reviewChatId: String(m.chat.id),
      reviewMessageId: target.message_id,
      decision: reply.decision,
      note: reply.note,
      actor: { user_id: who.userId, channel: "reply", emoji: reply.emoji, update_id: ctx.update.update_id },
    });
    // A revision note is answered with who was told (its notify_roles).
    if (outcome?.ok && outcome.draft.status === "revise") await options.tellReviewers?.(revisionAnswer(outcome.draft)).catch(() => {});
  });

  return composer;
}
