import type { Clock } from "../clock/clock.js";
import type { EventFeed } from "../drafts/feed-event.js";

/** How long a revision answer waits for a consumer to acknowledge the note's event. */
export const DELIVERY_WAIT_MS = 5_000;
const POLL_MS = 100;

/**
 * Knows how far the feed's consumers have acknowledged it: the callback
 * receiver (its 2xx, `ackedSeq`) and readers of `GET /events` (one that asks
 * `after=X` has taken every event up to X). The review chat says a role was
 * "told" of a note only once one of them is past the note's event.
 */
export class DeliveryWatch {
  private readerSeq = 0;
  private readerSeen = false;

  constructor(
    private readonly deps: { readonly feed: EventFeed; readonly callbacks: { readonly ackedSeq: number } | null; readonly clock: Clock },
  ) {}

  /** The feed the API serves, noting how far each reader has got. */
  readerFeed(): EventFeed {
    return {
      after: async (seq, limit) => {
        this.readerSeen = true;
        const page = await this.deps.feed.after(seq, limit);
        // A reader asking past the feed's end has taken nothing beyond the end (its number proves no delivery).
        this.readerSeq = Math.max(this.readerSeq, Math.min(seq, page.lastSeq));
        return page;
      },
    };
  }

  /**
   * True once a consumer acknowledged the latest event of `draftId`, waiting
   * at most `waitMs` on the clock; false at once when nobody consumes the feed.
   */
  async delivered(draftId: string, waitMs = DELIVERY_WAIT_MS): Promise<boolean> {
    if (this.deps.callbacks === null && !this.readerSeen) return false;
    const target = await this.latestSeqOf(draftId);
    // None of its events after what was acknowledged: they were all taken already.
    if (target === null) return true;
    for (let waited = 0; ; waited += POLL_MS) {
      if (this.acked() >= target) return true;
      if (waited >= waitMs) return false;
      await new Promise<void>((resolve) => this.deps.clock.setTimeout(resolve, POLL_MS));
    }
  }

  private acked(): number {
    return Math.max(this.readerSeq, this.deps.callbacks?.ackedSeq ?? 0);
  }

  private async latestSeqOf(draftId: string): Promise<number | null> {
    let last: number | null = null;
    for (let after = this.acked(); ; ) {
      const page = await this.deps.feed.after(after, 1000);
      for (const e of page.events) if (e.draft_id === draftId) last = e.seq;
      if (page.events.length === 0) return last;
      after = page.events.at(-1)!.seq;
    }
  }
}
