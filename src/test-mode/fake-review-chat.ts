import type { Asked, ReviewChat, ReviewPost } from "../desk/ports.js";
import type { SurfaceState } from "../audit/audit-schema.js";
import type { Decision, DraftRecord } from "../drafts/record.js";
import type { ConfirmNeed } from "../drafts/decide.js";
import { confirmMessage } from "../telegram/review-buttons.js";

/**
 * The review chat of test mode: no network. Message ids continue after the
 * highest one already stored or recorded as a decision surface (live drafts'
 * too), so a second session on the same files never reuses an id, and no
 * made-up surface takes the place of a live one in the audit log.
 */
export class FakeReviewChat implements ReviewChat {
  private nextMessageId: number;

  constructor(
    private readonly reviewChatId: string,
    existing: Iterable<DraftRecord>,
    private readonly log: { debug(obj: object, msg: string): void },
    surfaces: Iterable<{ readonly message_id: number }> = [],
  ) {
    let max = 0;
    for (const d of existing) max = Math.max(max, d.review_message_id ?? 0, d.sent_message_id ?? 0, ...d.superseded_posts);
    for (const s of surfaces) max = Math.max(max, s.message_id);
    this.nextMessageId = max + 1;
  }

  claimFreeSlot(): boolean {
    return true;
  }

  async post(draft: DraftRecord, onCall?: () => void): Promise<ReviewPost> {
    onCall?.();
    const reviewMessageId = this.takeId();
    this.log.debug({ draft_id: draft.draft_id, review_message_id: reviewMessageId }, "test mode: review post");
    return { reviewChatId: this.reviewChatId, reviewMessageId };
  }

  /** Shown at once (the desk takes its own clock's now as the moment, see DeskEffects). */
  async showStatus(draft: DraftRecord): Promise<undefined> {
    this.log.debug({ draft_id: draft.draft_id, status: draft.status }, "test mode: review message shows status");
    return undefined;
  }

  async notify(draft: DraftRecord, text: string): Promise<number> {
    this.log.debug({ draft_id: draft.draft_id, text }, "test mode: notice to reviewers");
    return this.takeId();
  }

  async askConfirmation(draft: DraftRecord, needs: readonly ConfirmNeed[] = []): Promise<Asked> {
    const messageId = this.takeId();
    // The words a live review chat would show (each destination that asks the tap, among several).
    const { question } = confirmMessage(draft, needs);
    this.log.debug({ draft_id: draft.draft_id, message_id: messageId, question }, "test mode: confirmation asked");
    return { messageId, question };
  }

  async offerAsBot(draft: DraftRecord, text: string): Promise<number> {
    const messageId = this.takeId();
    this.log.debug({ draft_id: draft.draft_id, message_id: messageId, text }, "test mode: 🤖 send as the bot instead offered");
    return messageId;
  }

  async markSuperseded(draft: DraftRecord, reviewMessageId: number): Promise<void> {
    this.log.debug({ draft_id: draft.draft_id, review_message_id: reviewMessageId }, "test mode: review post replaced");
  }

  async promptEdit(draft: DraftRecord): Promise<number> {
    const messageId = this.takeId();
    this.log.debug({ draft_id: draft.draft_id, message_id: messageId }, "test mode: edit prompt");
    return messageId;
  }

  async answer(text: string, replyTo: number | null): Promise<number> {
    this.log.debug({ text, reply_to: replyTo }, "test mode: answer to the reviewer");
    return this.takeId();
  }

  async askApproval(draft: DraftRecord, note: string, replyTo: number): Promise<Asked> {
    const messageId = this.takeId();
    this.log.debug({ draft_id: draft.draft_id, note, reply_to: replyTo, message_id: messageId }, "test mode: asked what a reply meant");
    return { messageId, question: `You replied “${note}”.` };
  }

  async remind(draft: DraftRecord): Promise<{ text: string; messageId: number }> {
    const text = `⏰ Reminder: draft ${draft.draft_id} expires at ${draft.expires_at}.`;
    this.log.debug({ draft_id: draft.draft_id, text }, "test mode: reminder");
    return { text, messageId: this.takeId() };
  }

  async reopenReminder(surface: SurfaceState, draft: DraftRecord): Promise<void> {
    this.log.debug({ message_id: surface.message_id, draft_id: draft.draft_id }, "test mode: a reminder shows its buttons again");
  }

  async close(surface: SurfaceState, draft: DraftRecord, chose: Decision | null): Promise<void> {
    const what = { message_id: surface.message_id, asks: surface.asks, draft_id: draft.draft_id, status: draft.status, chose };
    this.log.debug(what, "test mode: a question or reminder says what became of it");
  }

  /** A fresh message id, shared by review posts and simulated sends. */
  takeId(): number {
    return this.nextMessageId++;
  }
}
