import type { Effect } from "../drafts/effects.js";
import type { DraftEvent } from "../drafts/events.js";
import type { TransitionResult } from "../drafts/machine.js";
import type { DraftRecord } from "../drafts/record.js";
import { backoffMs, SEND_BACKOFF, type Backoff } from "../retry/backoff.js";

/** The part of the review desk the send path needs: read a draft, apply an event durably, run an effect later. */
export interface DraftLedger {
  get(draftId: string): DraftRecord | undefined;
  apply(draftId: string, event: DraftEvent): Promise<TransitionResult>;
  /** Runs effects as the desk's own (tracked, so a drain waits for them). */
  runEffects(effects: readonly Effect[]): void;
  /**
   * Runs `work` (the send call and its outcome) in the review chat's next top-priority turn, with
   * the edit that ends the draft's ↩️ Undo in the same turn. Absent: `work` at once.
   */
  inReviewTurn?<T>(draftId: string, work: () => Promise<T>): Promise<T>;
}

/**
 * One channel's part of the guarded send path. The send path checks what is
 * the same everywhere (the draft approved, by a reviewer, for this text; the
 * kill switch) and hands the draft to its channel's delivery, which does the
 * rest: its own checks of who reads it and as whom, the intent on disk, the
 * switch once more, the one call, and its outcome. Telegram's is
 * telegram-delivery.ts; Linear's, email's and Slack's is channel-delivery.ts.
 */
export interface DraftDelivery {
  /** Goes on from an approved draft whose approval and switch were checked. `answered`: the limiter's, told when the call was answered. */
  attempt(draft: DraftRecord, answered?: () => void): Promise<void>;
  /**
   * A draft found `sending` with no call running here: looked for where the channel can say (absent: the
   * recovery at start marked it `outcome_unknown`, and nothing is done here).
   */
  findLost?(draft: DraftRecord): Promise<void>;
}

/** The hooks a delivery shares with the send path that owns it: halts, waits and the audience backoff. */
export interface DeliveryHooks {
  readonly ledger: DraftLedger;
  readonly log: { warn(obj: object, msg: string): void };
  /** Why the kill switch forbids the send now (checked again after the intent is on disk), or null. */
  readonly haltProblem: (draft: DraftRecord) => Promise<{ reason: string; lasting: boolean } | null>;
  /** Holds every send to this destination key back for `ms` (a rate-limit answer). */
  readonly pause: (key: string, ms: number) => void;
  /** Tries the whole guarded path again after `ms`. */
  readonly retryLater: (draftId: string, ms: number) => void;
  /** The audience could not be read at the send (`service` did not answer): asked again on the audience backoff, then halted. */
  readonly unchecked: (draft: DraftRecord, service: string) => Promise<void>;
  /** The audience was read at the send, or found changed: the audience backoff of this draft starts afresh. */
  readonly checked: (draftId: string) => void;
}

/**
 * A send that provably did not reach its service (connection refused, a transient error it
 * answered): tried again on the backoff, then `failed` after `max` tries. Counted per draft;
 * any other outcome forgets the count.
 */
export class NotSentRetries {
  private readonly tries = new Map<string, number>();

  constructor(
    private readonly options: {
      readonly ledger: DraftLedger;
      readonly retryLater: (draftId: string, ms: number) => void;
      readonly backoff?: Backoff;
      readonly max: number;
    },
  ) {}

  /** The draft's send ended some other way: its count starts afresh. */
  forget(draftId: string): void {
    this.tries.delete(draftId);
  }

  /** Not sent, provably: `send_retry` and a wait on the backoff, or `send_failed` once the tries are used up. */
  async notSent(draftId: string, reason: string): Promise<void> {
    const { ledger } = this.options;
    const tries = (this.tries.get(draftId) ?? 0) + 1;
    this.tries.set(draftId, tries);
    if (tries >= this.options.max) {
      this.tries.delete(draftId);
      await ledger.apply(draftId, { type: "send_failed", reason: `gave up after ${tries} attempts: ${reason}` });
      return;
    }
    await ledger.apply(draftId, { type: "send_retry", reason });
    this.options.retryLater(draftId, backoffMs(this.options.backoff ?? SEND_BACKOFF, tries));
  }
}

/** An outcome that delivered nothing: refused for good, rate-limited, or provably not sent. */
export type Undelivered =
  | { readonly kind: "refused"; readonly reason: string }
  | { readonly kind: "retry_after"; readonly seconds: number; readonly reason: string }
  | { readonly kind: "not_sent"; readonly reason: string };

/**
 * Settles what every channel settles alike: a permanent refusal ends `failed` with its reason; a rate
 * limit holds every send to `rateKey` back as long as the service said and tries this one again then;
 * a send that provably did not go is retried on the backoff (NotSentRetries).
 */
export async function settleUndelivered(
  hooks: Pick<DeliveryHooks, "ledger" | "pause" | "retryLater">,
  retries: NotSentRetries,
  draftId: string,
  rateKey: string,
  outcome: Undelivered,
): Promise<void> {
  switch (outcome.kind) {
    case "refused":
      retries.forget(draftId);
      await hooks.ledger.apply(draftId, { type: "send_failed", reason: outcome.reason });
      return;
    case "retry_after":
      hooks.pause(rateKey, outcome.seconds * 1000);
      await hooks.ledger.apply(draftId, { type: "send_retry", reason: outcome.reason });
      return hooks.retryLater(draftId, outcome.seconds * 1000);
    case "not_sent":
      return retries.notSent(draftId, outcome.reason);
  }
}
