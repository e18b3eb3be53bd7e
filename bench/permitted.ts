/**
 * What Telegram's limits permit: the drain time of an ideal sender that knows
 * the rules exactly, has no latency and never gets a 429. The rules are the
 * ones the double enforces (test/telegram-double/rate-limit.ts), as sliding
 * windows: 1 message per second per chat, 20 per minute per group, 30 per
 * second overall. A message is admitted once the window's oldest counted send
 * is `length` old.
 */

/** One destination of a workload: a negative chat id is a group. */
export interface Destination {
  readonly chatId: number;
  readonly count: number;
}

interface Window {
  readonly max: number;
  readonly lengthMs: number;
}

const CHAT: Window = { max: 1, lengthMs: 1000 };
const GROUP: Window = { max: 20, lengthMs: 60_000 };
const GLOBAL: Window = { max: 30, lengthMs: 1000 };

/** A send log against one window: when may the next send go? */
class WindowLog {
  private readonly stamps: number[] = [];
  constructor(private readonly window: Window) {}
  readyAt(): number {
    const n = this.stamps.length;
    return n < this.window.max ? 0 : this.stamps[n - this.window.max]! + this.window.lengthMs;
  }
  record(t: number): void {
    this.stamps.push(t);
  }
}

interface Queue {
  left: number;
  readonly group: boolean;
  readonly logs: WindowLog[];
}

/**
 * The earliest time (Telegram ms from the start, first send at 0) at which the
 * last message of the workload can have been sent. Greedy with groups first,
 * then the longest queue first: the rate-bound destinations are never idle
 * while they may send, so this is what the limits permit.
 */
export function permittedSpanMs(destinations: readonly Destination[]): number {
  const global = new WindowLog(GLOBAL);
  const queues: Queue[] = destinations.map((d) => ({
    left: d.count,
    group: d.chatId < 0,
    logs: d.chatId < 0 ? [new WindowLog(CHAT), new WindowLog(GROUP)] : [new WindowLog(CHAT)],
  }));
  const readyAt = (q: Queue) => Math.max(...q.logs.map((l) => l.readyAt()));
  let remaining = queues.reduce((n, q) => n + q.left, 0);
  let t = 0;
  let last = 0;
  while (remaining > 0) {
    const ready = queues.filter((q) => q.left > 0 && readyAt(q) <= t).sort((a, b) => Number(b.group) - Number(a.group) || b.left - a.left);
    for (const q of ready) {
      if (global.readyAt() > t) break;
      global.record(t);
      for (const l of q.logs) l.record(t);
      q.left--;
      remaining--;
      last = t;
    }
    if (remaining === 0) break;
    const nextQueue = Math.min(...queues.filter((q) => q.left > 0).map(readyAt));
    t = Math.max(t + 1, nextQueue, global.readyAt());
  }
  return last;
}
