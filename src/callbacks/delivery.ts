import type { Clock, TimerHandle } from "../clock/clock.js";
import type { EventFeed, FeedEvent } from "../drafts/feed-event.js";
import { backoffMs, CALLBACK_BACKOFF, type Backoff } from "../retry/backoff.js";
import type { CallbackCursorFile } from "./cursor-file.js";
import { postCallback, type PostOutcome } from "./post-event.js";
import { SIGNATURE_HEADER, signCallback, TIMESTAMP_HEADER } from "./signature.js";

/** The callback delivery as `/status` shows it. */
export interface CallbackStatus {
  /** Where events go (scheme, host and path; no query or credentials). */
  readonly url: string;
  /** The seq of the last event the receiver acknowledged. */
  readonly acked_seq: number;
  /** Events in the feed not acknowledged yet. */
  readonly backlog: number;
  /** Events acknowledged since the daemon started. */
  readonly delivered: number;
  /** Failed attempts since the daemon started. */
  readonly failed_attempts: number;
  /** The last failure, or null when the last attempt succeeded. */
  readonly last_error: string | null;
  readonly last_error_at: string | null;
  /** When the event that failed is tried again (ISO-8601 UTC), or null. */
  readonly next_attempt_at: string | null;
  /** Something the operator should know about the delivery (the cursor was ahead of the feed and was clamped), or null. */
  readonly warning?: string | null;
}

/** The logger shape delivery writes to (pino's). */
export interface CallbackLog {
  debug(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/** What the delivery loop is built from. */
export interface CallbackDeliveryOptions {
  /** CALLBACK_URL. */
  readonly url: string;
  /** CALLBACK_SECRET: the HMAC key of the signature. */
  readonly secret: string;
  readonly feed: EventFeed;
  readonly cursor: CallbackCursorFile;
  readonly clock: Clock;
  readonly log: CallbackLog;
  /** One request may take this long before it counts as failed; default 10000. */
  readonly timeoutMs?: number;
  /** The wait between attempts at one event; default CALLBACK_BACKOFF (1 s doubling, at most 5 min, also the most a Retry-After is honoured). */
  readonly backoff?: Backoff;
}

/** Events read from the feed at a time. */
const PAGE = 100;

/**
 * Pushes every event of the feed to CALLBACK_URL, one POST per event, in seq
 * order, at least once. It runs on its own loop: the desk only wakes it (a
 * synchronous call that never waits), so a slow, failing or hostile receiver
 * never delays a review post, a decision or a send. A 2xx acknowledges the
 * event and its seq is written to the cursor file before the next one goes;
 * a failure waits (1 s, doubling, at most 5 min, on the injected clock) and
 * the same event is tried again. After a restart delivery resumes after the
 * last acknowledged event.
 */
export class CallbackDelivery {
  private acked = 0;
  private delivered = 0;
  private failedAttempts = 0;
  private failures = 0;
  private lastError: { text: string; at: number } | null = null;
  private nextAttemptAt: number | null = null;
  private dirty = true;
  private closed = false;
  private wakeUp: (() => void) | null = null;
  private retryTimer: TimerHandle | null = null;
  private readonly abort = new AbortController();
  private loop: Promise<void> = Promise.resolve();
  private readonly url: URL;
  /** Set when the cursor file was ahead of the feed at start (see clampToFeed). */
  private clampWarning: string | null = null;

  private constructor(private readonly options: CallbackDeliveryOptions) {
    this.url = new URL(options.url);
  }

  /** The seq of the last event the receiver acknowledged (cheap; `status()` also counts the backlog). */
  get ackedSeq(): number {
    return this.acked;
  }

  /** Reads the cursor and starts delivering. */
  static async start(options: CallbackDeliveryOptions): Promise<CallbackDelivery> {
    const delivery = new CallbackDelivery(options);
    delivery.acked = await options.cursor.read();
    await delivery.clampToFeed();
    delivery.loop = delivery.run().catch((err: unknown) => options.log.error({ err }, "callback delivery stopped by an unexpected error"));
    return delivery;
  }

  /** Why the delivery needs the operator's eye (the cursor was clamped at start), or null. */
  get warning(): string | null {
    return this.clampWarning;
  }

  /**
   * A cursor past the feed's end (the audit log replaced by an older copy, a
   * cursor file from elsewhere) would skip every event until the feed caught
   * up with it, in silence: it is clamped to the feed's real end, written
   * back, and a warning stays in the log, `/status` and `/healthz`.
   */
  private async clampToFeed(): Promise<void> {
    const { feed, cursor, log } = this.options;
    const page = await feed.after(this.acked, 1);
    if (page.events.length > 0 || page.lastSeq >= this.acked) return;
    const from = this.acked;
    this.acked = page.lastSeq;
    this.clampWarning =
      `${cursor.path} said events up to #${from} were acknowledged, but the events feed ends at #${page.lastSeq} ` +
      `(was the audit log replaced by an older copy, or the cursor file copied from elsewhere?): delivery resumes after #${page.lastSeq}, ` +
      "so the receiver may get seq numbers it saw before, for other events";
    log.warn(
      { path: cursor.path, acked_seq: from, feed_last_seq: page.lastSeq },
      `the callback cursor was ahead of the events feed; ${this.clampWarning}`,
    );
    await cursor
      .write(page.lastSeq)
      .catch((err: unknown) => log.error({ err }, "could not write the clamped callback cursor; it is clamped in memory"));
  }

  /** Something new may be in the feed. Never waits; a retry that is waiting keeps its time. */
  wake(): void {
    this.dirty = true;
    if (this.retryTimer === null) this.wakeUp?.();
  }

  /** The delivery's state for `/status`; counts the backlog from the feed. */
  async status(): Promise<CallbackStatus> {
    let backlog = 0;
    for (let cursor = this.acked; backlog < 1_000_000; ) {
      const page = await this.options.feed.after(cursor, 1000);
      backlog += page.events.length;
      if (page.events.length < 1000) break;
      cursor = page.lastSeq;
    }
    const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
    return {
      url: `${this.url.protocol}//${this.url.host}${this.url.pathname}`,
      acked_seq: this.acked,
      backlog,
      delivered: this.delivered,
      failed_attempts: this.failedAttempts,
      last_error: this.lastError?.text ?? null,
      last_error_at: iso(this.lastError?.at ?? null),
      next_attempt_at: iso(this.nextAttemptAt),
      warning: this.clampWarning,
    };
  }

  /** Stops: cuts a request under way (its event is delivered again at the next start) and waits for the loop. */
  async close(): Promise<void> {
    this.closed = true;
    this.abort.abort();
    if (this.retryTimer !== null) this.options.clock.clearTimeout(this.retryTimer);
    this.retryTimer = null;
    this.wakeUp?.();
    await this.loop;
  }

  private async run(): Promise<void> {
    while (!this.closed) {
      if (!this.dirty) await new Promise<void>((resolve) => (this.wakeUp = resolve));
      this.wakeUp = null;
      if (this.closed) return;
      this.dirty = false;
      if (!(await this.deliverPage())) {
        this.dirty = true;
        await this.waitBeforeRetry();
      }
    }
  }

  /** Delivers the next page of events in order; false at the first that failed (or a feed that could not be read). */
  private async deliverPage(): Promise<boolean> {
    let events: readonly FeedEvent[];
    try {
      events = (await this.options.feed.after(this.acked, PAGE)).events;
    } catch (err) {
      this.options.log.error({ err }, "callback delivery could not read the events feed; trying again later");
      this.noteFailure(`could not read the events feed: ${(err as Error).message}`);
      return false;
    }
    if (events.length === PAGE) this.dirty = true;
    for (const event of events) {
      if (this.closed || !(await this.deliver(event))) return false;
    }
    return true;
  }

  /** POSTs one event; on a 2xx records it as acknowledged. True when acknowledged. */
  private async deliver(event: FeedEvent): Promise<boolean> {
    const { clock, secret, timeoutMs = 10_000 } = this.options;
    const body = JSON.stringify(event);
    const ts = Math.floor(clock.now() / 1000);
    const outcome = await postCallback({
      url: this.url,
      body,
      headers: {
        [TIMESTAMP_HEADER]: String(ts),
        [SIGNATURE_HEADER]: signCallback(secret, ts, body),
        "User-Agent": "draft-review-callbacks",
      },
      timeoutMs,
      clock,
      signal: this.abort.signal,
    });
    if (this.closed) return false;
    if (!outcome.ok) return this.failed(event, outcome);
    this.acked = event.seq;
    this.delivered++;
    this.failures = 0;
    this.lastError = null;
    this.nextAttemptAt = null;
    await this.options.cursor.write(event.seq).catch((err: unknown) => {
      // Kept in memory: delivery goes on, and a restart before the next good write sends this event again.
      this.options.log.error({ err, seq: event.seq }, "could not write the callback cursor; after a restart this event is delivered again");
    });
    this.options.log.debug({ seq: event.seq, draft_id: event.draft_id }, "callback delivered");
    return true;
  }

  private failed(event: FeedEvent, outcome: Extract<PostOutcome, { ok: false }>): false {
    const waitMs = this.noteFailure(outcome.error, outcome.retryAfterSeconds);
    this.options.log.warn(
      { seq: event.seq, error: outcome.error, failures: this.failures, retry_in_ms: waitMs },
      "the callback receiver did not acknowledge an event; trying it again later (CALLBACK_URL)",
    );
    return false;
  }

  /** Counts a failure and sets when to try again: 1 s doubling up to the cap, or longer if the receiver asked. Returns the wait. */
  private noteFailure(error: string, retryAfterSeconds?: number): number {
    const { clock, backoff = CALLBACK_BACKOFF } = this.options;
    this.failures++;
    this.failedAttempts++;
    const asked = retryAfterSeconds === undefined ? 0 : Math.min(backoff.maxMs, retryAfterSeconds * 1000);
    const waitMs = Math.max(backoffMs(backoff, this.failures), asked);
    this.lastError = { text: error, at: clock.now() };
    this.nextAttemptAt = clock.now() + waitMs;
    return waitMs;
  }

  private waitBeforeRetry(): Promise<void> {
    const waitMs = Math.max(0, (this.nextAttemptAt ?? 0) - this.options.clock.now());
    return new Promise<void>((resolve) => {
      this.wakeUp = resolve;
      this.retryTimer = this.options.clock.setTimeout(() => {
        this.retryTimer = null;
        resolve();
      }, waitMs);
    });
  }
}
