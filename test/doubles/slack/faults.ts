/**
 * Faults a test plans for the next calls of a method, consumed in order:
 * an error answer, an HTTP status, a socket destroyed after the call was
 * handled (the lost answer) or before it, an answer held until released.
 */

/** What happens to one call instead of (or around) its normal answer. */
export type Fault =
  /** Answer `{"ok":false,"error":…}` without handling the call (status 200, or 429 for ratelimited). */
  | {
      readonly kind: "error";
      readonly error: string;
      readonly status: number;
      readonly retryAfter: number | null;
      /** More fields of the answer (missing_scope's `needed` and `provided`). */
      readonly extra: Readonly<Record<string, unknown>>;
    }
  /** Answer this HTTP status with a non-JSON body, unhandled (a proxy's or load balancer's error). */
  | { readonly kind: "http"; readonly status: number; readonly retryAfter: number | null }
  /** Handle the call (a message is stored), then destroy the socket without answering. */
  | { readonly kind: "drop" }
  /** Destroy the socket before handling anything. */
  | { readonly kind: "reset" }
  /** Handle the call, then answer only once `release` settles. */
  | { readonly kind: "hold"; readonly release: Promise<void>; readonly handled: () => void };

/** The planned faults, per method name (exact, as Slack's method names are). */
export class FaultPlan {
  private readonly planned = new Map<string, Fault[]>();

  /** Plans `fault` for the next `times` calls of `method`. */
  add(method: string, fault: Fault, times = 1): void {
    const list = this.planned.get(method) ?? [];
    for (let i = 0; i < Math.max(1, times); i += 1) list.push(fault);
    this.planned.set(method, list);
  }

  /** The fault due for this call of `method`, if any (taken). */
  take(method: string): Fault | undefined {
    return this.planned.get(method)?.shift();
  }

  /** Forgets every planned fault. */
  clear(): void {
    this.planned.clear();
  }
}
