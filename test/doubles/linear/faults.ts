/**
 * The Linear double's fault plan: per root field ("commentCreate", "issue",
 * …), a queue of what the next requests naming it meet instead of a plain
 * answer. See index.ts for what each fault does.
 */
import type { LinearAnswer } from "./answers.js";

/** One planned fault. */
export type Fault =
  | { readonly kind: "fail"; readonly answer: LinearAnswer }
  | { readonly kind: "lose" }
  | { readonly kind: "hold"; readonly arrive: () => void; readonly gate: Promise<void> };

/** A request held by `holdNext`. */
export interface Hold {
  /** Resolves when the held request has arrived. */
  readonly arrived: Promise<void>;
  /** Lets the held request execute and answer. */
  release(): void;
}

/** The faults planned for the next requests, by root field. */
export class FaultPlan {
  private readonly queues = new Map<string, Fault[]>();
  private readonly releases: (() => void)[] = [];

  /** Plans a fault for the next request naming `field`. */
  add(field: string, fault: Fault): void {
    this.queues.set(field, [...(this.queues.get(field) ?? []), fault]);
  }

  /** Plans a hold, returning its handle. */
  hold(field: string): Hold {
    let arrive = () => {};
    let release = () => {};
    const arrived = new Promise<void>((ok) => (arrive = ok));
    const gate = new Promise<void>((ok) => (release = ok));
    this.releases.push(release);
    this.add(field, { kind: "hold", arrive, gate });
    return { arrived, release };
  }

  /** The fault the request with these root fields meets (the first field with one planned), taken off its queue. */
  take(fields: readonly string[]): Fault | undefined {
    for (const f of fields) {
      const queue = this.queues.get(f);
      if (queue !== undefined && queue.length > 0) return queue.shift();
    }
    return undefined;
  }

  /** Releases every hold (at close). */
  releaseAll(): void {
    for (const release of this.releases) release();
  }
}
