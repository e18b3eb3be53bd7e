import type { Audience } from "../drafts/audience.js";
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
  /** Asks the extra tap a 👍 needs for a large audience ("Send to 1,234 members of …? [Yes, send]"). */
  askConfirmation(draft: DraftRecord): Promise<void>;
}

/** Sends an approved draft through the guarded send path. */
export interface Sender {
  send(draftId: string): Promise<void>;
}

/**
 * Who will read a destination, as Telegram tells it. Live mode asks the Bot
 * API (cached, refreshed at least daily); test mode knows nobody.
 */
export interface AudienceSource {
  /** The destination's audience, from the cache when fresh. Never rejects: a failure is an audience with a `problem`. */
  resolve(chatId: string): Promise<Audience>;
  /** Asks Telegram again now (the send call's check). Null when Telegram could not be asked (no answer): unknown, not changed. */
  fresh(chatId: string): Promise<Audience | null>;
}
