import { open } from "node:fs/promises";
import { draftRecordSchema, type DraftRecord } from "../drafts/record.js";
import { DraftArchive } from "../store/archive.js";
import { errCode } from "../store/fs-util.js";
import { replay } from "../store/replay.js";
import { readAuditPeriod, type PeriodScan } from "./audit-period.js";
import { buildReport, PeriodFold, periodNumbers, previousPeriod, type DraftFacts, type Period, type Report } from "./report-model.js";

/** The files a report reads (HARNESS_DIR's). */
export interface ReportFiles {
  /** The audit log, swarm.jsonl. */
  readonly audit: string;
  /** The draft store, telegram_drafts.jsonl. */
  readonly drafts: string;
  /** The archive directory. */
  readonly archive: string;
  /** Our lines' `source` in the audit log. */
  readonly source: string;
  /** The daemon's check that a line is ours (AuditLog.proves); absent (the CLI): every line of our source is read. */
  readonly proves?: (line: Uint8Array, offset: number) => boolean;
}

/** One (as drafted, as sent) pair of a draft a reviewer edited before approving it. */
export interface EditPair {
  readonly draft_id: string;
  readonly destination_chat_id: string;
  readonly drafted: string;
  readonly sent: string;
  readonly sent_at: string | null;
}

/** Everything a period's report shows. */
export interface PeriodData {
  readonly report: Report;
  /** Destination chat id -> its title or a person's name, where a record's audience has one. */
  readonly names: ReadonlyMap<string, string>;
  /** Per role, the edited pairs of the drafts that were sent. */
  readonly edits: Record<string, EditPair[]>;
  readonly scan: PeriodScan;
}

/**
 * Reads one period and the one of equal length before it, in one pass: the
 * audit lines from where the earlier period starts (see audit-period.ts),
 * then the records of their drafts for destination names, texts and the
 * mode: the store, and only the archive month files those drafts can be
 * filed under (the UTC months from the earlier `since` to `nowMs`). Only the
 * drafts of one mode count: live ones, or test mode's with `testMode`.
 * Read-only: the CLI runs it with or without the daemon, the daemon for its
 * weekly picture.
 */
export async function readPeriod(files: ReportFiles, period: Period, nowMs: number, testMode = false): Promise<PeriodData> {
  const before = previousPeriod(period);
  const folds = [new PeriodFold(period), new PeriodFold(before)] as const;
  const scan = await readAuditPeriod(
    files.audit,
    files.source,
    { sinceMs: before.sinceMs, untilMs: period.untilMs },
    (at, line) => {
      if (line.kind !== "transition") return;
      for (const fold of folds) fold.add(at, line);
    },
    files.proves,
  );
  const ids = new Set(folds.flatMap((f) => [...f.drafts.keys(), ...f.notes.keys()]));
  const records = await recordsOf(files, ids, monthsBetween(before.sinceMs, Math.max(nowMs, period.untilMs)));
  const names = new Map<string, string>();
  for (const r of records.values()) {
    // Each destination of a draft with several (the report counts each delivery under its own), then the one it names now.
    for (const place of [...(r.choices ?? []), r]) {
      // Test mode's offline audience is "unknown": its title names no one.
      const title = place.audience?.kind === "unknown" ? null : place.audience?.title;
      if (title) names.set(place.destination_chat_id, title);
    }
  }
  // Test mode's drafts are rehearsals, not the swarm's work: a live report never counts them, and a
  // report asked for in test mode (TAO_DRAFT_REVIEW_TEST=1) counts only them.
  const ours = (id: string) => (records.get(id)?.test_mode ?? false) === testMode;
  const numbers = folds.map((f) =>
    periodNumbers(
      [...f.drafts.values()].filter((d) => ours(d.draftId)),
      [...f.notes].filter(([id]) => ours(id)).map(([, n]) => n),
    ),
  );
  const drafts = [...folds[0].drafts.values()].filter((d) => ours(d.draftId));
  return { report: buildReport(period, numbers[0]!, numbers[1]!), names, edits: editPairs(drafts, records), scan };
}

/** The edited-then-sent drafts per role, texts from the record where it has them (original_text, draft_text). */
function editPairs(drafts: readonly DraftFacts[], records: ReadonlyMap<string, DraftRecord>): Record<string, EditPair[]> {
  const out: Record<string, EditPair[]> = {};
  for (const d of drafts) {
    if (d.edits === 0 || d.status !== "sent") continue;
    const r = records.get(d.draftId);
    const drafted = r?.original_text ?? d.drafted;
    const sent = r?.draft_text ?? d.sentText;
    if (drafted == null || sent == null) continue;
    const sentAt = r?.sent_at ?? (d.sentAt === null ? null : new Date(d.sentAt).toISOString());
    (out[d.role] ??= []).push({ draft_id: d.draftId, destination_chat_id: d.destination, drafted, sent, sent_at: sentAt });
  }
  return out;
}

/** The current records of `ids`: the store's, then the archive's (a draft being moved may be in both). */
async function recordsOf(files: ReportFiles, ids: ReadonlySet<string>, months: readonly string[]): Promise<Map<string, DraftRecord>> {
  const found = new Map<string, DraftRecord>();
  if (ids.size === 0) return found;
  // The store first: a draft archived meanwhile is then still found in the archive (archived before the store forgets it).
  for (const r of await storeRecords(files.drafts)) if (ids.has(r.draft_id)) found.set(r.draft_id, r);
  const parse = (v: unknown) => draftRecordSchema.parse(v);
  for (const r of await DraftArchive.monthsReadOnly(files.archive, months, parse))
    if (ids.has(r.draft_id) && !found.has(r.draft_id)) found.set(r.draft_id, r);
  return found;
}

/** The store's current records, read-only (a torn last line is skipped); none when it does not exist. */
async function storeRecords(path: string): Promise<DraftRecord[]> {
  let fh;
  try {
    fh = await open(path, "r");
  } catch (err) {
    if (errCode(err) === "ENOENT") return [];
    throw err;
  }
  try {
    const r = await replay(fh, path, (value) => draftRecordSchema.parse(value));
    return [...r.latest.values()];
  } finally {
    await fh.close();
  }
}

/** The UTC months (`YYYY-MM`) from the one of `fromMs` to the one of `toMs`. */
export function monthsBetween(fromMs: number, toMs: number): string[] {
  const months: string[] = [];
  const d = new Date(fromMs);
  let y = d.getUTCFullYear();
  let m = d.getUTCMonth();
  const end = new Date(toMs);
  while (y < end.getUTCFullYear() || (y === end.getUTCFullYear() && m <= end.getUTCMonth())) {
    months.push(`${y}-${String(m + 1).padStart(2, "0")}`);
    if (++m === 12) {
      m = 0;
      y++;
    }
  }
  return months;
}
