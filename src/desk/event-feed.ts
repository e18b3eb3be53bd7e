import type { TransitionEntry } from "../audit/audit-schema.js";
import type { EventFeed, FeedEvent, FeedEventKind } from "../drafts/feed-event.js";
import { notifyRoles } from "../drafts/notify-roles.js";
import { ROLES, type Role } from "../drafts/record.js";
import type { AuditLine } from "../audit/audit-scan.js";

/** The machine event an audit line records, as the feed's `kind`. */
export function feedKindOf(event: TransitionEntry["event"]): FeedEventKind {
  return event === "edit" ? "edited" : event === "undo" ? "undone" : "transition";
}

/** The feed event of one transition line (`seq` and `ts` are the line's). */
export function feedEventOf(seq: number, ts: string, t: TransitionEntry): FeedEvent {
  const role = (ROLES as readonly string[]).includes(t.drafted_by_role) ? (t.drafted_by_role as Role) : undefined;
  const note = t.note !== undefined && t.note !== "" ? t.note : null;
  const kind = feedKindOf(t.event);
  return {
    seq,
    draft_id: t.draft_id,
    from: t.from,
    to: t.to,
    version: t.version,
    at: ts,
    kind,
    ...(role ? { drafted_by_role: role, notify_roles: notifyRoles(role, note) } : {}),
    ...(t.originating_intent_id !== undefined ? { originating_intent_id: t.originating_intent_id } : {}),
    revision_note: note,
    reason: t.reason,
    sent_message_id: t.sent_message_id ?? null,
    ...(kind === "edited"
      ? {
          ...(t.text_version !== undefined ? { text_version: t.text_version } : {}),
          previous_text: t.previous_text ?? null,
          ...(t.draft_text !== undefined ? { draft_text: t.draft_text } : {}),
        }
      : {}),
  };
}

/**
 * `GET /events` served from the audit log's own lines: the audit log is never
 * rewritten, so its transition lines (numbered by the audit `seq`) are a feed
 * that survives restarts and store compaction. New lines are picked up as the
 * log grows; lookups are a binary search.
 */
export function auditEventFeed(audit: { readonly ours: readonly AuditLine[] }): EventFeed {
  let events: FeedEvent[] = [];
  let scanned = 0;
  let source: readonly AuditLine[] | undefined;
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
      if (l.entry?.kind === "transition") events.push(feedEventOf(l.seq, l.ts, l.entry));
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
