import type { TransitionEntry } from "../audit/audit-schema.js";
import { ROLES } from "../drafts/record.js";

/**
 * The numbers of `draft-review report` and the weekly picture, computed from
 * the audit log's transition lines of one period, in one pass. Pure: the
 * reader (read-period.ts) feeds it the lines; tests feed it lines too.
 *
 * What counts: the drafts created in the period [since, until), as they stood
 * at `until` (lines after it are not read). For each of them:
 * - `sent`: it was sent; `revise`: a reviewer sent it back (a draft replaced by
 *   a newer version before anyone decided is not counted as revise);
 *   `expired`: no decision in time;
 * - `deferred`: a reviewer deferred it at least once;
 * - `edited`: a reviewer edited its text and then approved it; an edit that
 *   only put back what redaction removed does not count: a draft whose only
 *   edits are such is `restored` instead (per role);
 * - `undone`: how many decisions on it were undone within UNDO_WINDOW;
 * - the time to decision runs from its review post to the reviewer's send or
 *   revise decision that stood (not undone), in seconds of real time (a
 *   daylight-saving night changes no duration): nearest-rank p50 and p90;
 * - per role, `notes`: the revision notes given in the period (by when they
 *   were given, of any draft) that stand (not undone), newest first, at most 10.
 * `previous` is the same for the period of equal length just before.
 */

/** One row of the report: a role's, or a destination's. */
export interface ReportRow {
  drafts: number;
  sent: number;
  /** Sent to some of several destinations, not all (`choose: "any"`, final `partly_sent`). */
  partly_sent: number;
  revise: number;
  deferred: number;
  expired: number;
  edited: number;
  undone: number;
  decision_p50_s: number | null;
  decision_p90_s: number | null;
}

/**
 * Among drafts that offered several destinations (contract v5 `destinations`) and whose send decision
 * stands: how many there were, and how many went where the role recommended (the first destination,
 * or with `choose: "any"` every destination, as submitted).
 */
export interface PickCount {
  picked: number;
  recommended: number;
}

/** A role's row: a row, plus what the reviewer told the role, the edits that only restored redacted items, and his picks. */
export interface RoleRow extends ReportRow {
  restored: number;
  notes: string[];
  picks: PickCount;
}

/** The numbers of one period. */
export interface PeriodNumbers {
  readonly roles: Record<string, RoleRow>;
  readonly destinations: Record<string, ReportRow>;
  /** Per kind of the recommended destination (`telegram`, `linear`, `email`, `slack`): how often the owner kept it. */
  readonly picks: Record<string, PickCount>;
}

/** The report as `--json` prints it: the contract's keys (v3), and `previous` (v4). */
export interface Report extends PeriodNumbers {
  readonly since: string;
  readonly until: string;
  /** The period of equal length just before. */
  readonly previous: PeriodNumbers;
}

/** How many notes a role's row lists. */
export const NOTES_PER_ROLE = 10;

/** A revision note that stands, with who it was for and when it was given. */
export interface GivenNote {
  readonly role: string;
  readonly text: string;
  readonly atMs: number;
}

/** What one pass learns about one draft created in the period. */
export interface DraftFacts {
  readonly draftId: string;
  role: string;
  destination: string;
  /** When it was first shown for review (ms), or null while it waits in the queue. */
  postedAt: number | null;
  status: TransitionEntry["to"];
  deferred: boolean;
  /** A reviewer's edits, not counting those that only restored redacted items. */
  edits: number;
  /** Edits that only restored redacted items. */
  restores: number;
  undone: number;
  /** The reviewer's send or revise decision that stands (not undone), with when (ms). */
  decision: { readonly kind: "send" | "revise"; readonly at: number } | null;
  /** The text as submitted, once a reviewer edited it (the first edit's text before). */
  drafted: string | null;
  /** The text as it went out (send_ok). */
  sentText: string | null;
  sentAt: number | null;
  /** A draft with several destinations: the kind of the role's recommendation, and whether the pick that stands kept it (null: none stands). */
  pick: { kind: string; kept: boolean | null } | null;
  /** Sent to several at once (`choose: "any"`, approved): each delivery's destination and status, counted each under its own. */
  deliveries: Array<{ readonly destination: string; readonly status: TransitionEntry["to"] }> | null;
}

/** A period: milliseconds since the epoch, `until` excluded. */
export interface Period {
  readonly sinceMs: number;
  readonly untilMs: number;
}

/** Folds transition lines, in file order, into the facts of the drafts created in the period and the notes given in it. */
export class PeriodFold {
  readonly drafts = new Map<string, DraftFacts>();
  /** Per draft, the revision note of its revise decision that stands, given in the period. */
  readonly notes = new Map<string, GivenNote>();

  constructor(private readonly period: Period) {}

  /** Takes one transition line written at `atMs`. Lines of drafts created before the period count only for notes. */
  add(atMs: number, e: TransitionEntry): void {
    if (atMs < this.period.sinceMs || atMs >= this.period.untilMs) return;
    this.noteOf(atMs, e);
    let d = this.drafts.get(e.draft_id);
    if (d === undefined) {
      if (e.event !== "created") return;
      d = newFacts(e);
      this.drafts.set(e.draft_id, d);
    }
    d.role = e.drafted_by_role;
    d.destination = e.destination_chat_id;
    d.status = e.to;
    if (e.to === "pending" && d.postedAt === null) d.postedAt = atMs;
    if (e.event === "decide" && e.decision === "defer") d.deferred = true;
    // A note added after the 👎 (revise to revise) is no new decision: the time to decision stays the 👎's.
    const decided = e.event === "decide" && e.from !== "revise";
    if (decided && (e.decision === "send" || e.decision === "revise")) d.decision = { kind: e.decision, at: atMs };
    if (e.event === "undo") {
      d.undone++;
      d.decision = null;
    } else if (changedMind(e)) d.undone++;
    if (e.restored === true) d.restores++;
    else if (e.event === "edit") {
      if (d.edits === 0 && typeof e.previous_text === "string") d.drafted = e.previous_text;
      d.edits++;
    }
    if (e.event === "send_ok") {
      d.sentText = e.draft_text ?? null;
      d.sentAt = atMs;
    }
    d.pick = pickOf(e, d.pick);
    d.deliveries = deliveriesOf(e, d.deliveries);
  }

  /** A revise decision with a note gives one; an undo (or a revise without one) takes the draft's back. */
  private noteOf(atMs: number, e: TransitionEntry): void {
    const revise = (e.event === "decide" || e.event === "recovered") && e.decision === "revise";
    if (revise && e.note) this.notes.set(e.draft_id, { role: e.drafted_by_role, text: e.note, atMs });
    else if (revise || e.event === "undo") this.notes.delete(e.draft_id);
  }
}

/**
 * What a line says of the owner's pick among several destinations: the kind of the recommendation
 * (the first destination) from the record the line carries, and whether the deliveries of the send
 * decision that stands went where the role recommended. An undo, or a line without deliveries after
 * one, leaves no pick standing; lines without a record (older ones) change nothing.
 */
function pickOf(e: TransitionEntry, was: DraftFacts["pick"]): DraftFacts["pick"] {
  const record = e.record;
  if (record === undefined) return was;
  const choices = Array.isArray(record.choices) ? (record.choices as Array<{ destination?: { channel?: unknown } | null }>) : [];
  if (choices.length < 2) return null;
  const kind = typeof choices[0]?.destination?.channel === "string" ? choices[0].destination.channel : "telegram";
  const deliveries = Array.isArray(record.deliveries) ? (record.deliveries as Array<{ index?: unknown }>) : [];
  if (deliveries.length === 0) return { kind, kept: null };
  const picked = new Set(deliveries.map((d) => d.index));
  const recommended = record.choose === "any" ? choices.map((_, i) => i + 1) : [1];
  return { kind, kept: picked.size === recommended.length && recommended.every((i) => picked.has(i)) };
}

/**
 * The deliveries a line's record shows of a draft sent to several at once, each with the
 * destination of its choice (the draft's own fields name only the delivery under way);
 * null when it has none (one destination, or not approved); lines without a record keep what was.
 */
function deliveriesOf(e: TransitionEntry, was: DraftFacts["deliveries"]): DraftFacts["deliveries"] {
  const record = e.record;
  if (record === undefined) return was;
  if (record.choose !== "any" || !Array.isArray(record.deliveries) || record.deliveries.length === 0) return null;
  const choices = Array.isArray(record.choices) ? (record.choices as Array<{ index?: unknown; destination_chat_id?: unknown }>) : [];
  return (record.deliveries as Array<{ index?: unknown; status?: unknown }>).map((x) => {
    const choice = choices.find((c) => c.index === x.index);
    const destination = typeof choice?.destination_chat_id === "string" ? choice.destination_chat_id : e.destination_chat_id;
    return { destination, status: (typeof x.status === "string" ? x.status : e.to) as TransitionEntry["to"] };
  });
}

/**
 * A decision that replaced one still inside its undo window (a change of mind:
 * 👍 then 👎 or 😴, or 👎 then 👍): the first decision was undone. A note added
 * after the 👎 (revise to revise) is not one.
 */
function changedMind(e: TransitionEntry): boolean {
  if (e.event !== "decide") return false;
  return e.from === "approved" || (e.from === "revise" && e.decision !== "revise");
}

function newFacts(e: TransitionEntry): DraftFacts {
  return {
    draftId: e.draft_id,
    role: e.drafted_by_role,
    destination: e.destination_chat_id,
    postedAt: null,
    status: e.to,
    deferred: false,
    edits: 0,
    restores: 0,
    undone: 0,
    decision: null,
    drafted: null,
    sentText: null,
    sentAt: null,
    pick: null,
    deliveries: null,
  };
}

/** A row of zeros. */
export function emptyRow(): ReportRow {
  return {
    drafts: 0,
    sent: 0,
    partly_sent: 0,
    revise: 0,
    deferred: 0,
    expired: 0,
    edited: 0,
    undone: 0,
    decision_p50_s: null,
    decision_p90_s: null,
  };
}

/** The nearest-rank percentile `p` (0-100) of `values`, or null when there are none. */
export function percentile(values: readonly number[], p: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** Seconds to decision of a draft, or null when no send or revise decision of a reviewer stands. */
export function decisionSeconds(d: DraftFacts): number | null {
  if (d.decision === null || d.postedAt === null) return null;
  return Math.max(0, d.decision.at - d.postedAt) / 1000;
}

/** One row from the facts of its drafts. */
export function rowOf(drafts: readonly DraftFacts[]): ReportRow {
  const row = emptyRow();
  const times: number[] = [];
  for (const d of drafts) {
    row.drafts++;
    if (d.status === "sent") row.sent++;
    if (d.status === "partly_sent") row.partly_sent++;
    if (d.status === "revise" && d.decision?.kind === "revise") row.revise++;
    if (d.status === "expired") row.expired++;
    if (d.deferred) row.deferred++;
    if (d.edits > 0 && d.decision?.kind === "send") row.edited++;
    row.undone += d.undone;
    const s = decisionSeconds(d);
    if (s !== null) times.push(s);
  }
  const round = (x: number | null) => (x === null ? null : Math.round(x * 10) / 10);
  row.decision_p50_s = round(percentile(times, 50));
  row.decision_p90_s = round(percentile(times, 90));
  return row;
}

/** Groups drafts by `key`, in first-seen order. */
function groupBy(drafts: Iterable<DraftFacts>, key: (d: DraftFacts) => string): Map<string, DraftFacts[]> {
  const groups = new Map<string, DraftFacts[]>();
  for (const d of drafts) groups.set(key(d), [...(groups.get(key(d)) ?? []), d]);
  return groups;
}

/** A role's row from its drafts and the notes given to it (any order). */
function roleRowOf(drafts: readonly DraftFacts[], notes: readonly GivenNote[]): RoleRow {
  const restored = drafts.filter((d) => d.restores > 0 && d.edits === 0).length;
  const newest = [...notes].sort((a, b) => b.atMs - a.atMs).slice(0, NOTES_PER_ROLE);
  return { ...rowOf(drafts), restored, notes: newest.map((n) => n.text), picks: picksOf(drafts) };
}

/** The picks of `drafts` whose pick stands, counted. */
function picksOf(drafts: Iterable<DraftFacts>): PickCount {
  const count: PickCount = { picked: 0, recommended: 0 };
  for (const d of drafts) {
    if (d.pick?.kept == null || d.decision?.kind !== "send") continue;
    count.picked++;
    if (d.pick.kept) count.recommended++;
  }
  return count;
}

/** The numbers of a period from the facts of its drafts and its notes; every known role has a row, drafts or not. */
export function periodNumbers(drafts: Iterable<DraftFacts>, notes: Iterable<GivenNote> = []): PeriodNumbers {
  const all = [...drafts];
  const byRole = groupBy(all, (d) => d.role);
  const notesByRole = new Map<string, GivenNote[]>();
  for (const n of notes) notesByRole.set(n.role, [...(notesByRole.get(n.role) ?? []), n]);
  const roles: Record<string, RoleRow> = {};
  for (const role of [...ROLES, ...byRole.keys(), ...notesByRole.keys()]) {
    roles[role] ??= roleRowOf(byRole.get(role) ?? [], notesByRole.get(role) ?? []);
  }
  // A draft sent to several at once counts under each destination it was approved for, as that delivery ended.
  const perDestination = all.flatMap((d) =>
    d.deliveries === null ? [d] : d.deliveries.map((x) => ({ ...d, destination: x.destination, status: x.status })),
  );
  const destinations: Record<string, ReportRow> = {};
  for (const [dest, list] of groupBy(perDestination, (d) => d.destination)) destinations[dest] = rowOf(list);
  const picks: Record<string, PickCount> = {};
  for (const [kind, list] of groupBy(all, (d) => d.pick?.kind ?? "")) if (kind !== "") picks[kind] = picksOf(list);
  return { roles, destinations, picks };
}

/** The period of equal length just before `period`. */
export function previousPeriod(period: Period): Period {
  return { sinceMs: period.sinceMs - (period.untilMs - period.sinceMs), untilMs: period.sinceMs };
}

/** The report of a period from its numbers and those of the period before. */
export function buildReport(period: Period, current: PeriodNumbers, previous: PeriodNumbers): Report {
  return {
    since: new Date(period.sinceMs).toISOString(),
    until: new Date(period.untilMs).toISOString(),
    roles: current.roles,
    destinations: current.destinations,
    picks: current.picks,
    previous,
  };
}
