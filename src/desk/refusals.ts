/**
 * The actions of a reviewer that do not count: each is audited with why (once per Telegram update),
 * and the reviewer is told why when that helps. Apart from ReviewerActions, which judges and runs the
 * actions, because what a refusal says and to whom is a concern of its own: the wording lives in
 * live-post.ts, the choice of words and the flood limit here.
 */
import type { SurfaceState } from "../audit/audit-schema.js";
import type { Decision, DraftRecord } from "../drafts/record.js";
import type { RefusedDecision } from "./audit-entries.js";
import { refusedEntry } from "./audit-entries.js";
import { liveAnswer, refusalAnswer, TAP_A_BUTTON, type ActionKind, type LiveAnswerWhy } from "./live-post.js";
import type { ReviewerAction } from "./ports.js";
import type { ActionDeps } from "./reviewer-actions.js";
import { isOneTime, pointsToLivePost, shownOfDraft, type SurfaceAction } from "./surfaces.js";

/** At most one answer per this many ms about actions on messages that are no draft's post. */
const UNKNOWN_ANSWER_GAP_MS = 10_000;

/** How a refusal's answer names an action. */
function actionKind(action: SurfaceAction): ActionKind {
  if (action === "restore") return "restore";
  return action === "confirm" || action === "resume" || action === "asbot" ? "decide" : action;
}

/** How the answer to a refusal that points to the live post says why, by the message acted on. */
function liveAnswerWhy(reason: string, action: SurfaceAction, surface: SurfaceState | undefined): LiveAnswerWhy {
  const asks = surface?.asks;
  // An ✏️ Edit prompt, retired or not, takes a new text only; a text on a retired one is told why it no longer counts.
  if (asks === "edit" && action !== "edit") return "edit_prompt";
  if (asks === "edit" && reason === "surface_used") return "edit_prompt_retired";
  if (reason === "wrong_surface") {
    // A long draft's header or one of its parts (it names the post's message with the buttons).
    if (asks === "notice") return surface?.post === undefined ? "notice" : "post_part";
    return "wrong_surface";
  }
  if (asks === "remind") return "reminder_outdated";
  if (reason === "surface_used") return "used";
  return asks !== undefined && isOneTime(asks) ? "question_outdated" : "outdated";
}

/** What the reviewer is told when an action did not count, or null when nothing needs saying. */
function refusalText(
  action: SurfaceAction,
  reason: string,
  draft: DraftRecord | undefined,
  surface: SurfaceState | undefined,
  ownMessage: boolean,
  decision: Decision | null,
): string | null {
  if (reason === "taps_only") return TAP_A_BUTTON;
  // A message of the bot's it keeps no record of (a command's answer, a burst summary): it takes nothing.
  if (reason === "unknown_review_message" && ownMessage && !draft) return liveAnswer(undefined, "own_message");
  if (pointsToLivePost(reason)) return liveAnswer(draft, liveAnswerWhy(reason, action, surface));
  return refusalAnswer(actionKind(action), reason, draft, decision);
}

/** Audits and answers the reviewer's actions that do not count (see the file's comment). */
export class Refusals {
  /** When a reviewer was last told that a message is no review post (see answer). */
  private lastUnknownAnswer = -Infinity;

  constructor(private readonly deps: ActionDeps) {}

  /**
   * Audits a decision that does not count (a stranger, another chat, an
   * anonymous admin, too late), once per Telegram update: a redelivery of an
   * update already decided or refused, before or after a restart, is not
   * audited again.
   */
  async refuseDecision(refusal: RefusedDecision, draft?: DraftRecord): Promise<void> {
    const updateId = refusal.actor.update_id;
    const seen = this.deps.audit.index;
    if (updateId !== null && seen.hasSeenUpdate(updateId)) {
      this.deps.log.info({ update_id: updateId, reason: refusal.reason }, "a refused update was delivered again; it is audited already");
      return;
    }
    if (updateId !== null) seen.claimUpdate(updateId, this.deps.clock.now());
    try {
      await this.audit(refusal, draft);
    } catch (err) {
      if (updateId !== null) seen.releaseUpdate(updateId);
      throw err;
    }
    if (refusal.reason === "ambiguous_reaction") this.answerTwoDecisions(refusal, draft);
  }

  /**
   * A reviewer's one update that added two decisions at once (👍 and 👎): nothing applied, and he is told so on
   * the draft's post, instead of only the audit log knowing (D9 of issue 32). Nobody else is answered.
   */
  private answerTwoDecisions(refusal: RefusedDecision, draft: DraftRecord | undefined): void {
    const userId = refusal.actor.user_id;
    if (draft === undefined || userId === null || !this.deps.reviewerIds.has(userId) || this.deps.effects.closed) return;
    const text = `⚠️ Not applied: ${refusal.actor.emoji ?? "two reactions"} added at once are two decisions; nothing changed. Leave the one you mean (take the other away), or tap a button.`;
    const replyTo = draft.review_message_id ?? refusal.review_message_id ?? null;
    const told = this.deps.reviewChat.answer(text, replyTo, draft.review_thread_id ?? null);
    void this.deps.effects.track(told.then(() => {}).catch((err: unknown) => this.deps.log.warn({ err }, "could not answer the reviewer")));
  }

  /**
   * Tells the reviewer why an action did not count, when that helps (a
   * replaced post, a notice, a question that takes taps only, too late to
   * undo, a bad edit), as a reply to the live post (to the question, for
   * "tap a button"). Not awaited: the update's handling does not wait for a
   * slot in the review chat. An answer about a draft is a notice of it (an
   * action on it points to the live post again). Answers about messages the
   * daemon does not know as its own (a 👍 on anyone's message) are at most
   * one per UNKNOWN_ANSWER_GAP_MS, so they cannot flood the chat.
   */
  answer(
    action: SurfaceAction,
    reason: string,
    draft: DraftRecord | undefined,
    request: ReviewerAction,
    surface: SurfaceState | undefined,
    decision: Decision | null,
  ): void {
    // An archived draft is not in the store: its record is the one read from archive/.
    const current = draft && (this.deps.get(draft.draft_id) ?? (reason === "archived" ? draft : undefined));
    const ownMessage =
      request.ownMessage === true || surface !== undefined || this.deps.reviewChat.isOwnMessage?.(request.reviewMessageId) === true;
    const text = refusalText(action, reason, current, surface, ownMessage, decision);
    if (text === null || this.deps.effects.closed) return;
    if (!current && !ownMessage) {
      const now = this.deps.clock.now();
      if (now - this.lastUnknownAnswer < UNKNOWN_ANSWER_GAP_MS) return;
      this.lastUnknownAnswer = now;
    }
    const replyTo = reason === "taps_only" ? request.reviewMessageId : (current?.review_message_id ?? request.reviewMessageId);
    const answered = async (): Promise<void> => {
      // In the topic of the draft's post (the message acted on, when there is no draft: the main thread, or the fallback there).
      const messageId = await this.deps.reviewChat.answer(text, replyTo, current?.review_thread_id ?? null);
      const live = current && this.deps.get(current.draft_id);
      if (live?.review_chat_id) await this.deps.surfaces.record("notice", { chatId: live.review_chat_id, messageId }, shownOfDraft(live));
    };
    void this.deps.effects.track(answered().catch((err: unknown) => this.deps.log.warn({ err }, "could not answer the reviewer")));
  }

  /** Logs and audits an action that did not count, with its draft as the store holds it. */
  async audit(refusal: RefusedDecision, draft: DraftRecord | undefined): Promise<void> {
    this.deps.log.warn({ ...refusal, draft_id: draft?.draft_id }, "decision refused");
    // A draft the store no longer holds (archived) is audited with the record it was given.
    await this.deps.audit.append([refusedEntry(refusal, draft && (this.deps.get(draft.draft_id) ?? draft))]);
  }
}
