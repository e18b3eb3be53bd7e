import type { Clock, TimerHandle } from "./clock.js";

/** The latest instant a Date can hold (ECMAScript: 8.64e15 ms after the epoch). */
export const LATEST_DATE_MS = 8.64e15;

/**
 * A clock that only moves when told to. Test mode's `advance` command and the
 * tests use it: `advance(ms)` fires every timer that falls due, in time order,
 * with `now()` set to each timer's due time as it fires.
 */
export class SimulatedClock implements Clock {
  private current: number;
  private nextId = 1;
  private readonly timers = new Map<number, { due: number; fn: () => void }>();

  constructor(startMs: number = Date.now()) {
    this.current = startMs;
  }

  now(): number {
    return this.current;
  }

  setTimeout(fn: () => void, ms: number): TimerHandle {
    const id = this.nextId++;
    this.timers.set(id, { due: this.current + Math.max(0, ms), fn });
    return { id };
  }

  clearTimeout(handle: TimerHandle): void {
    this.timers.delete(handle.id);
  }

  /**
   * Moves time forward by `ms`, firing due timers in order. Between timers it
   * awaits `settle` so that work a timer started (a store write) completes
   * before the next one fires. A move that is not a finite number, or that
   * would take the time past what a Date can hold, is a caller's bug: it
   * throws a RangeError before anything fires (callers bound what they read,
   * see readDuration).
   */
  async advance(ms: number, settle: () => Promise<void> = async () => {}): Promise<void> {
    const target = this.current + Math.max(0, ms);
    if (!Number.isFinite(ms) || target > LATEST_DATE_MS) {
      throw new RangeError(`cannot move a simulated clock by ${ms} ms: past the latest time a Date can hold`);
    }
    for (;;) {
      const due = this.nextDue(target);
      if (!due) break;
      this.timers.delete(due.id);
      this.current = Math.max(this.current, due.due);
      due.fn();
      await settle();
    }
    this.current = target;
  }

  private nextDue(limit: number): { id: number; due: number; fn: () => void } | undefined {
    let best: { id: number; due: number; fn: () => void } | undefined;
    for (const [id, t] of this.timers) {
      if (t.due > limit) continue;
      if (!best || t.due < best.due || (t.due === best.due && id < best.id)) best = { id, ...t };
    }
    return best;
  }
}
