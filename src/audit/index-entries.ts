/**
 * What the audit index reads from one line of ours: a transition's audited
 * facts (its version and status, a send's outcome), the keys of notices and
 * reminders, and which entries make no decision surface.
 */
import type { DraftStatus } from "../drafts/status.js";
import type { AuditEntry, AuditEntryOf } from "./audit-schema.js";

/** A draft's last audited change. */
export interface AuditedDraft {
  readonly version: number;
  readonly to: DraftStatus;
  /** When that change came out of `sending` with a final outcome: what recovery needs to bring a store that lost it level. */
  readonly sendOutcome?: SendOutcome;
}

/** The outcome of a send as its audit line records it (see AuditedDraft). */
export interface SendOutcome {
  /** Telegram's message id (`sent`), else null. */
  readonly sentMessageId: number | null;
  /** Why it failed or is unknown, else null. */
  readonly reason: string | null;
  /** When the line was written (ms since the epoch), if its `ts` reads. */
  readonly at: number | null;
}

/** Final statuses a change out of `sending` can reach. */
const SEND_OUTCOMES: ReadonlySet<DraftStatus> = new Set<DraftStatus>(["sent", "failed", "outcome_unknown"]);

/** What the index keeps of a transition line: its version and status, and a send's outcome. */
export function audited(entry: AuditEntryOf<"transition">, at: number): AuditedDraft {
  if (entry.from !== "sending" || !SEND_OUTCOMES.has(entry.to)) return { version: entry.version, to: entry.to };
  const sendOutcome = { sentMessageId: entry.sent_message_id ?? null, reason: entry.reason, at: Number.isFinite(at) ? at : null };
  return { version: entry.version, to: entry.to, sendOutcome };
}

/** A status notice's key among the notices: the draft and the status it told. */
export function noticeKey(draftId: string, status: DraftStatus, delivery?: number): string {
  return delivery === undefined ? `${draftId}:${status}` : `${draftId}:${status}#${delivery}`;
}

/** A reminder's key among the notices: the draft and the deadline, with no ':' after the draft id (see retain). */
export function reminderKey(draftId: string, expiresAt: string): string {
  return `${draftId}:remind@${Date.parse(expiresAt)}`;
}

/** Entries of the post's bookkeeping that make no decision surface (status edits due and shown, replaced posts). */
export function isSurfaceFree(entry: AuditEntry): boolean {
  return entry.kind === "status_due" || entry.kind === "status_shown" || entry.kind === "post_superseded";
}
