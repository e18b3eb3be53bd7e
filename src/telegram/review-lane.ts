import { AsyncResource } from "node:async_hooks";
import type { Clock, TimerHandle } from "../clock/clock.js";
import { ReviewChatStopped } from "../desk/ports.js";

/** The review chat's own budget: Telegram allows a group about 20 messages a minute, a chat about 1 a second. */
export interface ReviewChatLimits {
  /** The least time between two messages (or edits), counted from the end of the one before. */
  readonly gapMs: number;
  /** At most this many messages in any 60 gaps (a minute at gapMs = 1000). */
  readonly perMinute: number;
  /** Of `perMinute`, this many are kept for answers and edits: review posts never take them. */
  readonly reservedForAnswers: number;
}

/** A group or supergroup: 1 message per second, 20 per minute, 3 of them kept for the owner's answers. */
export const REVIEW_CHAT_LIMITS: ReviewChatLimits = { gapMs: 1000, perMinute: 20, reservedForAnswers: 3 };

/** A private chat with the bot: 1 message per second and no per-minute cap (Telegram's limit there). */
export const PRIVATE_REVIEW_CHAT_LIMITS: ReviewChatLimits = { gapMs: 1000, perMinute: Number.POSITIVE_INFINITY, reservedForAnswers: 0 };

/**
 * The review chat's pace by its id: a private chat (a positive id) at one
 * message a second, a group or supergroup (negative, or an @name) at 20 a
 * minute. `scale` (TELEGRAM_RATE_SCALE) runs the clock of the limits faster
 * against a local double; 1 in real use.
 */
export function reviewChatLimits(chatId: string, scale = 1): ReviewChatLimits {
  const base = /^[1-9]\d*$/.test(chatId) ? PRIVATE_REVIEW_CHAT_LIMITS : REVIEW_CHAT_LIMITS;
  return { ...base, gapMs: base.gapMs / scale };
}

/**
 * The lanes of the review chat, first served first (contract v4: decisions are
 * reported before new posts, and an offer of ↩️ Undo ends before one starts):
 * - `end`: a send whose undo window is over, with the edit that reports it in
 *   the same turn, and every status edit that ends an offer of Undo or reports
 *   a decision (sent, halted, undone, failed, unknown, expired, deferred);
 * - `answer`: the owner's answers and confirmations;
 * - `edit`: status edits that start an offer of Undo ("Sending at … ↩️ Undo");
 * - `notice`: notices about drafts; `post`: new review posts.
 * A queued post never delays an answer by more than the message in flight.
 */
export const LANE = { end: 0, answer: 1, edit: 2, notice: 3, post: 4 } as const;
/** One of `LANE`'s values. */
export type Lane = (typeof LANE)[keyof typeof LANE];

/** Waits for the next message's turn inside a job; each API call that posts or edits waits for one. */
export type Turn = () => Promise<void>;

interface Job {
  readonly lane: Lane;
  run(): void;
  drop(err: Error): void;
}

/**
 * Paces every message and edit of the review chat on the injected clock: a
 * sliding one-minute window and a gap after each call, with priority lanes.
 * A job runs alone (so a header and its draft are never split by another
 * post) and takes a turn before each call it makes.
 */
export class ReviewLane {
  /** Waiting jobs, one FIFO per lane (index = lane): the next job is the head of the first non-empty one. */
  private readonly lanes: Job[][] = Object.values(LANE).map(() => []);
  /** Jobs waiting, all lanes. */
  private waitingJobs = 0;
  /** When each message of the last minute started. */
  private readonly starts: number[] = [];
  private lastEnd = -Infinity;
  private pausedUntil = -Infinity;
  private running = false;
  /** The lane of the running job, while one runs. */
  private runningLane: Lane | null = null;
  /** True once the running job took a turn (made a call): only then does its end start the gap. */
  private runningCalled = false;
  private claimed = 0;
  private timer: TimerHandle | undefined;
  private readonly waits = new Set<{ handle: TimerHandle; reject: (err: Error) => void }>();
  private idleWaiters: Array<() => void> = [];
  /** Jobs waiting on the clock inside `wait` (no call in flight). */
  private waiting = 0;
  private stopped = false;

  constructor(
    private readonly clock: Clock,
    private readonly limits: ReviewChatLimits = REVIEW_CHAT_LIMITS,
  ) {}

  /**
   * True when a post made now would go out at once, and then that slot is
   * taken (the next post's first turn uses it). Synchronous, so two callers
   * cannot both take the last slot.
   */
  claimFreeSlot(): boolean {
    if (this.running || this.waitingJobs > 0 || this.stopped) return false;
    const now = this.clock.now();
    if (this.readyAt(LANE.post, now) > now) return false;
    this.starts.push(now);
    this.claimed++;
    return true;
  }

  /**
   * Runs `work` alone in the review chat, in its lane's order; `turn` before
   * each call. It runs in its caller's async context (whichever job's end or
   * timer starts it), so its calls know which Telegram update they answer.
   */
  run<T>(lane: Lane, work: (turn: Turn) => Promise<T>): Promise<T> {
    if (this.stopped) return Promise.reject(new ReviewChatStopped());
    return new Promise<T>((resolve, reject) => {
      this.waitingJobs++;
      this.lanes[lane]!.push({
        lane,
        drop: reject,
        run: AsyncResource.bind(() => {
          const turn = this.turnFor(lane);
          void work(turn)
            .then(resolve, reject)
            .finally(() => this.finish());
        }),
      });
      this.pump();
    });
  }

  /**
   * Waits inside a job until `work` settles or `ms` pass on the clock,
   * whichever is first; true when it settled. Never rejects.
   */
  settlesWithin(work: Promise<unknown>, ms: number): Promise<boolean> {
    return new Promise<boolean>((resolve) => {
      const handle = this.clock.setTimeout(() => resolve(false), ms);
      const settled = () => {
        this.clock.clearTimeout(handle);
        resolve(true);
      };
      work.then(settled, settled);
    });
  }

  /** Holds every message back for `ms` (Telegram's retry_after). */
  pause(ms: number): void {
    this.pausedUntil = Math.max(this.pausedUntil, this.clock.now() + ms);
  }

  /** Waits `ms` on the clock inside a job; stop() ends the wait with an error. */
  wait(ms: number): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.waiting++;
      const entry = {
        handle: this.clock.setTimeout(() => {
          this.waits.delete(entry);
          this.waiting--;
          resolve();
        }, ms),
        reject: (err: Error) => {
          this.waiting--;
          reject(err);
        },
      };
      this.waits.add(entry);
      this.wakeIdle();
    });
  }

  /**
   * Resolves when no call is in flight: no job runs, or the running one waits
   * on the clock. For tests that move a simulated clock.
   */
  whenIdle(): Promise<void> {
    if (this.isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private isIdle(): boolean {
    return !this.running || this.waiting > 0;
  }

  private wakeIdle(): void {
    if (this.isIdle()) for (const w of this.idleWaiters.splice(0)) w();
  }

  /**
   * True when a job of one of `lanes` waits for its turn, or is the running one (a 429's retry_after, or its
   * next call, may still hold it back): a stop's drain of answers waits for it too.
   */
  hasWaiting(lanes: readonly Lane[]): boolean {
    if (this.running && this.runningLane !== null && lanes.includes(this.runningLane)) return true;
    return lanes.some((lane) => this.lanes[lane]!.length > 0);
  }

  /** Waits `ms` on the clock, outside any job. */
  pauseFor(ms: number): Promise<void> {
    return new Promise((resolve) => this.clock.setTimeout(resolve, ms));
  }

  /** How many jobs wait (not counting the one running). */
  get queued(): number {
    return this.waitingJobs;
  }

  /**
   * True when the lane has work and all of it waits on the clock (the running
   * job for its turn, or queued jobs for the next slot): only moving a
   * simulated clock lets it go on. For the explorer, which moves one.
   */
  get waitsOnClock(): boolean {
    return this.running ? this.waiting > 0 : this.waitingJobs > 0 && this.timer !== undefined;
  }

  /** Drops waiting jobs (they reject) and ends waits; the running call finishes. */
  stop(): void {
    this.stopped = true;
    if (this.timer) this.clock.clearTimeout(this.timer);
    this.waitingJobs = 0;
    for (const queue of this.lanes) for (const job of queue.splice(0)) job.drop(new ReviewChatStopped());
    for (const w of this.waits) {
      this.clock.clearTimeout(w.handle);
      w.reject(new ReviewChatStopped());
    }
    this.waits.clear();
  }

  /** When a message of `lane` may start: the gap, the pause, and the minute's window (posts leave the reserve free). */
  private readyAt(lane: Lane, now: number): number {
    const { gapMs, perMinute, reservedForAnswers } = this.limits;
    const windowMs = 60 * gapMs;
    while (this.starts.length > 0 && this.starts[0]! <= now - windowMs) this.starts.shift();
    const cap = lane === LANE.post ? perMinute - reservedForAnswers : perMinute;
    const windowAt = this.starts.length < cap ? now : this.starts[this.starts.length - cap]! + windowMs;
    const lastStart = this.starts.at(-1) ?? -Infinity;
    return Math.max(now, this.lastEnd + gapMs, lastStart + gapMs, this.pausedUntil, windowAt);
  }

  private turnFor(lane: Lane): Turn {
    return async () => {
      this.runningCalled = true;
      if (lane === LANE.post && this.claimed > 0) {
        this.claimed--;
        return;
      }
      for (;;) {
        const now = this.clock.now();
        const at = this.readyAt(lane, now);
        if (at <= now) break;
        await this.wait(at - now);
      }
      this.starts.push(this.clock.now());
    };
  }

  /** The queue whose head runs next: the lowest lane with a job (each lane is oldest first). */
  private nextQueue(): Job[] | undefined {
    return this.lanes.find((queue) => queue.length > 0);
  }

  /**
   * Starts the best job once its first call may go. Until then nothing is
   * started, so an answer that arrives meanwhile overtakes a waiting post.
   */
  private pump(): void {
    if (this.timer) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
    const queue = this.running || this.stopped ? undefined : this.nextQueue();
    if (queue === undefined) return;
    const job = queue[0]!;
    const now = this.clock.now();
    const ready = job.lane === LANE.post && this.claimed > 0 ? now : this.readyAt(job.lane, now);
    if (ready > now) {
      this.timer = this.clock.setTimeout(() => this.pump(), ready - now);
      return;
    }
    queue.shift();
    this.waitingJobs--;
    this.running = true;
    this.runningLane = job.lane;
    this.runningCalled = false;
    job.run();
  }

  private finish(): void {
    // A job that made no call (its edit was shown already) leaves the gap where it was.
    if (this.runningCalled) this.lastEnd = this.clock.now();
    this.running = false;
    this.runningLane = null;
    this.wakeIdle();
    this.pump();
  }
}

/** A turn already taken: the first call uses it, later ones (a 429's retry) wait for their own. */
export function usedOnce(turn: Turn): Turn {
  let used = false;
  return async () => {
    if (used) return turn();
    used = true;
  };
}
