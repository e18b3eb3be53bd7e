import type { AuditedDraft } from "../audit/audit-index.js";
import type { TransitionEntry } from "../audit/audit-schema.js";
import { draftRecordSchema, type DraftRecord } from "../drafts/record.js";
import { DataRefusalError } from "../store/data-refusal.js";

/**
 * At start, the draft store is checked against the daemon's own (proven)
 * audit lines, without reading the log: the audit index keeps, per live
 * draft, its last audited version and status and where that line is. A
 * change the log holds and the store lacks (a store truncated, replaced by
 * an older copy or restored from a backup; a draft missing altogether) is
 * restored from that line, which carries the draft's whole record; a draft
 * never silently returns to an earlier status. Where the line cannot give
 * the record (it was written before lines carried one), the start is refused,
 * naming the file and the drafts, and nothing is changed; except the two
 * cases recovery already settles without guessing (a send's audited outcome,
 * and a send that had begun: see storeBehind and planRecovery).
 */

/** A draft whose last change the log holds and the store lacks. */
export interface StoreGap {
  readonly draftId: string;
  /** The store's record, or undefined when the store lacks the draft altogether. */
  readonly stored: DraftRecord | undefined;
  readonly audited: AuditedDraft;
}

/** What the check reads from the audit log. */
export interface AuditFacts {
  /** The ids of the live drafts the audit index knows. */
  draftIds(): Iterable<string>;
  audited(draftId: string): AuditedDraft | undefined;
  /** Our proven transition line of the draft at this version, or null. */
  transitionAt(draftId: string, version: number): Promise<TransitionEntry | null>;
}

/** What the check needs besides the audit log. */
export interface StoreRestoreDeps {
  /** The store file's path (named in a refusal). */
  readonly storePath: string;
  readonly latest: ReadonlyMap<string, DraftRecord>;
  append(records: readonly DraftRecord[]): Promise<void>;
  /** True when the archive may hold the draft (an archived draft has left the store on purpose). */
  readonly archived: (draftId: string) => boolean;
  /** Whether this process may change the draft (test mode: only its own, see mayChangeDraft); absent: every draft. */
  readonly mayChange?: (draft: DraftRecord) => boolean;
  readonly audit: AuditFacts;
  readonly log: { warn(obj: object, msg: string): void };
}

/** The drafts whose last audited change the store lacks. Pure. */
export function storeGaps(
  latest: ReadonlyMap<string, DraftRecord>,
  audit: Omit<AuditFacts, "transitionAt">,
  archived: (id: string) => boolean,
): StoreGap[] {
  const gaps: StoreGap[] = [];
  for (const draftId of audit.draftIds()) {
    const audited = audit.audited(draftId);
    if (audited === undefined) continue;
    const stored = latest.get(draftId);
    if (stored === undefined ? !archived(draftId) : stored.version < audited.version) gaps.push({ draftId, stored, audited });
  }
  return gaps;
}

/**
 * Cases recovery settles from the index alone, as before lines carried the
 * record: a `sending` draft whose audited outcome follows it, and an
 * `approved` draft whose send the log shows had begun (marked unknown,
 * never resent: the reviewer is told).
 */
function settledByRecovery(gap: StoreGap): boolean {
  const { stored, audited } = gap;
  if (stored?.status === "sending") return audited.sendOutcome !== undefined && audited.version === stored.version + 1;
  return stored?.status === "approved" && SEND_STARTED.has(audited.to);
}

/** Statuses past which a draft may have reached its destination. */
const SEND_STARTED: ReadonlySet<string> = new Set(["sending", "sent", "failed", "outcome_unknown"]);

/** The record a transition line carries, or null (a line written before lines carried one, or one that does not parse). */
function recordIn(line: TransitionEntry | null): DraftRecord | null {
  if (line?.record === undefined || line.draft_text === undefined) return null;
  const parsed = draftRecordSchema.safeParse({ ...line.record, draft_text: line.draft_text });
  return parsed.success && parsed.data.draft_id === line.draft_id && parsed.data.version === line.version ? parsed.data : null;
}

/**
 * Restores into the store what it lacks of the audit log (see the file
 * comment); returns the drafts restored. Throws a DataRefusalError, before
 * changing anything, when a change cannot be restored faithfully.
 */
export async function restoreLostChanges(deps: StoreRestoreDeps): Promise<string[]> {
  const restored: DraftRecord[] = [];
  const refused: StoreGap[] = [];
  const may = deps.mayChange ?? (() => true);
  for (const gap of storeGaps(deps.latest, deps.audit, deps.archived)) {
    if (gap.audited.to === "sending" && gap.stored?.status === "approved") continue; // recovery says what happened
    if (gap.stored !== undefined && !may(gap.stored)) continue; // another's draft (a live one, seen from test mode)
    const record = recordIn(await deps.audit.transitionAt(gap.draftId, gap.audited.version));
    if (record !== null) {
      if (may(record)) restored.push(record);
    } else if (!settledByRecovery(gap)) refused.push(gap);
  }
  if (refused.length > 0) throw refusal(deps.storePath, refused);
  if (restored.length === 0) return [];
  await deps.append(restored);
  deps.log.warn(
    { path: deps.storePath, drafts: restored.map((r) => `${r.draft_id} v${r.version} ${r.status}`) },
    `${deps.storePath} lacked changes that the audit log holds (a truncated, older or restored store): restored ${restored.length} draft(s) from the audit log`,
  );
  return restored.map((r) => r.draft_id);
}

function refusal(path: string, gaps: readonly StoreGap[]): DataRefusalError {
  const named = gaps
    .slice(0, 10)
    .map((g) =>
      g.stored === undefined
        ? `draft ${g.draftId} is missing (the audit log has it at version ${g.audited.version}, ${g.audited.to})`
        : `draft ${g.draftId} is at version ${g.stored.version} (${g.stored.status}), the audit log has version ${g.audited.version} (${g.audited.to})`,
    )
    .join("; ");
  const more = gaps.length > 10 ? `; and ${gaps.length - 10} more` : "";
  return new DataRefusalError(
    path,
    null,
    `it lacks changes that the audit log holds, and the audit lines are too old to carry the whole record, so they cannot be restored faithfully: ${named}${more}`,
    `Nothing was changed. Stop the daemon, restore ${path} from a backup that holds these changes (or the file as it was before it was cut or replaced), then start again.`,
  );
}
