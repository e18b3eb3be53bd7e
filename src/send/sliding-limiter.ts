/**
 * Telegram's limits for sends to destinations, as the sliding windows Telegram
 * enforces: 1 message per second per chat, 20 per minute per group (a burst
 * of 20 at 1/s is allowed), 30 per second overall (a log, not a reservoir
 * refilled on a timer). A send counts in its windows from the moment its job
 * ENDED (while it runs it holds a slot): the request reaches Telegram
 * somewhere between the job's start and its end (after the kill-switch check
 * and the fsync'd send intent), so counting from the end can never put two
 * sends closer at Telegram than a window allows. A job that says its call
 * was answered (`answered`) counts from that moment instead: the request had
 * reached the service by then too, and the work after it (the outcome's
 * fsync) no longer delays the next send.
 *
 * Why not Bottleneck here: its minTime and reservoir count from a job's start
 * and refill fixed windows, and `npm run bench` measured 429s and a livelock
 * with them (0.09 and 0.66 of the permitted rate) where this reaches 0.97
 * with none. The review chat keeps its Bottleneck limiter.
 */
import type { Clock, TimerHandle } from "../clock/clock.js";
import { isGroupChat, type DestinationLimiter } from "./limiter.js";

/** One sliding window: at most `max` sends per `lengthMs`. */
class WindowLog {
  private readonly ended: number[] = [];
  private running = 0;
  constructor(
    private readonly max: number,
    private readonly lengthMs: number,
  ) {}

  /** When the next send may start (Clock ms); Infinity while only an end can free a slot. */
  readyAt(now: number): number {
    while (this.ended.length > 0 && this.ended[0]! <= now - this.lengthMs) this.ended.shift();
    const excess = this.ended.length + this.running - this.max + 1;
    if (excess <= 0) return now;
    return excess > this.ended.length ? Infinity : this.ended[excess - 1]! + this.lengthMs;
  }

  start(): void {
    this.running++;
  }

  /** The job's slot is free; it counts from `at` (its answer, or its end), kept in order among the others. */
  end(at: number): void {
    this.running--;
    let i = this.ended.length;
    while (i > 0 && this.ended[i - 1]! > at) i--;
    this.ended.splice(i, 0, at);
  }
}

interface Job {
  run(): void;
  drop(err: Error): void;
}

interface ChatQueue {
  readonly jobs: Job[];
  readonly logs: WindowLog[];
  running: boolean;
  pausedUntil: number;
}

/** Telegram's numbers, in one place. */
const PER_CHAT_PER_SECOND = 1;
const PER_GROUP_PER_MINUTE = 20;
const GLOBAL_PER_SECOND = 30;
/**
 * The longest a 429 on one chat holds every other chat back (ms). Telegram's answers to a bot over its overall
 * limit ask for seconds; a longer retry_after (599 s) is that chat's own flood limit, which the other chats do
 * not share: they wait this long at most, the chat itself the whole time.
 */
export const GLOBAL_PAUSE_CAP_MS = 10_000;

/** One sliding window as a limiter is told it: at most `max` sends per `lengthMs`. */
export interface WindowSpec {
  readonly max: number;
  readonly lengthMs: number;
}

/**
 * The destination limiter the daemon uses. Time comes from `clock` (tests move
 * a SimulatedClock). `scale` divides every window and pause, so benchmarks can
 * run Telegram's limits faster; default 1.
 */
export function slidingWindowLimiter(clock: Clock, scale = 1): DestinationLimiter {
  return keyedWindowLimiter(clock, {
    scale,
    global: { max: GLOBAL_PER_SECOND, lengthMs: 1000 },
    windowsFor: (chatId) => [
      { max: PER_CHAT_PER_SECOND, lengthMs: 1000 },
      ...(isGroupChat(chatId) ? [{ max: PER_GROUP_PER_MINUTE, lengthMs: 60_000 }] : []),
    ],
    pauseCapMs: GLOBAL_PAUSE_CAP_MS,
  });
}

/** How a keyed limiter is built: the windows of each key, one over all keys (or none), how far a pause holds the others. */
export interface KeyedLimits {
  readonly scale?: number;
  /** A window every send counts in, whatever its key; null: none. */
  readonly global: WindowSpec | null;
  /** The windows of one key (a chat, a Slack conversation, the mailbox). */
  readonly windowsFor: (key: string) => readonly WindowSpec[];
  /** How long a pause of one key holds every other key back at most (ms); 0: not at all. */
  readonly pauseCapMs: number;
}

/**
 * Sliding windows per key, for Telegram's destinations and for the other
 * channels' (Slack: one message a second per conversation; email: EMAIL_RATE
 * a minute), counted from each job's end as explained above.
 */
export function keyedWindowLimiter(clock: Clock, limits: KeyedLimits): DestinationLimiter {
  const windows = new KeyedWindows(clock, limits);
  return {
    schedule: (chatId, work) => windows.schedule(chatId, work),
    pause: (chatId, ms) => windows.pause(chatId, ms),
    stop: () => windows.stop(),
  };
}

/** The state of keyedWindowLimiter: a queue and windows per key, the global window, and the pause after a 429. */
class KeyedWindows {
  private readonly scale: number;
  /** The global window, if any: every key's send counts in it. */
  private readonly shared: WindowLog[];
  private readonly chats = new Map<string, ChatQueue>();
  private timer: TimerHandle | undefined;
  private stopped = false;
  /** After a 429 nothing is sent until then: its cause (this chat, a group, the bot overall) is not told. */
  private globalPausedUntil = 0;

  constructor(
    private readonly clock: Clock,
    private readonly limits: KeyedLimits,
  ) {
    this.scale = limits.scale ?? 1;
    this.shared = limits.global === null ? [] : [new WindowLog(limits.global.max, limits.global.lengthMs / this.scale)];
  }

  /** Runs `work` when its key has a free slot in every window (see DestinationLimiter.schedule). */
  schedule<T>(chatId: string, work: (answered?: () => void) => Promise<T>): Promise<T> {
    if (this.stopped) return Promise.reject(new Error("the limiter is stopped"));
    const q = this.queueFor(chatId);
    return new Promise<T>((resolve, reject) => {
      q.jobs.push({
        run: () => {
          let answeredAt: number | null = null;
          const answered = () => {
            answeredAt ??= this.clock.now();
          };
          void work(answered)
            .then(resolve, reject)
            .finally(() => this.finish(q, answeredAt));
        },
        drop: reject,
      });
      this.pump();
    });
  }

  /** Holds `chatId` back for `ms`, and every other key for at most limits.pauseCapMs. */
  pause(chatId: string, ms: number): void {
    // Every chat waits, not only the one that got the 429: a global 429 spread over many chats
    // would otherwise keep Telegram's block alive for ever (measured: a livelock). But only so long: a
    // retry_after past GLOBAL_PAUSE_CAP_MS is that chat's own flood limit, and the others go on (D7 of issue 32).
    const now = this.clock.now();
    const q = this.queueFor(chatId);
    q.pausedUntil = Math.max(q.pausedUntil, now + ms / this.scale);
    this.globalPausedUntil = Math.max(this.globalPausedUntil, now + Math.min(ms, this.limits.pauseCapMs) / this.scale);
    this.pump();
  }

  /** Refuses new work and drops the queued jobs (each rejects). */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) this.clock.clearTimeout(this.timer);
    for (const q of this.chats.values()) for (const job of q.jobs.splice(0)) job.drop(new Error("the limiter was stopped"));
    this.chats.clear();
  }

  /** When the key's next job may start: after its pause, the global pause, and a free slot in each of its windows. */
  private readyAt(q: ChatQueue, now: number): number {
    return Math.max(q.pausedUntil, this.globalPausedUntil, ...this.shared.map((l) => l.readyAt(now)), ...q.logs.map((l) => l.readyAt(now)));
  }

  /** Starts every job whose key is ready, round robin, and arms the timer for the next one. */
  private pump(): void {
    if (this.stopped) return;
    const now = this.clock.now();
    let next = Infinity;
    for (const [chatId, q] of this.chats) {
      if (q.running || q.jobs.length === 0) continue;
      const at = this.readyAt(q, now);
      if (at > now) {
        next = Math.min(next, at);
        continue;
      }
      for (const l of [...this.shared, ...q.logs]) l.start();
      q.running = true;
      // Round robin: the chat that just got a slot goes to the back of the line.
      this.chats.delete(chatId);
      this.chats.set(chatId, q);
      q.jobs.shift()!.run();
    }
    if (this.timer) this.clock.clearTimeout(this.timer);
    this.timer = next === Infinity ? undefined : this.clock.setTimeout(() => this.pump(), Math.max(0, Math.ceil(next - now)));
  }

  /** The key's queue and windows, made on its first job. */
  private queueFor(chatId: string): ChatQueue {
    let q = this.chats.get(chatId);
    if (!q) {
      const logs = this.limits.windowsFor(chatId).map((w) => new WindowLog(w.max, w.lengthMs / this.scale));
      this.chats.set(chatId, (q = { jobs: [], logs, running: false, pausedUntil: 0 }));
    }
    return q;
  }

  /** A job ended (or its answer came, `answeredAt`): its windows count it from then, and the next may start. */
  private finish(q: ChatQueue, answeredAt: number | null): void {
    const at = answeredAt ?? this.clock.now();
    for (const l of [...this.shared, ...q.logs]) l.end(at);
    q.running = false;
    this.pump();
  }
}
