/**
 * The statuses a draft can be in. The contract's names (queued, pending,
 * deferred, sent, revise, expired) are kept; the send path adds its own.
 */
export const STATUSES = [
  /** Accepted, waiting for a free slot in the review chat's rate limit. */
  "queued",
  /** Posted for review, waiting for a decision. */
  "pending",
  /** A reviewer deferred it; `expires_at` moved by DEFER_FOR. */
  "deferred",
  /** A reviewer approved it; waiting for the send path (rate limit, kill switch). */
  "approved",
  /** The kill switch stopped an approved send. A reviewer may approve it again. */
  "halted",
  /** A send intent is on disk and the sendMessage call may be under way. */
  "sending",
  /** Telegram accepted the message. Final. */
  "sent",
  /** A reviewer asked for a revision. Final. */
  "revise",
  /** No decision before `expires_at`. Never sent. Final. */
  "expired",
  /** Telegram refused the message (400, 403, ...); the reason is kept. Final. */
  "failed",
  /** The send call may or may not have reached Telegram (crash, timeout). Never retried by itself. Final. */
  "outcome_unknown",
  /** Sent to several destinations (`choose: "any"`): some deliveries went, others did not (see `deliveries`). Final. */
  "partly_sent",
] as const;

/** One of `STATUSES`. */
export type DraftStatus = (typeof STATUSES)[number];

/** Statuses a draft never leaves. */
export const FINAL_STATUSES: ReadonlySet<DraftStatus> = new Set<DraftStatus>([
  "sent",
  "revise",
  "expired",
  "failed",
  "outcome_unknown",
  "partly_sent",
]);

/** Statuses in which a reviewer's decision is awaited (and counts). */
export const AWAITING_DECISION: ReadonlySet<DraftStatus> = new Set<DraftStatus>(["pending", "deferred", "halted"]);

/** True when `status` is final: no event changes it any more. */
export function isFinal(status: DraftStatus): boolean {
  return FINAL_STATUSES.has(status);
}
