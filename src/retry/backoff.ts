/**
 * The one backoff policy: wait `initialMs` after the first failure, double
 * the wait after each further one, never wait longer than `maxMs`. Every
 * retry loop (review posts, sends, connecting, polling) names its numbers
 * here, so they can be read and compared in one place.
 */
export interface Backoff {
  /** The wait after the first failure. */
  readonly initialMs: number;
  /** The longest wait, however many failures. */
  readonly maxMs: number;
  /** How long failures in a row may go on before the loop gives up (absent: it never does). */
  readonly giveUpAfterMs?: number;
}

/** Posting a draft to the review chat: 5 s, doubling, at most 5 min (the draft stays queued meanwhile). */
export const REVIEW_POST_BACKOFF: Backoff = { initialMs: 5_000, maxMs: 300_000 };
/** A send Telegram never received (not_sent): 1 s, doubling, at most 30 s. */
export const SEND_BACKOFF: Backoff = { initialMs: 1_000, maxMs: 30_000 };
/**
 * Resolving a destination again at the send call when Telegram does not answer:
 * 2 s, doubling, at most 15 s; after a minute the draft is halted, not sent.
 */
export const AUDIENCE_CHECK_BACKOFF: Backoff = { initialMs: 2_000, maxMs: 15_000, giveUpAfterMs: 60_000 };
/** Reaching Telegram at start (getMe): 1 s, doubling, at most 60 s. */
export const CONNECT_BACKOFF: Backoff = { initialMs: 1_000, maxMs: 60_000 };
/** A failed getUpdates: 1 s, doubling, at most 30 s. */
export const POLL_BACKOFF: Backoff = { initialMs: 1_000, maxMs: 30_000 };

/** A push callback the receiver did not acknowledge: 1 s, doubling, at most 5 min (a receiver's Retry-After may ask for more, up to the cap). */
export const CALLBACK_BACKOFF: Backoff = { initialMs: 1_000, maxMs: 300_000 };

/** The backoffs of the calls to Telegram, passed together to the edges that retry them. */
export interface TelegramBackoffs {
  readonly reviewPost: Backoff;
  readonly send: Backoff;
  readonly audienceCheck: Backoff;
  readonly connect: Backoff;
  readonly poll: Backoff;
}

/** The backoffs named above, as Telegram needs them. */
export const TELEGRAM_BACKOFFS: TelegramBackoffs = {
  reviewPost: REVIEW_POST_BACKOFF,
  send: SEND_BACKOFF,
  audienceCheck: AUDIENCE_CHECK_BACKOFF,
  connect: CONNECT_BACKOFF,
  poll: POLL_BACKOFF,
};

/**
 * TELEGRAM_RATE_SCALE: every Telegram backoff divided by `scale` (at least 1 ms). A knob
 * for tests against a local double, which answers in microseconds; 1 leaves them as named.
 * A wait Telegram asks for itself (429 `retry_after`) is never shortened.
 */
export function scaledBackoffs(scale: number, base: TelegramBackoffs = TELEGRAM_BACKOFFS): TelegramBackoffs {
  const ms = (n: number) => Math.max(1, n / scale);
  const scaled = (b: Backoff): Backoff => ({
    initialMs: ms(b.initialMs),
    maxMs: ms(b.maxMs),
    ...(b.giveUpAfterMs === undefined ? {} : { giveUpAfterMs: ms(b.giveUpAfterMs) }),
  });
  return {
    reviewPost: scaled(base.reviewPost),
    send: scaled(base.send),
    audienceCheck: scaled(base.audienceCheck),
    connect: scaled(base.connect),
    poll: scaled(base.poll),
  };
}

/** The wait after the `failures`-th failure in a row (1 = the first). */
export function backoffMs(policy: Backoff, failures: number): number {
  const doublings = Math.min(Math.max(0, failures - 1), 40);
  return Math.min(policy.maxMs, policy.initialMs * 2 ** doublings);
}
