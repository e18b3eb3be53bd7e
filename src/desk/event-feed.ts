import type { DraftStatus } from "../drafts/status.js";
import type { EventFeed, FeedEvent } from "../http/event-feed.js";

/** The part of an audit line the feed reads. */
interface AuditLineLike {
  readonly seq?: unknown;
  readonly kind?: unknown;
  readonly draft_id?: unknown;
  readonly from?: unknown;
  readonly to?: unknown;
  readonly version?: unknown;
  readonly ts?: unknown;
}

/**
 * `GET /events` served from the audit log's own lines: the audit log is never
 * rewritten, so its transition lines (numbered by the audit `seq`) are a feed
 * that survives restarts and store compaction. New lines are picked up as the
 * log grows; lookups are a binary search.
 */
export function auditEventFeed(audit: { readonly ours: readonly AuditLineLike[] }): EventFeed {
  let events: FeedEvent[] = [];
  let scanned = 0;
  let source: readonly AuditLineLike[] | undefined;
  const catchUp = () => {
    const lines = audit.ours;
    if (lines !== source) {
      // The audit log re-read its file (after a failed write): start over.
      source = lines;
      events = [];
      scanned = 0;
    }
    for (; scanned < lines.length; scanned++) {
      const l = lines[scanned]!;
      if (l.kind !== "transition" || typeof l.seq !== "number" || typeof l.draft_id !== "string") continue;
      events.push({
        seq: l.seq,
        draft_id: l.draft_id,
        from: (l.from ?? null) as DraftStatus | null,
        to: l.to as DraftStatus,
        version: typeof l.version === "number" ? l.version : 0,
        at: typeof l.ts === "string" ? l.ts : "",
      });
    }
  };
  return {
    after(seq, limit) {
      catchUp();
      let lo = 0;
      let hi = events.length;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (events[mid]!.seq <= seq) lo = mid + 1;
        else hi = mid;
      }
      const page = events.slice(lo, lo + limit);
      return { events: page, lastSeq: page.length > 0 ? page[page.length - 1]!.seq : seq };
    },
  };
}
