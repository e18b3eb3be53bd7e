import type { DraftRecord } from "../drafts/record.js";

/** Where a review post went. */
export interface ReviewPost {
  readonly reviewChatId: string;
  readonly reviewMessageId: number;
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
  /** Posts the draft for review; waits for a slot. Rejects with an error the desk logs and retries. */
  post(draft: DraftRecord): Promise<ReviewPost>;
  /** Edits the review message to show the draft's status (buttons removed once it is final). */
  showStatus(draft: DraftRecord): Promise<void>;
  /** Tells the reviewers something about this draft, as a reply to its review message. */
  notify(draft: DraftRecord, text: string): Promise<void>;
}

/** Sends an approved draft through the guarded send path. */
export interface Sender {
  send(draftId: string): Promise<void>;
}
