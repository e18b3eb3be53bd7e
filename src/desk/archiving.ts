import type { AuditIndex } from "../audit/audit-index.js";
import type { DraftRecord } from "../drafts/record.js";
import { isFanOut } from "../drafts/fan-out.js";
import { isFinal } from "../drafts/status.js";
import type { DraftArchive } from "../store/archive.js";
import type { JsonlStore } from "../store/jsonl-store.js";

/** The month an archived draft is filed under: the UTC month of its last change. */
export function archiveMonthOf(draft: DraftRecord): string {
  return draft.updated_at.slice(0, 7);
}

/** Final drafts whose last change is at least `retentionMs` old at `now`. Pure. */
export function dueForArchive(drafts: Iterable<DraftRecord>, now: number, retentionMs: number): DraftRecord[] {
  const before = now - retentionMs;
  const due: DraftRecord[] = [];
  for (const d of drafts) if (isFinal(d.status) && Date.parse(d.updated_at) <= before) due.push(d);
  return due;
}

/** What archiving moves between. */
export interface ArchivingParts {
  readonly store: JsonlStore<DraftRecord>;
  readonly archive: DraftArchive<DraftRecord>;
  readonly index: AuditIndex;
  readonly retentionMs: number;
  readonly log: { info(obj: object, msg: string): void };
}

/**
 * Moves final drafts older than DRAFT_RETENTION from the store to the
 * archive: archive first (durable), then the store forgets them (an atomic
 * rewrite), then the audit index drops what it knew of them. A crash between
 * the steps leaves a draft in both places, never in neither; the next pass
 * finishes the move without filing it twice. Returns the ids moved.
 */
export async function archiveDue(parts: ArchivingParts, now: number): Promise<string[]> {
  // A send marked unknown stays until the reviewers were told (recovery tells them at the next start).
  // Among several destinations at once, each delivery's unknown outcome has its own notice.
  const told = (d: DraftRecord) =>
    isFanOut(d)
      ? d.deliveries.every((x) => x.status !== "outcome_unknown" || parts.index.wasNotified(d.draft_id, "outcome_unknown", x.index))
      : d.status !== "outcome_unknown" || parts.index.wasNotified(d.draft_id, d.status);
  const due = dueForArchive(parts.store.latest.values(), now, parts.retentionMs).filter(told);
  if (due.length === 0) return [];
  // Drafts of a month whose file lost drafts are not filed (archive.ts): they stay in the store.
  const filed = await parts.archive.add(due);
  if (filed.length === 0) return [];
  const ids = new Set(filed.map((d) => d.draft_id));
  await parts.store.forget(ids);
  parts.index.retainDrafts((id) => parts.store.latest.has(id));
  parts.log.info({ drafts: ids.size, kept: parts.store.latest.size }, "archived final drafts older than DRAFT_RETENTION");
  return [...ids];
}
