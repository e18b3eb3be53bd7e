import { traceStep } from "../log/latency-trace.js";
import { withChoice } from "../drafts/choices.js";
import { reactionUndoRefused } from "../reactions/reaction-undo.js";
import { confirmationNeeds, confirmationTarget } from "../drafts/decide.js";
import { redactsToShown, textVersionEvent } from "./text-versions.js";
import type { AuditLog } from "../audit/audit-log.js";
import { isInertDraft } from "./test-drafts.js";
import type { Clock } from "../clock/clock.js";
import type { DraftEvent } from "../drafts/events.js";
import type { ChannelSet } from "../channels/channel-set.js";
import type { TransitionResult } from "../drafts/machine.js";
import type { DraftRecord } from "../drafts/record.js";
import { AWAITING_DECISION } from "../drafts/status.js";
import type { DraftArchive } from "../store/archive.js";
import type { RefusedDecision } from "./audit-entries.js";
import { Refusals } from "./refusals.js";
import type { DeskEffects } from "./desk-effects.js";
import { mayBeLong, prepareKeptText, prepareReviewerText, type PreparedText, type Redactor } from "./draft-text.js";
import { hasRemovedItems } from "../drafts/keep-removed.js";
import type {
  AskRequest,
  DecisionOutcome,
  DecisionRequest,
  EditRequest,
  RemovedItems,
  ReviewChat,
  ReviewerAction,
  SendsHalted,
} from "./ports.js";
import type { SurfaceState } from "../audit/audit-schema.js";
import {
  isOneTime,
  judgeSurface,
  shownAsRecorded,
  shownOfDraft,
  actOf,
  type Act,
  type DecisionSurfaces,
  type SurfaceAction,
} from "./surfaces.js";

/** What a reviewer action did: a transition, or a refusal of the desk's own (an edit text that cannot be a draft). */
type ActResult = TransitionResult | { readonly ok: false; readonly reason: string };

/** An action, once its surface let it through: the draft and the surface it was made on. */
type Run = (draft: DraftRecord, surface: SurfaceState) => Promise<ActResult>;

/** What the reviewer's actions need from the desk. */
export interface ActionDeps {
  readonly audit: AuditLog;
  readonly clock: Clock;
  readonly reviewChat: ReviewChat;
  readonly reviewerIds: ReadonlySet<number>;
  readonly deferForMs: number;
  readonly confirmOver?: number | null | undefined;
  readonly undoWindowMs?: number | undefined;
  /** The bot's @username: a draft moved to the bot ("🤖 Send as the bot instead") names it. */
  readonly botUsername?: string | null | undefined;
  readonly archive?: DraftArchive<DraftRecord> | undefined;
  readonly log: { warn(obj: object, msg: string): void; info(obj: object, msg: string): void };
  readonly surfaces: DecisionSurfaces;
  readonly effects: DeskEffects;
  /** True in test mode; a desk finds no draft of the other mode by a message, a button or in the archive (see isInertDraft). */
  readonly testMode?: boolean | undefined;
  /** Why sends are halted now, or were since a moment, or null (see ReviewDeskOptions.sendsHalted). */
  readonly sendsHalted?: SendsHalted | undefined;
  /** The originals of redacted drafts (🔓 Keep the removed items); absent: none were kept. */
  readonly removedItems?: RemovedItems | undefined;
  /** The redactor intake used: a kept original must redact to exactly the text the post showed (absent: not checked). */
  readonly redact?: Redactor | null | undefined;
  /** Linear, email and Slack: an edit's new text may notify others there (a mention, @channel), so their audience is read again. */
  readonly channels?: ChannelSet | null | undefined;
  get(draftId: string): DraftRecord | undefined;
  apply(draftId: string, event: DraftEvent): Promise<TransitionResult>;
}

/**
 * The reviewer's actions on review messages: decide, edit, ask to edit,
 * undo; and the audit of actions that do not count. Each goes through `act`,
 * which takes the update once, checks the actor, finds the draft from the
 * message acted on, and answers a refusal the reviewer should hear about.
 */
export class ReviewerActions {
  /** The audit and answers of the actions that do not count. */
  private readonly refusals: Refusals;

  constructor(private readonly deps: ActionDeps) {
    this.refusals = new Refusals(deps);
  }

  /** The draft a message belongs to: its live review post, a replaced one, or an edit prompt. */
  draftOfMessage(messageId: number): DraftRecord | undefined {
    const id = this.deps.surfaces.draftIdOf(messageId);
    return id === undefined ? undefined : this.own(this.deps.get(id));
  }

  /** `draft`, unless it was made in the other mode (a test-mode draft's message ids were made up; a live one is the owner's): see isInertDraft. */
  private own(draft: DraftRecord | undefined): DraftRecord | undefined {
    return draft && isInertDraft(draft, this.deps.testMode === true) ? undefined : draft;
  }

  /**
   * A reviewer's decision on a review message. The desk checks again that the
   * actor is a reviewer; a decision that does not count is audited with why.
   * The same Telegram update delivered twice acts once. An approval binds to
   * the text version of the post it was made on, and waits UNDO_WINDOW.
   */
  decide(request: DecisionRequest): Promise<DecisionOutcome> {
    const action: SurfaceAction = request.asBot === true ? "asbot" : request.confirmed === true ? "confirm" : "decide";
    return this.act(request, action, request.decision, async (draft, surface) => {
      // An ↩️ Undo message takes a change of mind while the approval it offers to undo waits; no new decision.
      if (surface.asks === "undo" && draft.status !== "approved") return { ok: false, reason: "wrong_surface" };
      // An approval made while sends are halted is answered as halted at once (contract v4); so is one that
      // waited behind earlier updates about its message while a halt came and went: the halt came after the tap.
      const halted = request.decision === "send" ? ((await this.deps.sendsHalted?.(request.receivedAt)) ?? null) : null;
      traceStep("4.3 kill switch read");
      const result = await this.deps.apply(draft.draft_id, {
        type: "decide",
        decision: request.decision,
        actor: request.actor,
        note: request.note ?? null,
        deferMs: this.deps.deferForMs,
        // A revise tapped on the question a reply "ok" got takes that reply as its note, as the question said.
        ...(surface.asks === "ask" ? { note: surface.note ?? null } : {}),
        confirmOver: this.deps.confirmOver ?? null,
        // The surface, not the button's data, says whether this is the confirmation tap.
        confirmed: surface.asks === "confirm",
        ...(request.destination === undefined ? {} : { destination: request.destination }),
        undoMs: this.deps.undoWindowMs ?? 0,
        textVersion: surface.text_version ?? draft.text_version,
        ...(surface.audience === null ? {} : { audience: surface.audience }),
        identity: surface.identity,
        // The surface, not the button's data, says whether this is "🤖 Send as the bot instead" (a new approval, as the bot).
        ...(surface.asks === "asbot" ? { asBot: { username: this.deps.botUsername ?? null } } : {}),
        ...(halted === null ? {} : { halted: halted.reason, haltLasts: halted.lasting }),
        // Telegram's date, as for an undo: a note after a 👎 counts inside the revise's undo window, a 👎 or 😴 on an
        // approved draft inside the approval's (a change of mind).
        ...(request.actedAt == null ? {} : { actedAt: request.actedAt }),
      });
      if (!result.ok && result.reason === "needs_confirmation")
        this.askConfirmation(draft.draft_id, request.destination ?? confirmationTarget(draft, this.deps.confirmOver ?? null));
      return result;
    });
  }

  /**
   * A reviewer's new text: checked and trimmed as at intake (not redacted: it is his own), then the
   * draft's next text version, posted for review again. A text that cannot be
   * a draft is refused, and the reviewer is told why.
   */
  edit(request: EditRequest): Promise<DecisionOutcome> {
    return this.act(request, "edit", null, async (draft, surface) => {
      // The reviewer's own text is not redacted (contract v3): what he typed is what he approves.
      const prepared = prepareReviewerText(request.text);
      if (!prepared.ok) return { ok: false, reason: `edit_${prepared.reason}` };
      return this.applyText(draft, surface, request, prepared, false);
    });
  }

  /**
   * "🔓 Keep the removed items": the draft's next text version is the text as
   * submitted, with what redaction removed, read from where intake kept it.
   * Bound like an ✏️ edit (the same `edit` event, on the text version the post
   * showed; the old post is marked replaced, the new one is what a 👍
   * approves), and only while the text is still the one redaction made of that
   * original (its sha256): a missing or damaged file, or any other text, is
   * refused as gone, never restored wrongly.
   */
  keepRemoved(request: ReviewerAction): Promise<DecisionOutcome> {
    return this.act(request, "restore", null, async (draft, surface) => {
      if (!hasRemovedItems(draft)) return { ok: false, reason: "nothing_removed" };
      const read = (await this.deps.removedItems?.read(draft.draft_id)) ?? { ok: false, reason: "missing", detail: "none kept" };
      // The file is HARNESS_DIR's, and its own sha256 can be rewritten with it: what counts is that the original redacts,
      // as intake did, to exactly the text the post showed (D4 of issue 32); anything else is refused as gone.
      const kept =
        read.ok && read.kept.redacted_sha256 === draft.text_sha256 && redactsToShown(read.kept.text, draft, this.deps.redact)
          ? read.kept
          : null;
      if (kept === null) {
        const why = read.ok ? "kept for another text" : `${read.reason}: ${read.detail}`;
        this.deps.log.warn({ draft_id: draft.draft_id, why }, "the removed items of a draft cannot be put back");
        return { ok: false, reason: "removed_items_gone" };
      }
      const prepared = prepareKeptText(kept.text, draft.redaction, mayBeLong(draft));
      if (!prepared.ok) return { ok: false, reason: prepared.reason === "too_long" ? "restore_too_long" : "removed_items_gone" };
      return this.applyText(draft, surface, request, prepared, true);
    });
  }

  /** The ✏️ Edit button: the bot sends the current text to copy, with a ForceReply; a reply to it is the edit. */
  requestEdit(request: ReviewerAction): Promise<DecisionOutcome> {
    return this.act(request, "prompt", null, async (draft) => {
      if (!AWAITING_DECISION.has(draft.status)) return { ok: false, reason: "not_awaiting_decision" };
      const messageId = await this.deps.reviewChat.promptEdit(draft);
      const chatId = draft.review_chat_id ?? request.reviewChatId;
      // The tap's update id goes with it: a redelivery (after a kill -9) is known as done, not refused again.
      const update = request.actor.update_id === null ? {} : { update_id: request.actor.update_id };
      await this.deps.surfaces.record("edit", { chatId, messageId }, shownOfDraft(draft), update);
      return { ok: true, draft, effects: [] };
    });
  }

  /**
   * A reply that is only an approval word ("ok"): not a revision note. The bot
   * answers, as a reply to it, with two buttons (send, or revise with that
   * note), a one-time surface bound to what the post showed; nothing changes
   * until one is tapped.
   */
  askApproval(request: AskRequest): Promise<DecisionOutcome> {
    return this.act(request, "decide", null, async (draft) => {
      if (!AWAITING_DECISION.has(draft.status)) return { ok: false, reason: "not_awaiting_decision" };
      const { messageId, question } = await this.deps.reviewChat.askApproval(
        draft,
        request.note,
        request.replyTo ?? request.reviewMessageId,
      );
      const chatId = draft.review_chat_id ?? request.reviewChatId;
      const update = request.actor.update_id === null ? {} : { update_id: request.actor.update_id };
      await this.deps.surfaces.record("ask", { chatId, messageId }, shownOfDraft(draft), { ...update, note: request.note, question });
      return { ok: true, draft, effects: [] };
    });
  }

  /** A destination's toggle (`choose: "any"`): on or off, bound like a decision to the text version and set the post showed. */
  toggle(request: ReviewerAction & { readonly destination: number }): Promise<DecisionOutcome> {
    return this.act(request, "toggle", null, (draft, surface) =>
      this.deps.apply(draft.draft_id, {
        type: "toggle",
        destination: request.destination,
        actor: request.actor,
        textVersion: surface.text_version ?? draft.text_version,
        ...(surface.audience === null ? {} : { audience: surface.audience }),
      }),
    );
  }

  /** Takes back an approval within UNDO_WINDOW: the draft returns to where it was before the 👍. */
  undo(request: ReviewerAction): Promise<DecisionOutcome> {
    const undo = { type: "undo" as const, actor: request.actor, ...(request.actedAt === undefined ? {} : { actedAt: request.actedAt }) };
    return this.act(request, "undo", null, async (draft) => {
      const refused = request.actor.channel === "reaction" ? reactionUndoRefused(draft, request.actor) : null;
      if (refused !== null) return { ok: false, reason: refused };
      return this.deps.apply(draft.draft_id, undo);
    });
  }

  /**
   * What every reviewer action goes through: the update is taken once, the
   * actor must be a reviewer, and the message must be the draft's live post
   * (or, for an edit, the bot's edit prompt). An action on a replaced or
   * orphaned post is refused with an answer that points to the live post; a
   * refusal the reviewer should know about is answered too.
   */
  private async act(
    request: ReviewerAction,
    action: SurfaceAction,
    decision: DecisionRequest["decision"] | null,
    run: Run,
  ): Promise<DecisionOutcome> {
    const updateId = request.actor.update_id;
    const seen = this.deps.audit.index;
    if (updateId !== null && seen.hasSeenUpdate(updateId)) {
      return { ok: false, reason: "duplicate_update", draft: this.draftOfMessage(request.reviewMessageId) };
    }
    if (updateId !== null) seen.claimUpdate(updateId, this.deps.clock.now());
    try {
      return await this.actOnce(request, action, decision, run);
    } catch (err) {
      // Not recorded: a redelivery of the same update must be able to try again.
      if (updateId !== null) seen.releaseUpdate(updateId);
      throw err;
    }
  }

  /**
   * Audits a decision that does not count (a stranger, another chat, an anonymous admin, too late), once per
   * Telegram update (see Refusals.refuseDecision).
   */
  refuseDecision(refusal: RefusedDecision, draft?: DraftRecord): Promise<void> {
    return this.refusals.refuseDecision(refusal, draft);
  }

  /** Posts the large-audience question for a draft (ahead of queued posts); a failure is logged. */
  private askConfirmation(draftId: string, destination: number): void {
    const stored = this.deps.get(draftId);
    // Among several destinations the question names the one picked, and its identity says which (see decide.ts).
    const draft = stored && stored.choices !== null ? (withChoice(stored, destination) ?? stored) : stored;
    if (!draft) return;
    // Among several destinations on, the question names each that asks the tap, with why.
    const needs = stored ? confirmationNeeds(stored, this.deps.confirmOver ?? null) : [];
    const asked = async (): Promise<void> => {
      const { messageId, question } = await this.deps.reviewChat.askConfirmation(draft, needs);
      const chatId = draft.review_chat_id;
      if (chatId !== null) await this.deps.surfaces.record("confirm", { chatId, messageId }, shownOfDraft(draft), { question });
    };
    void this.deps.effects.track(asked());
  }

  /**
   * One action, once: the surface at the message acted on (by chat and message
   * id; the button's data is only a claim) finds the draft, and `gate` judges
   * the action against what that surface showed. Only then does it run.
   */
  private async actOnce(
    request: ReviewerAction,
    action: SurfaceAction,
    decision: DecisionRequest["decision"] | null,
    run: Run,
  ): Promise<DecisionOutcome> {
    // How it came (a tap, a reaction, a reply) is part of what is judged: a question takes taps only.
    const act = actOf(action, request.actor.channel, decision);
    const { surface, draft, byMessage, archived } = await this.actedOn(request);
    traceStep("4.1 message found");
    const refuse = async (reason: string, answer = true): Promise<DecisionOutcome> => {
      const refusal = { decision, actor: request.actor, reason, chat_id: request.reviewChatId, review_message_id: request.reviewMessageId };
      await this.refusals.audit(refusal, draft);
      if (answer && this.deps.reviewerIds.has(request.actor.user_id))
        this.refusals.answer(action, reason, draft, request, surface, decision);
      return { ok: false, reason, draft: draft && this.deps.get(draft.draft_id) };
    };
    if (!this.deps.reviewerIds.has(request.actor.user_id)) return refuse("not_a_reviewer");
    // A message of the bot's about no draft (a /resume confirmation) takes no decision: judged as it is, for the answer.
    if (surface && surface.draft_id === null) return refuse(this.refusalOf(surface, act));
    if (!draft || (draft.review_chat_id !== null && draft.review_chat_id !== request.reviewChatId)) return refuse("unknown_review_message");
    if (archived) return refuse("archived");
    if (byMessage && request.claimedDraftId !== undefined && request.claimedDraftId !== draft.draft_id) {
      return refuse("button_names_another_draft", false);
    }
    if (!surface) return refuse("not_live_post");
    const claim = { draftId: request.claimedDraftId };
    const verdict = await this.deps.surfaces.gate(surface, shownOfDraft(draft), act, claim, this.deps.clock.now());
    if (!verdict.ok) return refuse(verdict.reason, verdict.reason !== "button_names_another_draft");
    traceStep("4.2 surface judged");
    const result = await run(draft, surface);
    // A question is used once: it then says what was chosen, or, when the choice did not take, what became of the draft.
    if (isOneTime(surface.asks)) this.closeUsed(surface, this.deps.get(draft.draft_id) ?? draft, result.ok ? (decision ?? "send") : null);
    if (!result.ok) return refuse(result.reason);
    return { ok: true, draft: result.draft };
  }

  /**
   * The surface and draft of the message acted on. A message the desk does
   * not know may be a post whose call is under way (Telegram gives it to the
   * owner before its answer comes here): the look waits for those posts to be
   * recorded and is made again, so a 👍 the moment a post appears counts.
   */
  private async actedOn(request: ReviewerAction) {
    const look = async () => {
      const surface = this.deps.surfaces.at(request.reviewChatId, request.reviewMessageId);
      return { surface, ...(await this.draftActedOn(request, surface)) };
    };
    let found = await look();
    if (found.surface === undefined && found.byMessage === undefined && (await this.deps.effects.postsRecorded())) found = await look();
    if (found.surface !== undefined || found.byMessage !== undefined || request.postOf === undefined) return found;
    // A review post a crash left unrecorded: judged as what it showed, the draft's next recorded post.
    const draft = this.own(this.deps.get(request.postOf));
    const surface = draft && this.deps.surfaces.firstPostAfter(request.reviewChatId, request.reviewMessageId, draft.draft_id);
    return draft ? { ...found, draft, byMessage: draft, surface } : found;
  }

  /**
   * The draft of the message acted on: by its surface, by the desk's index,
   * by the button's claim (a post the desk does not know, an orphan a crash
   * left, still finds the draft to point to), or from the archive.
   */
  private async draftActedOn(
    request: ReviewerAction,
    surface: SurfaceState | undefined,
  ): Promise<{ draft: DraftRecord | undefined; byMessage: DraftRecord | undefined; archived: DraftRecord | undefined }> {
    const byMessage = surface?.draft_id ? this.own(this.deps.get(surface.draft_id)) : this.draftOfMessage(request.reviewMessageId);
    const live = byMessage ?? (request.claimedDraftId === undefined ? undefined : this.own(this.deps.get(request.claimedDraftId)));
    // The post of a draft archived since (DRAFT_RETENTION): read from archive/, refused and answered.
    const archived = live === undefined ? this.own(await this.deps.archive?.byMessage(request.reviewMessageId)) : undefined;
    return { draft: live ?? archived, byMessage, archived };
  }

  /** Why an action on a surface about no draft does not count (it never does here: such a question is tapped elsewhere). */
  private refusalOf(surface: SurfaceState, act: Act): string {
    const verdict = judgeSurface(surface, shownAsRecorded(surface), act, {}, this.deps.clock.now());
    return verdict.ok ? "wrong_surface" : verdict.reason;
  }

  /** The draft's next text version (an ✏️ edit, or the kept originals: `restored`), bound to the text version its message showed. */
  private async applyText(
    draft: DraftRecord,
    surface: SurfaceState,
    request: ReviewerAction,
    prepared: Extract<PreparedText, { ok: true }>,
    restored: boolean,
  ): Promise<TransitionResult> {
    const reach = { channels: this.deps.channels, now: () => this.deps.clock.now() };
    return this.deps.apply(draft.draft_id, await textVersionEvent(draft, surface.text_version, request.actor, prepared, restored, reach));
  }

  private closeUsed(surface: SurfaceState, draft: DraftRecord, chose: DecisionRequest["decision"] | null): void {
    if (this.deps.effects.closed) return;
    const closed = this.deps.reviewChat.close(surface, draft, chose);
    void this.deps.effects.track(closed.catch((err: unknown) => this.deps.log.warn({ err }, "could not close a used question")));
  }
}
