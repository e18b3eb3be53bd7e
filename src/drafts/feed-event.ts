import type { Role } from "./record.js";
import type { SendAs, SenderKind } from "./sender.js";
import type { DraftStatus } from "./status.js";

/**
 * The shape of a status change, declared once: the desk announces it, the
 * events feed serves it (with more fields), test mode prints it. Types only,
 * so the desk and the HTTP API both depend on this file and not on each other.
 */
export interface Transition {
  readonly draft_id: string;
  /** The status before, or null when the draft was created by this transition. */
  readonly from: DraftStatus | null;
  readonly to: DraftStatus;
  /** The draft's record version after the transition. */
  readonly version: number;
  /** When it happened (ISO-8601 UTC). */
  readonly at: string;
}

/** What an event reports: a status change, an edit of the text, or an undone approval. */
export type FeedEventKind = "transition" | "edited" | "undone";

/**
 * One status transition as `GET /events` returns it. `seq` numbers every
 * transition once, in the order they became durable, so a caller that keeps
 * the last `seq` it saw never misses nor double-counts one.
 */
export interface FeedEvent extends Transition {
  /** Position in the feed: strictly increasing, starting at 1, never reused. */
  readonly seq: number;
  readonly kind?: FeedEventKind;
  readonly drafted_by_role?: Role;
  readonly originating_intent_id?: string;
  /** The reviewer's note, on the event that sent the draft back for revision. */
  readonly revision_note?: string | null;
  /** Who should hear of this event: the drafting role first, then a role the revision note addresses. */
  readonly notify_roles?: readonly Role[];
  readonly reason?: string | null;
  readonly sent_message_id?: number | null;
  /** Where the sent message can be found, on the event that sent it (contract v5). */
  readonly sent_ref?: Readonly<Record<string, string | number | null>>;
  /** Among several destinations sent to at once: the delivery (its index, from 1) this event concerns. */
  readonly delivery?: number;
  /** An `edited` event's text version after the edit. */
  readonly text_version?: number;
  /** An `edited` event's text before the edit. */
  readonly previous_text?: string | null;
  /** An `edited` event's text after the edit. */
  readonly draft_text?: string;
  /** What the payload asked for: `bot`, `owner` or `auto` (events from before v3: `bot`). */
  readonly send_as?: SendAs;
  /** Who it went out as, on the event that sent it; null before. */
  readonly sent_as?: SenderKind | null;
}

/** One page of the feed. */
export interface FeedPage {
  /** Events with `seq > after`, in increasing `seq` order, at most `limit` of them. */
  readonly events: readonly FeedEvent[];
  /**
   * The cursor to pass as `after` next time: the `seq` of the last event
   * returned; when none was returned, `after` itself, or the feed's real end
   * when `after` is past it (never a number the feed has not reached).
   */
  readonly lastSeq: number;
}

/**
 * Where `GET /events` reads transitions from. The API server depends on this
 * shape only, so the daemon can back it with the audit log and tests with an
 * array. Callers always `await` the page: the daemon reads it from disk.
 */
export interface EventFeed {
  /** The events after `seq` (exclusive), at most `limit` (1..1000). Must not throw for an `after` beyond the end. */
  after(seq: number, limit: number): FeedPage | Promise<FeedPage>;
}
