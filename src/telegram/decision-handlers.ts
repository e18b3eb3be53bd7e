import { Composer, type Context } from "grammy";
import type { ReactionType } from "grammy/types";
import type { DecisionDesk, DecisionOutcome } from "../desk/ports.js";
import type { Actor, Channel, Decision, DraftRecord } from "../drafts/record.js";
import { authorizeActor, type ActorFacts } from "../reactions/authorize.js";
import { decisionForEmoji } from "../reactions/decision-keys.js";
import { readReplyAction } from "../reactions/reply.js";
import { receivedAtOf } from "./received-at.js";
import { readCallbackData, type ButtonAction } from "./review-buttons.js";
import { retryAtNextStart } from "./update-scope.js";
import { pointsToLivePost } from "../desk/surfaces.js";

/** What the handlers need to know. */
export interface DecisionHandlerOptions {
  /** The desk as a port: any object with these methods will do (tests pass plain ones). */
  readonly desk: DecisionDesk;
  readonly reviewChatId: string;
  readonly reviewerIds: ReadonlySet<number>;
  readonly log: { debug(obj: object, msg: string): void; warn(obj: object, msg: string): void; error(obj: object, msg: string): void };
  /** True once the feed's consumers acknowledged the draft's latest event (waits a little); absent: never. */
  readonly delivered?: (draftId: string) => Promise<boolean>;
  /** Edits a draft's post to say its revision note was told to its roles (see StatusEdits.showTold). */
  readonly showTold?: (draftId: string) => Promise<unknown>;
  /** Tells the reviewers something in the review chat (a decision that could not be saved). */
  readonly tellReviewers?: (text: string) => Promise<void>;
  /**
   * True for an update that waited while the daemon was down (Telegram's queue, or the journal of
   * the last run), read at start: a ↩️ tap, which Telegram does not date, was made at an unknown time then.
   */
  readonly heldWhileDown?: (updateId: number) => boolean;
}

/** What the reviewer is told when a decision could not be written to disk. */
export const DECISION_NOT_SAVED =
  "⚠️ Your decision could not be saved (the daemon could not write to its disk), so it has not been applied. " +
  "It is applied at the next start if it was journaled; otherwise decide again once the disk problem is fixed.";

function emojisOf(reactions: readonly ReactionType[]): string[] {
  return reactions.flatMap((r) => (r.type === "emoji" ? [r.emoji] : []));
}

/** The decision emoji a reaction update added (a removed reaction is no decision). */
export function addedDecision(
  oldReaction: readonly ReactionType[],
  newReaction: readonly ReactionType[],
): { decision: Decision; emoji: string } | "none" | "ambiguous" {
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

/** The 👍 or 👎 a reaction update took away (an undo of the approval or the revise within UNDO_WINDOW), or null. */
export function removedApproval(oldReaction: readonly ReactionType[], newReaction: readonly ReactionType[]): string | null {
  const after = new Set(emojisOf(newReaction));
  const undoable = (e: string) => decisionForEmoji(e) === "send" || decisionForEmoji(e) === "revise";
  return emojisOf(oldReaction).find((e) => !after.has(e) && undoable(e)) ?? null;
}

/** Who acted on which review message, as Telegram's own ids say (never names or text). */
interface Acting {
  readonly facts: ActorFacts;
  readonly channel: Channel;
  readonly updateId: number;
  readonly messageId: number | undefined;
  readonly username: string | null;
}

/**
 * The one way the handlers build an actor: authorised from Telegram's ids, or
 * refused and audited (then null). Authority comes only from REVIEWER_USER_IDS.
 */
async function actorFor(o: DecisionHandlerOptions, acting: Acting, decision: Decision | null, emoji: string | null): Promise<Actor | null> {
  const who = authorizeActor(acting.facts, { reviewChatId: o.reviewChatId, reviewerIds: o.reviewerIds });
  if (who.ok) return { user_id: who.userId, channel: acting.channel, emoji, update_id: acting.updateId };
  await refuse(o, acting, decision, emoji, who.reason);
  return null;
}

/** Audits an action that does not count, with the draft's text when the message is a known one. */
function refuse(o: DecisionHandlerOptions, acting: Acting, decision: Decision | null, emoji: string | null, reason: string): Promise<void> {
  const { facts, messageId } = acting;
  return o.desk.refuseDecision(
    {
      decision,
      actor: { user_id: facts.userId, channel: acting.channel, emoji, update_id: acting.updateId },
      reason,
      chat_id: String(facts.chatId),
      review_message_id: messageId ?? null,
      actor_chat_id: facts.actorChatId,
      username: acting.username,
    },
    messageId === undefined ? undefined : o.desk.draftOfMessage(messageId),
  );
}

/** Runs a desk action; if it cannot be saved, tells the reviewers and returns null. */
async function saved(o: DecisionHandlerOptions, messageId: number, work: () => Promise<DecisionOutcome>): Promise<DecisionOutcome | null> {
  try {
    return await work();
  } catch (err) {
    o.log.error({ err, review_message_id: messageId }, "a reviewer's decision could not be saved");
    // The journal keeps the update, so the next start applies the decision (DECISION_NOT_SAVED says so).
    retryAtNextStart();
    await o.tellReviewers?.(DECISION_NOT_SAVED).catch(() => {});
    return null;
  }
}

/** A reaction on a review message: an added 👍/👎/😴 decides; a 👍 or 👎 taken away undoes it within UNDO_WINDOW. */
export function reactionHandler(o: DecisionHandlerOptions) {
  return async (ctx: Context & { messageReaction: NonNullable<Context["messageReaction"]> }): Promise<void> => {
    const r = ctx.messageReaction;
    const found = addedDecision(r.old_reaction ?? [], r.new_reaction ?? []);
    const removed = found === "none" ? removedApproval(r.old_reaction ?? [], r.new_reaction ?? []) : null;
    if (found === "none" && removed === null) return o.log.debug({ update_id: ctx.update.update_id }, "reaction is not a decision");
    const acting: Acting = {
      facts: { chatId: r.chat.id, userId: r.user?.id ?? null, actorChatId: r.actor_chat?.id ?? null, isBot: r.user?.is_bot ?? false },
      channel: "reaction",
      updateId: ctx.update.update_id,
      messageId: r.message_id,
      username: r.user?.username ?? null,
    };
    if (found === "ambiguous") return refuse(o, acting, null, emojisOf(r.new_reaction ?? []).join(""), "ambiguous_reaction");
    const where = { reviewChatId: String(r.chat.id), reviewMessageId: r.message_id };
    if (found === "none") {
      const actor = await actorFor(o, acting, null, removed);
      // Telegram dates the reaction change: an undo counts if made inside the window, whenever it arrives.
      if (actor) await saved(o, r.message_id, () => o.desk.undo({ ...where, actor, actedAt: r.date * 1000 }));
      return;
    }
    const actor = await actorFor(o, acting, found.decision, found.emoji);
    // Dated by Telegram: a 👍 changed to 👎 or 😴 inside the undo window undoes the approval (see the machine's changeOfMind).
    if (actor)
      await saved(o, r.message_id, () =>
        o.desk.decide({ ...where, decision: found.decision, actor, actedAt: r.date * 1000, ...receivedAtOf(ctx.update) }),
      );
  };
}

const DONE: Record<ButtonAction, string> = {
  send: "Approved.",
  revise: "Sent back for revision.",
  defer: "Deferred.",
  confirm: "Approved.",
  edit: "Reply to the message below with the new text.",
  undo: "Undone: the draft awaits your decision again.",
  asbot: "Approved: it goes out as the bot.",
  keep: "Kept: the removed items are back in a new version, posted below.",
  toggle: "Changed: the post shows which destinations are on.",
};

/** A button under a review post: a decision, ✏️ Edit or ↩️ Undo. Every callback query is answered. */
export function buttonHandler(o: DecisionHandlerOptions) {
  return async (ctx: Context & { callbackQuery: NonNullable<Context["callbackQuery"]> }): Promise<void> => {
    const q = ctx.callbackQuery;
    const answer = async (text: string): Promise<void> => {
      await ctx.answerCallbackQuery({ text }).catch((err: unknown) => o.log.debug({ err }, "answerCallbackQuery failed"));
    };
    const data = readCallbackData(q.data);
    const message = q.message;
    const acting: Acting = {
      facts: { chatId: message?.chat.id ?? 0, userId: q.from.id, actorChatId: null, isBot: q.from.is_bot },
      channel: "button",
      updateId: ctx.update.update_id,
      messageId: message?.message_id,
      username: q.from.username ?? null,
    };
    if (data === null || message === undefined) {
      await refuse(o, acting, null, null, data === null ? "unknown_button" : "message_unavailable");
      return answer("This button is not recognised.");
    }
    const { decision } = data;
    const actor = await actorFor(o, acting, decision, null);
    if (!actor) return answer("Only the reviewer can decide on drafts.");
    // The message tapped (its decision surface) says what the tap means; the data is only a claim the desk checks.
    const request = { reviewChatId: String(message.chat.id), reviewMessageId: message.message_id, claimedDraftId: data.draftId, actor };
    const outcome = await saved(o, message.message_id, () => {
      if (data.action === "edit") return o.desk.requestEdit(request);
      if (data.action === "keep") return o.desk.keepRemoved(request);
      if (data.action === "toggle") return o.desk.toggle({ ...request, destination: data.destination ?? 0 });
      // A tap has no date: the moment it arrives, or unknown (null) when it waited while the daemon was down.
      if (data.action === "undo" || decision === null)
        return o.desk.undo(o.heldWhileDown?.(ctx.update.update_id) ? { ...request, actedAt: null } : request);
      const asBot = data.action === "asbot";
      return o.desk.decide({
        ...request,
        ...receivedAtOf(ctx.update),
        decision,
        confirmed: data.confirmed,
        ...(data.destination === undefined ? {} : { destination: data.destination }),
        asBot,
        actor: { ...actor, emoji: data.confirmed ? "✅" : asBot ? "🤖" : null },
      });
    });
    if (outcome === null) return answer("Not saved: the daemon could not write to its disk. Try again later.");
    if (outcome.ok) return answer(DONE[data.action]);
    if (outcome.reason === "needs_confirmation") return answer("One more tap: confirm below that it goes to all those members.");
    if (outcome.reason === "no_destination_on") return answer("Not sent: turn on at least one destination first.");
    if (outcome.reason === "surface_used")
      return answer("Not applied: this question was answered already or no longer applies. See the live post (linked in the chat).");
    if (outcome.reason === "wrong_surface")
      return answer("Not applied: this button does not count here. See the live post (linked in the chat).");
    if (pointsToLivePost(outcome.reason)) return answer("Not applied: this post is out of date. See the live post (linked in the chat).");
    if (outcome.reason === "removed_items_gone") return answer("Not applied: the removed items are no longer kept (see the chat).");
    return answer(outcome.draft ? `Not applied: the draft is ${outcome.draft.status}.` : `Not applied (${outcome.reason}).`);
  };
}

/**
 * A reply to a message of the bot's: to a review post, its reminder or the
 * edit prompt, ✏️ and new text edits, `undo` or ↩️ undoes, an emoji decides,
 * other text asks for a revision with that note; on any other message of the
 * bot's (a question, a notice, a command's answer) it does not count, and the
 * desk answers where to act instead. Replies to other people's messages, and
 * reviewers' commands, pass on.
 */
export function replyHandler(o: DecisionHandlerOptions) {
  return async (ctx: Context & { message: NonNullable<Context["message"]> }, next: () => Promise<void>): Promise<void> => {
    const m = ctx.message;
    const target = m.reply_to_message;
    if (target === undefined || String(m.chat.id) !== o.reviewChatId) return next();
    // Telegram names the author of the message replied to: the bot's own is never left unanswered.
    const ownMessage = target.from?.id === ctx.me?.id && target.from?.is_bot === true;
    if (!ownMessage && !o.desk.knowsMessage(target.message_id)) return next();
    const text = m.text ?? m.caption ?? "";
    const reply = readReplyAction(text, o.desk.isEditPrompt(target.message_id));
    const acting: Acting = {
      facts: { chatId: m.chat.id, userId: m.from?.id ?? null, actorChatId: m.sender_chat?.id ?? null, isBot: m.from?.is_bot ?? false },
      channel: "reply",
      updateId: ctx.update.update_id,
      messageId: target.message_id,
      username: m.from?.username ?? null,
    };
    const decision = reply.kind === "decide" ? reply.decision : null;
    const actor = await actorFor(o, acting, decision, reply.emoji);
    if (!actor) return;
    // A reviewer's command sent as a reply is a command (see owner-commands), not a revision note.
    if (m.entities?.some((e) => e.type === "bot_command" && e.offset === 0)) return next();
    if (text.trim() === "") return refuse(o, acting, null, null, "empty_reply");
    const postOf = ownMessage ? reviewPostOf(target) : undefined;
    const where = { reviewChatId: String(m.chat.id), reviewMessageId: target.message_id, actor, ownMessage, ...(postOf ? { postOf } : {}) };
    const outcome = await saved(o, target.message_id, () => {
      if (reply.kind === "edit") return o.desk.edit({ ...where, text: reply.text });
      if (reply.kind === "undo") return o.desk.undo({ ...where, actedAt: m.date * 1000 });
      // "ok", "send": no note and no decision yet; the bot asks with buttons, as a reply to the reviewer's message.
      if (reply.kind === "ask") return o.desk.askApproval({ ...where, note: reply.note, replyTo: m.message_id });
      // Dated by Telegram: a note after a 👎 counts if written inside the revise's undo window.
      return o.desk.decide({
        ...where,
        decision: reply.decision,
        note: reply.note,
        ...(reply.destination === undefined ? {} : { destination: reply.destination }),
        actedAt: m.date * 1000,
        ...receivedAtOf(ctx.update),
      });
    });
    if (reply.kind === "decide" && outcome?.ok) followNote(o, outcome.draft);
  };
}

/**
 * The draft a message of the bot's is the review post of, as its decision buttons (👍 Send, ❌ Revise,
 * ⏳ +24h) name it in Telegram's copy of it; undefined when it has none, or they name several drafts.
 */
function reviewPostOf(message: NonNullable<Context["message"]>["reply_to_message"]): string | undefined {
  const named = new Set<string>();
  for (const row of message?.reply_markup?.inline_keyboard ?? [])
    for (const button of row) {
      const data = "callback_data" in button ? readCallbackData(button.callback_data) : null;
      if (data && (data.action === "send" || data.action === "revise" || data.action === "defer")) named.add(data.draftId);
    }
  return named.size === 1 ? [...named][0] : undefined;
}

/**
 * A revision note's post says who it is queued for (its status edit); once a
 * consumer of the feed acknowledged the note's event, an edit says they were
 * told. No new message (contract v4, "one message per draft"). Not awaited:
 * the wait for the acknowledgement holds no later update on the post.
 */
function followNote(o: DecisionHandlerOptions, draft: DraftRecord): void {
  const { delivered, showTold } = o;
  if (draft.status !== "revise" || !draft.revision_note || !delivered || !showTold) return;
  void delivered(draft.draft_id)
    .then((told) => (told ? showTold(draft.draft_id) : undefined))
    .catch((err: unknown) => o.log.warn({ err, draft_id: draft.draft_id }, "could not show that a revision note was told"));
}

/**
 * The grammY handlers that turn reactions, buttons and replies on review
 * messages into reviewer actions, each checked against Telegram's own ids and
 * handed to the desk, which records it or audits why it did not count.
 */
export function decisionHandlers(options: DecisionHandlerOptions): Composer<Context> {
  const composer = new Composer<Context>();
  composer.on("message_reaction", reactionHandler(options));
  composer.on("callback_query", buttonHandler(options));
  composer.on("message", replyHandler(options));
  return composer;
}
