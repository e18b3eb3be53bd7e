import type { ReviewChat, ReviewPost } from "../desk/ports.js";
import type { DraftRecord } from "../drafts/record.js";

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

  async post(draft: DraftRecord): Promise<ReviewPost> {
    const reviewMessageId = this.takeId();
    this.log.debug({ draft_id: draft.draft_id, review_message_id: reviewMessageId }, "test mode: review post");
    return { reviewChatId: this.reviewChatId, reviewMessageId };
  }

  /** Shown at once (the desk takes its own clock's now as the moment, see DeskEffects). */
  async showStatus(draft: DraftRecord): Promise<undefined> {
    this.log.debug({ draft_id: draft.draft_id, status: draft.status }, "test mode: review message shows status");
    return undefined;
  }

  async notify(draft: DraftRecord, text: string): Promise<void> {
    this.log.debug({ draft_id: draft.draft_id, text }, "test mode: notice to reviewers");
  }

  async askConfirmation(draft: DraftRecord): Promise<number> {
    const messageId = this.takeId();
    this.log.debug({ draft_id: draft.draft_id, message_id: messageId }, "test mode: confirmation asked for a large audience");
    return messageId;
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

  async answer(text: string, replyTo: number | null): Promise<void> {
    this.log.debug({ text, reply_to: replyTo }, "test mode: answer to the reviewer");
  }

  async askApproval(draft: DraftRecord, note: string, replyTo: number): Promise<number> {
    const messageId = this.takeId();
    this.log.debug({ draft_id: draft.draft_id, note, reply_to: replyTo, message_id: messageId }, "test mode: asked what a reply meant");
    return messageId;
  }

  async remind(draft: DraftRecord): Promise<string> {
    const text = `⏰ Reminder: draft ${draft.draft_id} expires at ${draft.expires_at}.`;
    this.log.debug({ draft_id: draft.draft_id, text }, "test mode: reminder");
    return text;
  }

  async clearButtons(chatId: string, messageId: number): Promise<void> {
    this.log.debug({ chat_id: chatId, message_id: messageId }, "test mode: a used question loses its buttons");
  }

  /** A fresh message id, shared by review posts and simulated sends. */
  takeId(): number {
    return this.nextMessageId++;
  }
}
