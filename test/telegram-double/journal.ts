import type { CallOutcome, CallRecord } from "./types.js";

/** A listener told about every call once its outcome is known. */
export type CallListener = (call: CallRecord) => void;

/**
 * Every call the double received, in arrival order, with its outcome; and the
 * number of 429s it answered (rate limits and injected ones alike).
 */
export class CallJournal {
  private readonly records: CallRecord[] = [];
  private readonly listeners = new Set<CallListener>();
  /** How many 429 answers were given. */
  tooManyRequests = 0;

  /** Records a call as it arrives; its outcome is `pending` until `finish`. */
  begin(method: string, params: Record<string, unknown>): CallRecord {
    const record: CallRecord = { method, params, at: Date.now(), outcome: { kind: "pending" } };
    this.records.push(record);
    return record;
  }

  /** Sets the outcome and tells the listeners. */
  finish(record: CallRecord, outcome: CallOutcome): void {
    record.outcome = outcome;
    if (outcome.kind === "error" && outcome.errorCode === 429) this.tooManyRequests += 1;
    for (const listener of this.listeners) listener(record);
  }

  /** The calls of `method` (case-insensitive), or all calls. */
  list(method?: string): readonly CallRecord[] {
    if (method === undefined) return [...this.records];
    const key = method.toLowerCase();
    return this.records.filter((r) => r.method.toLowerCase() === key);
  }

  /** Subscribes to finished calls; returns the unsubscribe function. */
  onCall(listener: CallListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * The first finished call of `method` that satisfies `predicate`, already
   * recorded or still to come; rejects after `timeoutMs` (default 5000).
   */
  waitFor(method: string, predicate: (call: CallRecord) => boolean = () => true, timeoutMs = 5000): Promise<CallRecord> {
    const key = method.toLowerCase();
    const matches = (r: CallRecord): boolean => r.method.toLowerCase() === key && r.outcome.kind !== "pending" && predicate(r);
    const past = this.records.find(matches);
    if (past) return Promise.resolve(past);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        off();
        reject(new Error(`telegram double: no matching ${method} call within ${timeoutMs} ms`));
      }, timeoutMs);
      const off = this.onCall((r) => {
        if (!matches(r)) return;
        clearTimeout(timer);
        off();
        resolve(r);
      });
    });
  }
}
