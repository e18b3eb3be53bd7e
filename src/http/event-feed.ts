import type { DraftStatus } from "../drafts/status.js";

/**
 * One status transition as `GET /events` returns it. `seq` numbers every
 * transition once, in the order they became durable, so a caller that keeps
 * the last `seq` it saw never misses nor double-counts one.
 */
export interface FeedEvent {
  /** Position in the feed: strictly increasing, starting at 1, never reused. */
  readonly seq: number;
  readonly draft_id: string;
  /** The status before, or null when the draft was created by this transition. */
  readonly from: DraftStatus | null;
  readonly to: DraftStatus;
  /** The draft's record version after the transition. */
  readonly version: number;
  /** When it happened (ISO-8601 UTC). */
  readonly at: string;
}

/** One page of the feed. */
export interface FeedPage {
  /** Events with `seq > after`, in increasing `seq` order, at most `limit` of them. */
  readonly events: readonly FeedEvent[];
  /**
   * The cursor to pass as `after` next time: the `seq` of the last event
   * returned, or `after` itself when none was returned.
   */
  readonly lastSeq: number;
}

/**
 * Where `GET /events` reads transitions from. The API server depends on this
 * shape only, so the daemon can back it with the audit log and tests with an
 * array.
 */
export interface EventFeed {
  /** The events after `seq` (exclusive), at most `limit` (1..1000). Must not throw for an `after` beyond the end. */
  after(seq: number, limit: number): FeedPage;
}
