import type { Audience } from "../drafts/audience.js";
import type { SurfaceState } from "../audit/audit-schema.js";
import type { Actor, Decision, DraftRecord } from "../drafts/record.js";
import type { ConfirmNeed } from "../drafts/decide.js";
import type { RefusedDecision } from "./audit-entries.js";
import type { KeptOriginal, ReadKept } from "../store/removed-items.js";

/** Where a review post went. */
export interface ReviewPost {
  readonly reviewChatId: string;
  readonly reviewMessageId: number;
  /** The topic it went to (its message_thread_id); null or absent: the chat's main thread. */
  readonly reviewThreadId?: number | null;
  /** A draft too long to share a message with its header: the header's message (it takes no decision). */
  readonly headerMessageId?: number;
  /** A draft longer than one message: the messages of its parts before the last, in order (they take no decision either). */
  readonly partMessageIds?: readonly number[];
}

/** A question the bot asked: its message, and what it asked (kept for the edit that says what became of it). */
export interface Asked {
  readonly messageId: number;
  readonly question: string;
}

/** What a status edit of the review post showed, once Telegram accepted it (see ReviewChat.showStatus). */
export interface StatusShown {
  /** The draft as the message shows it: the latest record when the edit's turn came. */
  readonly draft: DraftRecord;
  /** When Telegram answered the call that showed it (ms, the injected clock); for content it showed already, when that was. */
  readonly at: number;
  /** The send time shown for an approval whose ↩️ Undo this edit shows first (ms); null: none shown. */
  readonly sendAt: number | null;
  /** The edit could not be made, and a new message shows the status with ↩️ Undo instead: its id (an `undo` surface). */
  readonly undoMessageId?: number;
  /** Nothing could show the approval's ↩️ Undo (the edit and the new message failed): why. */
  readonly failed?: string;
}

/**
 * The review chat as the desk sees it. Live mode implements it with grammY and
 * the review chat's rate limit; test mode with message ids it makes up.
 */
export interface ReviewChat {
  /**
   * True when a post made now would go out at once (the review chat's rate
   * limit has room), and then that slot is taken: the caller posts right
   * away. Synchronous, so two submissions cannot both take the last slot.
   */
  claimFreeSlot(): boolean;
  /**
   * True when `messageId` is one of the bot's latest messages in the review chat (a constant number of them
   * is remembered, in memory): a reaction on it, which Telegram sends without the message's author, is the
   * reviewer's on a message of the bot's, and is answered. Absent: nothing is known.
   */
  isOwnMessage?(messageId: number): boolean;
  /**
   * Posts the draft for review; waits for a slot. Rejects with an error the desk logs and retries.
   * `onCall` is called once, just before the first call that may make the post (the owner may act
   * on it from then on, before the post's id is known here).
   */
  post(draft: DraftRecord, onCall?: () => void): Promise<ReviewPost>;
  /**
   * Edits the review message to show the draft's status (buttons removed once it is final), as
   * `latest` has it when the edit's turn comes (default: `draft`). Resolves with what it showed and
   * when Telegram accepted it (nothing: shown, at about now). An approval's ↩️ Undo counts from then.
   */
  showStatus(draft: DraftRecord, latest?: () => DraftRecord | undefined): Promise<StatusShown | undefined>;
  /** The desk's drafts, handed over once the desk exists: a replaced draft's post names the version that replaced it. */
  useDrafts?(get: (draftId: string) => DraftRecord | undefined): void;
  /**
   * Optional (a review chat with a pace): runs `work`, a send to a destination (no call to the
   * review chat), in the review chat's next top-priority turn, and in that same turn edits the
   * post to show `latest()`, so no post offers ↩️ Undo for a sent draft longer than one call.
   * `shown` hears what that edit showed (null: none). Resolves or rejects as `work` does.
   */
  sendTurn?<T>(work: () => Promise<T>, latest: () => DraftRecord | undefined, shown: (s: StatusShown | null) => void): Promise<T>;
  /**
   * Optional: a message that shows the draft's ↩️ Undo in place of its post (an open `undo` surface read back at
   * start, its Undo still counting): it loses the Undo with the post's next edit, as the Undo messages this process sent.
   */
  adoptUndo?(draftId: string, where: { readonly chatId: string; readonly messageId: number }): void;
  /** Tells the reviewers something about this draft, as a reply to its review message; resolves with the notice's message id. */
  notify(draft: DraftRecord, text: string): Promise<number>;
  /**
   * Asks the extra tap a 👍 needs for a large audience ("Send to 1,234 members of …? [Yes, send]"); among several
   * destinations on, `needs` names each that asks it, with why. Resolves with the question's message id and words.
   */
  askConfirmation(draft: DraftRecord, needs?: readonly ConfirmNeed[]): Promise<Asked>;
  /** Tells the reviewers `text` under a "🤖 Send as the bot instead" button, as a reply to the review message; resolves with its message id. */
  offerAsBot(draft: DraftRecord, text: string): Promise<number>;
  /** Marks an earlier review post of `draft` as replaced by its current version; its buttons go. */
  markSuperseded(draft: DraftRecord, reviewMessageId: number): Promise<void>;
  /** Sends the reviewer the current text to copy and a ForceReply (the ✏️ Edit button); resolves with that message's id. */
  promptEdit(draft: DraftRecord): Promise<number>;
  /**
   * Answers in the review chat, as a reply to `replyTo` when given (an action on a message that is no live post), in
   * `thread`: the topic that message is in (a draft's `review_thread_id`); null or absent: the main thread. Resolves
   * with its message id.
   */
  answer(text: string, replyTo: number | null, thread?: number | null): Promise<number>;
  /** Asks what a reply that is only an approval word ("ok") meant: send, or revise with it as the note; resolves with the question's id and words. */
  askApproval(draft: DraftRecord, note: string, replyTo: number): Promise<Asked>;
  /**
   * Reminds the reviewers of a draft that expires soon, as a reply to its post (so it notifies), with the post's
   * decision buttons; resolves with the text sent and the reminder's message id.
   */
  remind(draft: DraftRecord): Promise<{ readonly text: string; readonly messageId: number }>;
  /**
   * Edits a question or a reminder that counts no more to say what became of it, without buttons (a message that
   * showed an ↩️ Undo in place of the post: the draft's status, as the post shows it): `chose`, the
   * decision a tap on the question made; null, the draft moved on (decided elsewhere, edited, deferred, expired).
   * A failure is the caller's to log.
   */
  close(surface: SurfaceState, draft: DraftRecord, chose: Decision | null): Promise<void>;
  /** Shows a reminder as it was sent again, with the post's buttons (its draft awaits a decision again: an approval undone). */
  reopenReminder(surface: SurfaceState, draft: DraftRecord): Promise<void>;
}

/**
 * The originals of redacted drafts, kept aside for "🔓 Keep the removed items"
 * (src/store/removed-items.ts: private files in HARNESS_DIR, never the store or the audit log).
 */
export interface RemovedItems {
  /** Keeps a draft's text before redaction, bound to the redacted text's sha256; durable when it resolves. */
  keep(kept: KeptOriginal): Promise<void>;
  /** A draft's kept original, or why there is none (missing, damaged): never throws for a bad file. */
  read(draftId: string): Promise<ReadKept>;
  /** Drops a draft's kept original. */
  drop(draftId: string): Promise<void>;
  /** Drops the kept originals `keep` says no longer serve; returns how many went. */
  sweep(keep: (draftId: string) => boolean): Promise<number>;
}

/** Sends an approved draft through the guarded send path. */
export interface Sender {
  send(draftId: string): Promise<void>;
}

/**
 * Who will read a destination, as Telegram tells it. Live mode asks the Bot
 * API (cached for at most a minute); test mode knows nobody.
 */
export interface AudienceSource {
  /** The destination's audience, from the cache when fresh. Never rejects: a failure is an audience with a `problem`. */
  resolve(chatId: string): Promise<Audience>;
  /** Asks Telegram again now (the send call's check). Null when Telegram did not answer: the draft is then not sent (fails closed). */
  fresh(chatId: string): Promise<Audience | null>;
}

/** The result of a reviewer's action: the draft after it, or why it did not count. */
export type DecisionOutcome =
  | { readonly ok: true; readonly draft: DraftRecord }
  | { readonly ok: false; readonly reason: string; readonly draft: DraftRecord | undefined };

/** Which review message a reviewer acted on, and who. */
export interface ReviewerAction {
  /** The chat the action was made in; must be the chat the draft was posted to. */
  readonly reviewChatId: string;
  readonly reviewMessageId: number;
  /** When the action names a draft itself (button data), it must be the draft of that message. */
  readonly claimedDraftId?: string;
  readonly actor: Actor;
  /** When the reviewer acted, as Telegram dated it (ms); absent: now; null: unknown (see the `undo` event). */
  readonly actedAt?: number | null;
  /** Telegram says the message acted on is the bot's own (a reply's `reply_to_message.from`): an answer about it is never held back. */
  readonly ownMessage?: boolean;
  /**
   * The draft whose review post the message is, as its own decision buttons name it (a reply carries
   * Telegram's copy of the message it answers; unlike a tap's data, this is not the client's claim).
   * A post a crash left unrecorded is then judged as the draft's next recorded post (see actedOn).
   */
  readonly postOf?: string;
}

/**
 * Why sends are halted now (the kill switch, read at the call: `kill switch: …`; `lasting`), or were
 * at some moment since `since` (a halt that came and went: not lasting), or null.
 */
export type SendsHalted = (since?: number) => Promise<{ readonly reason: string; readonly lasting: boolean } | null>;

/** A decision (send, revise, defer) on a review message. */
export interface DecisionRequest extends ReviewerAction {
  readonly decision: Decision;
  readonly note?: string | null;
  /** The reviewer's "Yes, send" tap for a large audience. */
  readonly confirmed?: boolean;
  /** Among several destinations: the one a button or a reply's number picked (from 1); absent: the first, or the confirmation's. */
  readonly destination?: number;
  /** "🤖 Send as the bot instead" on a draft the owner's identity could not send: a new approval, as the bot (a claim its surface checks). */
  readonly asBot?: boolean;
  /**
   * When the daemon received the update (its clock), before it waited behind earlier updates about
   * the same message: a halt seen since then stops an approval as one seen after it would. Absent: now.
   */
  readonly receivedAt?: number;
}

/** A reply that is only an approval word ("ok", "send"): the bot asks with buttons which was meant. */
export interface AskRequest extends ReviewerAction {
  /** The reply as written (trimmed): the revision note if the reviewer taps revise. */
  readonly note: string;
  /** The reviewer's reply, which the question answers (absent: the review post). */
  readonly replyTo?: number;
}

/** A reviewer's new text for a draft: a ✏️ reply to its post, or a reply to the bot's edit prompt. */
export interface EditRequest extends ReviewerAction {
  /** The text as the reviewer wrote it (the ✏️ already removed); trimmed, checked and redacted as at intake. */
  readonly text: string;
}

/**
 * What the Telegram handlers need from the desk: reviewer actions on review
 * messages, and the audit of actions that do not count. The desk implements
 * it; a test can pass a plain object.
 */
export interface DecisionDesk {
  /** A decision on a review message. */
  decide(request: DecisionRequest): Promise<DecisionOutcome>;
  /** A new text version from a reviewer. */
  edit(request: EditRequest): Promise<DecisionOutcome>;
  /** A reply that is only an approval word: nothing changes; the bot asks, with buttons, send or revise. */
  askApproval(request: AskRequest): Promise<DecisionOutcome>;
  /** The ✏️ Edit button: the bot offers the current text and a ForceReply. */
  requestEdit(request: ReviewerAction): Promise<DecisionOutcome>;
  /** Takes back an approval within UNDO_WINDOW (👍 removed, ↩️ Undo, a reply `undo`). */
  undo(request: ReviewerAction): Promise<DecisionOutcome>;
  /** "🔓 Keep the removed items": the next text version with what redaction removed, bound like an ✏️ edit. */
  keepRemoved(request: ReviewerAction): Promise<DecisionOutcome>;
  /** `choose: "any"`: a tap on destination `destination`'s toggle turns it on or off, bound to what the post showed. */
  toggle(request: ReviewerAction & { readonly destination: number }): Promise<DecisionOutcome>;
  /** True when `messageId` is a review post (live or replaced), an edit prompt or a confirmation question of some draft. */
  knowsMessage(messageId: number): boolean;
  /** True when `messageId` is an edit prompt the bot sent (a reply to it is the new text). */
  isEditPrompt(messageId: number): boolean;
  /** Audits an action that does not count (a stranger, another chat, an anonymous admin). */
  refuseDecision(refusal: RefusedDecision, draft?: DraftRecord): Promise<void>;
  /** The draft a message belongs to (its live or a replaced review post, or an edit prompt). */
  draftOfMessage(messageId: number): DraftRecord | undefined;
  /** The current record of a draft. */
  get(draftId: string): DraftRecord | undefined;
}

/**
 * What a review chat call rejects with when the daemon stops before its turn came (or it was asked for
 * after the stop): nothing went wrong. A post or an edit the records say is owed is made at the next start.
 */
export class ReviewChatStopped extends Error {
  constructor() {
    super("the review chat was stopped before this call's turn came");
    this.name = "ReviewChatStopped";
  }
}
