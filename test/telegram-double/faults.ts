import { ApiError } from "./errors.js";
import type { FailSpec } from "./types.js";

/** What happens to a call instead of (or around) its normal handling. */
export type Disruption =
  | { kind: "fail"; error: ApiError; until?: () => Promise<unknown> }
  /** Handle the call, then destroy the socket without answering. */
  | { kind: "drop" }
  /** Destroy the socket before doing anything. */
  | { kind: "reset" }
  /** Handle the call, then wait `ms` before answering (the client may give up, or die, meanwhile). */
  | { kind: "late"; ms: number }
  /** Handle the call, then answer once `until` (given the call's result) settles: the test acts between the two. */
  | { kind: "held"; until: (result: unknown) => Promise<unknown> };

/** The faults due for one call: an optional delay, then an optional disruption. */
export interface DueFaults {
  delayMs: number;
  disruption: Disruption | undefined;
}

interface Planned<T> {
  value: T;
  times: number;
}

/**
 * Faults the test asked for, per method (case-insensitive, like Telegram's
 * method names), consumed one call at a time in the order they were asked.
 */
export class FaultPlan {
  private readonly delays = new Map<string, Planned<number>[]>();
  private readonly disruptions = new Map<string, Planned<Disruption>[]>();

  /** The next `times` calls of `method` fail with `spec`. */
  failNext(method: string, spec: FailSpec): void {
    const error = new ApiError(spec.error_code, spec.description, spec.retry_after);
    this.push(this.disruptions, method, { kind: "fail", error, ...(spec.until ? { until: spec.until } : {}) }, spec.times);
  }

  /** The next `times` calls of `method` wait `ms` before being handled. */
  delayNext(method: string, ms: number, times?: number): void {
    this.push(this.delays, method, ms, times);
  }

  /** The next `times` calls of `method` are handled, then answered by a destroyed socket. */
  dropResponseAfterAccept(method: string, times?: number): void {
    this.push(this.disruptions, method, { kind: "drop" }, times);
  }

  /** The next `times` calls of `method` are handled at once and answered `ms` later. */
  answerLate(method: string, ms: number, times?: number): void {
    this.push(this.disruptions, method, { kind: "late", ms }, times);
  }

  /** The next call of `method` is handled at once and answered when `until(result)` settles. */
  answerWhen(method: string, until: (result: unknown) => Promise<unknown>): void {
    this.push(this.disruptions, method, { kind: "held", until }, 1);
  }

  /** The next `times` calls of `method` are answered by a destroyed socket, unhandled. */
  resetConnection(method: string, times?: number): void {
    this.push(this.disruptions, method, { kind: "reset" }, times);
  }

  /** Forgets every planned fault. */
  clear(): void {
    this.delays.clear();
    this.disruptions.clear();
  }

  /** Takes the faults due for one call of `method`. */
  take(method: string): DueFaults {
    return { delayMs: this.shift(this.delays, method) ?? 0, disruption: this.shift(this.disruptions, method) };
  }

  private push<T>(map: Map<string, Planned<T>[]>, method: string, value: T, times = 1): void {
    const key = method.toLowerCase();
    const list = map.get(key) ?? [];
    list.push({ value, times: Math.max(1, times) });
    map.set(key, list);
  }

  private shift<T>(map: Map<string, Planned<T>[]>, method: string): T | undefined {
    const list = map.get(method.toLowerCase());
    const head = list?.[0];
    if (!list || !head) return undefined;
    head.times -= 1;
    if (head.times === 0) list.shift();
    return head.value;
  }
}
