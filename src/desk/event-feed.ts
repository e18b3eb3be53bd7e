import { open } from "node:fs/promises";
import type { AuditIndex } from "../audit/audit-index.js";
import { sourceNeedle } from "../audit/audit-scan.js";
import { parseAuditLine, type TransitionEntry } from "../audit/audit-schema.js";
import type { EventFeed, FeedEvent, FeedEventKind, FeedPage } from "../drafts/feed-event.js";
import { notifyRoles } from "../drafts/notify-roles.js";
import { ROLES, type Role } from "../drafts/record.js";
import { NOFOLLOW } from "../store/fs-util.js";
import { readLines } from "../store/line-reader.js";

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
    ...(t.sent_ref !== undefined ? { sent_ref: t.sent_ref } : {}),
    ...(t.delivery !== undefined ? { delivery: t.delivery } : {}),
    send_as: t.send_as ?? "bot",
    // A send recorded before sent_as existed went out as the bot.
    sent_as: t.sent_as ?? (t.to === "sent" ? "bot" : null),
    ...(kind === "edited"
      ? {
          ...(t.text_version !== undefined ? { text_version: t.text_version } : {}),
          previous_text: t.previous_text ?? null,
          ...(t.draft_text !== undefined ? { draft_text: t.draft_text } : {}),
        }
      : {}),
  };
}

/** The audit log as the feed reads it. */
export interface FeedSource {
  /** The audit log's path. */
  readonly file: string;
  /** Our `source` field. */
  readonly source: string;
  readonly index: AuditIndex;
  /** True when a line of our source is ours (AuditLog.proves): another writer's line is never served. */
  proves?(line: Uint8Array, offset: number): boolean;
}

class PageFull extends Error {}

/**
 * `GET /events` served from the audit log's own lines: the audit log is never
 * rewritten, so its transition lines (numbered by the audit `seq`) are a feed
 * that survives restarts and store compaction. A page is read from disk,
 * starting at the offset the index gives for `after` (at most a few hundred
 * lines before it), so memory does not grow with the feed's length. Only
 * lines the index has (acknowledged ones) are served, and only ours: a line
 * another writer appends claiming our source is skipped (see AuditLog.proves).
 */
export function auditEventFeed(audit: FeedSource): EventFeed {
  const { source } = audit;
  const needle = sourceNeedle(source);
  return {
    async after(after, limit): Promise<FeedPage> {
      const last = audit.index.lastSeq;
      const events: FeedEvent[] = [];
      // A cursor past the end (an older or replaced audit log, a client's own number) gets the real end back, never its own number.
      if (after >= last) return { events, lastSeq: last };
      const start = audit.index.feedStart(after);
      const fh = await open(audit.file, NOFOLLOW.read);
      try {
        let skipFirst = false;
        if (start > 0) {
          const before = Buffer.alloc(1);
          await fh.read(before, 0, 1, start - 1);
          skipFirst = before[0] !== 0x0a; // the offset is a lower bound: it may fall inside another line
        }
        await readLines(
          fh,
          (buf, from, to, lineNo, offset) => {
            if (skipFirst && lineNo === 1) return;
            const line = buf.subarray(from, to);
            if (line.indexOf(needle) < 0 || audit.proves?.(line, offset) === false) return;
            const parsed = parseAuditLine(buf.toString("utf8", from, to), source);
            if (!parsed) return;
            const { seq, ts } = parsed.envelope;
            if (seq > last) throw new PageFull();
            if (seq <= after || parsed.entry?.kind !== "transition") return;
            events.push(feedEventOf(seq, ts, parsed.entry));
            if (events.length >= limit) throw new PageFull();
          },
          { startOffset: start, chunkBytes: 64 << 10 },
        );
      } catch (err) {
        if (!(err instanceof PageFull)) throw err;
      } finally {
        await fh.close();
      }
      return { events, lastSeq: events.length > 0 ? events[events.length - 1]!.seq : after };
    },
  };
}
