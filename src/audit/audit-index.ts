import { z } from "zod";
import { STATUSES, type DraftStatus } from "../drafts/status.js";
import { surfaceStateSchema, type AuditEntry, type AuditEnvelope } from "./audit-schema.js";
import { SurfaceBook } from "./surface-book.js";
import { audited, isSurfaceFree, noticeKey, reminderKey, type AuditedDraft } from "./index-entries.js";

export type { AuditedDraft, SendOutcome } from "./index-entries.js";

/**
 * What the daemon needs to know from its own audit lines, kept up to date on
 * every append and persisted as a small checkpoint, so a start reads only the
 * lines written after it:
 * - the chain head (seq and hash of our last line) to continue the chain,
 * - the Telegram update ids already decided or refused (recent ones: Telegram
 *   redelivers within a day), so a redelivery acts and is audited once,
 * - the notices that reached the review chat, per live draft,
 * - per live draft, its highest audited version and status, and a send's
 *   outcome (recovery compares it with the store: a change missing from the
 *   log, a send that had begun, a send outcome the store lost),
 * - a sparse map from feed `seq` to a byte offset at or before its line, so
 *   `/events` reads any page from disk without holding the feed,
 * - per live draft, what its review post shows: the last version whose edit
 *   was due and the last one shown (a crash between them is redone at start),
 *   replaced posts that lost their buttons,
 * - the decision surfaces: every message with a decision control, what it
 *   showed, and whether a one-time one was used (see surface-book.ts),
 * - per live draft, where its last transition line is (a start restores from
 *   it a change the store lost: src/app/store-restore.ts),
 * - the last owner's halt the log records (ours or the CLI's), so a halt
 *   voids older approvals even when halt_record.json is gone,
 * - the proof state: where the key anchor is, and the other project
 *   source's chain head (see line-proof.ts and audit-scan.ts).
 * Only lines whose proof verifies (or, before the key anchor, that continue
 * our chain) reach it: another writer's line never does.
 * Its size follows the live drafts, not the history.
 */

/** Every how many transition lines the feed map keeps an offset. */
export const FEED_SAMPLE_EVERY = 256;
/** How long an update id is remembered after its line (Telegram keeps an update at most 24 h). */
export const UPDATE_MEMORY_MS = 7 * 24 * 3_600_000;

/** The packed feed map: `seq.offset` pairs, base 36, comma-separated (empty: no samples). */
const FEED_PACKED = /^(?:[0-9a-z]{1,10}\.[0-9a-z]{1,10}(?:,[0-9a-z]{1,10}\.[0-9a-z]{1,10})*)?$/;

/** The checkpoint's JSON (without its checksum). */
export const indexSnapshotSchema = z.object({
  v: z.literal(1),
  source: z.string(),
  /** Every line before this byte offset is in the index; it is a line boundary. */
  scanned_to: z.number().int().nonnegative(),
  last_seq: z.number().int().nonnegative(),
  last_hash: z.string(),
  /** Byte range of our last line, to check that the file is still the one indexed. */
  head: z.tuple([z.number().int().nonnegative(), z.number().int().nonnegative()]).nullable(),
  transitions: z.number().int().nonnegative(),
  updates: z.array(z.tuple([z.number().int(), z.number()])),
  notices: z.array(z.tuple([z.string(), z.number()])),
  drafts: z.array(z.tuple([z.string(), z.number().int(), z.enum(STATUSES)])),
  /**
   * The feed map, `seq.offset` pairs in base 36 joined by commas (FEED_PACKED): it grows with the
   * history (one pair per FEED_SAMPLE_EVERY transitions), so it is one string checked by one regex,
   * not thousands of tuples checked one by one at every start. Older checkpoints hold the tuples.
   */
  feed: z.union([z.string().regex(FEED_PACKED), z.array(z.tuple([z.number().int(), z.number().int().nonnegative()]))]),
  // Review posts (added later: a checkpoint without them is read as empty).
  posts_due: z.array(z.tuple([z.string(), z.number().int()])).default([]),
  posts_shown: z.array(z.tuple([z.string(), z.number().int()])).default([]),
  posts_superseded: z.array(z.tuple([z.string(), z.number().int()])).default([]),
  /** Older checkpoints: edit prompts, read as edit surfaces. */
  edit_prompts: z.array(z.tuple([z.number().int(), z.string(), z.number().int()])).default([]),
  surfaces: z.array(surfaceStateSchema).default([]),
  // Send outcomes (added later): [draft_id, sent_message_id, reason, at] of drafts whose last change is one.
  send_outcomes: z.array(z.tuple([z.string(), z.number().int().nullable(), z.string().nullable(), z.number().nullable()])).default([]),
  // Added with the audit key: lines before scanned_to, the key anchor [offset, seq], the other project source's head,
  // the last logged owner's halt [at, lasting], and per live draft the offset of its last transition line.
  lines: z.number().int().nonnegative().default(0),
  anchor: z.tuple([z.number().int().nonnegative(), z.number().int().nonnegative()]).nullable().default(null),
  sibling: z.tuple([z.number().int().nonnegative(), z.string()]).default([0, ""]),
  halt: z.tuple([z.number(), z.boolean()]).nullable().default(null),
  draft_lines: z.array(z.tuple([z.string(), z.number().int().nonnegative()])).default([]),
});
/** The checkpoint's content. */
export type IndexSnapshot = z.infer<typeof indexSnapshotSchema>;

/** The one index over our audit lines (see the file comment). */
export class AuditIndex {
  lastSeq = 0;
  lastHash = "";
  /** Lines before this offset are indexed (a line boundary). */
  scannedTo = 0;
  /** Byte range of our last line when known exactly (after a scan), else null. */
  head: [number, number] | null = null;
  /** True when something was forgotten since the last snapshot (the checkpoint should be rewritten). */
  pruned = false;
  /** Complete lines before `scannedTo` (so a line found later is named by its number in the file). */
  linesBefore = 0;
  /** The key anchor (offset, a lower bound, and seq), once seen: after it, a line of ours without proof is another writer's. */
  anchor: { readonly offset: number; readonly seq: number } | null = null;
  /** The chain head of the other project source (the CLI's for the daemon, the daemon's for the CLI). */
  sibling: { seq: number; hash: string } = { seq: 0, hash: "" };
  /** The last owner's halt or resume the log records: when, and whether the halt was still on. */
  private halt: { at: number; lasting: boolean } | null = null;
  private readonly draftLines = new Map<string, number>();
  private transitions = 0;
  private readonly updates = new Map<number, number>();
  private readonly notices = new Map<string, number>();
  private readonly drafts = new Map<string, AuditedDraft>();
  private readonly feedSeqs: number[] = [];
  private readonly postsDue = new Map<string, number>();
  private readonly postsShown = new Map<string, number>();
  private readonly postsSuperseded = new Set<string>();
  /** The messages that carry decision controls, and what each showed. */
  readonly surfaces = new SurfaceBook();
  private readonly feedOffsets: number[] = [];

  /**
   * Adds one line of ours; `offset` is its byte offset or a lower bound of it.
   * Lines at or below the seq already indexed are skipped, so re-reading a
   * stretch of the file is harmless.
   */
  add(envelope: AuditEnvelope, entry: AuditEntry | null, hash: string, offset: number, proven = true): void {
    if (envelope.seq <= this.lastSeq && this.lastSeq > 0) return;
    this.lastSeq = envelope.seq;
    this.lastHash = hash;
    if (entry === null) return;
    const at = Date.parse(envelope.ts);
    this.noteShared(entry, at, envelope.seq, offset, proven);
    const updateId = "update_id" in entry ? entry.update_id : undefined;
    if (typeof updateId === "number") this.updates.set(updateId, Number.isFinite(at) ? at : 0);
    if (entry.kind === "notice") {
      const key =
        entry.reminder_for === undefined
          ? noticeKey(entry.draft_id, entry.status, entry.delivery)
          : reminderKey(entry.draft_id, entry.reminder_for);
      this.notices.set(key, at);
    }
    // A line the key does not prove (before the anchor: a log from before the key) makes no decision surface.
    if (proven || isSurfaceFree(entry)) this.notePost(entry);
    if (entry.kind !== "transition") return;
    const known = this.drafts.get(entry.draft_id);
    if (!known || known.version < entry.version) {
      this.drafts.set(entry.draft_id, audited(entry, at));
      this.draftLines.set(entry.draft_id, offset);
    }
    if (this.transitions++ % FEED_SAMPLE_EVERY === 0) {
      this.feedSeqs.push(envelope.seq);
      this.feedOffsets.push(offset);
    }
  }

  /** Adds one proven line of the other project source (the CLI's owner halts, for the daemon); older seqs are skipped. */
  addSibling(envelope: AuditEnvelope, entry: AuditEntry | null, hash: string, offset: number, proven = true): void {
    if (envelope.seq <= this.sibling.seq && this.sibling.seq > 0) return;
    this.sibling = { seq: envelope.seq, hash };
    if (entry !== null) this.noteShared(entry, Date.parse(envelope.ts), envelope.seq, offset, proven);
  }

  /** What both project sources' lines tell: the key anchor, owner halts. */
  private noteShared(entry: AuditEntry, at: number, seq: number, offset: number, proven: boolean): void {
    if (entry.kind === "key_anchor" && proven && this.anchor === null) this.anchor = { offset, seq };
    if (!Number.isFinite(at)) return;
    const later = this.halt === null || at >= this.halt.at;
    if (entry.kind === "owner_halt" && later) this.halt = { at, lasting: true };
    // A resume after a halt the log shows as lasting ends it (whether or not HALT was still there: fail closed, it was on until then);
    // only a proven line ends one.
    if (entry.kind === "owner_resume" && proven && later && (entry.changed || this.halt?.lasting === true))
      this.halt = { at, lasting: false };
  }

  /**
   * The last moment the log shows an owner's halt in force: a resume's time, or for a halt the log shows
   * as lasting, `startedAt` (the start that read it; the halt ended before it, at a time the log lacks).
   * A halt lasts in the log only until the daemon audits its end: HALT removed by hand gets its
   * `owner_resume` at the next look, or at the next start (owner/halt-removed.ts).
   */
  loggedHalt(startedAt: number): { at: number; reason: string } | null {
    if (this.halt === null) return null;
    const at = this.halt.lasting ? Math.max(this.halt.at, startedAt) : this.halt.at;
    return { at, reason: "an owner's halt recorded in the audit log: /halt or draft-review halt" };
  }

  /** True when the last owner's halt or resume the index knows is a halt: the log shows it lasting. */
  ownerHaltLasting(): boolean {
    return this.halt?.lasting === true;
  }

  /** The byte offset (or a lower bound of it) of the draft's last transition line, when known. */
  transitionLine(draftId: string): number | undefined {
    return this.draftLines.get(draftId);
  }

  /** The ids of the live drafts the index knows. */
  draftIds(): IterableIterator<string> {
    return this.drafts.keys();
  }

  /** True when a decision or refusal of this Telegram update is audited (or being audited). */
  hasSeenUpdate(updateId: number): boolean {
    return this.updates.has(updateId);
  }

  /** Claims an update id before its line is written; `release` undoes it when the write fails. */
  claimUpdate(updateId: number, at: number): void {
    this.updates.set(updateId, at);
  }

  /** Forgets a claimed update id whose line could not be written (a redelivery may try again). */
  releaseUpdate(updateId: number): void {
    this.updates.delete(updateId);
  }

  /** True when the reviewers were told about this draft in this status (`delivery`: about that delivery of several, in its status). */
  wasNotified(draftId: string, status: DraftStatus, delivery?: number): boolean {
    return this.notices.has(noticeKey(draftId, status, delivery));
  }

  /** Notes a notice that went out (before its line is written). */
  markNotified(draftId: string, status: DraftStatus, at: number, delivery?: number): void {
    this.notices.set(noticeKey(draftId, status, delivery), at);
  }

  /** True when the draft's reminder (REMIND_BEFORE) of this deadline went out. */
  wasReminded(draftId: string, expiresAt: string): boolean {
    return this.notices.has(reminderKey(draftId, expiresAt));
  }

  /** Notes a reminder that is going out (before its intent line is written). */
  markReminded(draftId: string, expiresAt: string, at: number): void {
    this.notices.set(reminderKey(draftId, expiresAt), at);
  }

  /** Forgets a reminder whose intent line could not be written (it is not posted). */
  unmarkReminded(draftId: string, expiresAt: string): void {
    this.notices.delete(reminderKey(draftId, expiresAt));
  }

  /** Takes a line about a review post into account (also before it is written: see the desk). */
  notePost(entry: AuditEntry): void {
    const max = (m: Map<string, number>, id: string, v: number) => m.set(id, Math.max(m.get(id) ?? 0, v));
    if (entry.kind === "status_due") max(this.postsDue, entry.draft_id, entry.version);
    else if (entry.kind === "status_shown") max(this.postsShown, entry.draft_id, entry.version);
    else if (entry.kind === "post_superseded") this.postsSuperseded.add(`${entry.draft_id}:${entry.review_message_id}`);
    else this.surfaces.note(entry);
  }

  /** True when an edit of the draft's review post is due and was not confirmed since (a crash came between). */
  statusEditOwed(draftId: string): boolean {
    return (this.postsDue.get(draftId) ?? 0) > (this.postsShown.get(draftId) ?? 0);
  }

  /** True when this replaced post of the draft is known to have lost its buttons. */
  supersededDone(draftId: string, reviewMessageId: number): boolean {
    return this.postsSuperseded.has(`${draftId}:${reviewMessageId}`);
  }

  /** The draft's last audited change, if the index knows it. */
  audited(draftId: string): AuditedDraft | undefined {
    return this.drafts.get(draftId);
  }

  /** Forgets drafts the store no longer holds (archived), with their notices. */
  retainDrafts(keep: (draftId: string) => boolean): void {
    for (const id of this.drafts.keys()) if (!keep(id) && this.drafts.delete(id)) this.pruned = true;
    for (const id of this.draftLines.keys()) if (!keep(id)) this.draftLines.delete(id);
    for (const key of this.notices.keys()) if (!keep(key.slice(0, key.lastIndexOf(":"))) && this.notices.delete(key)) this.pruned = true;
    for (const m of [this.postsDue, this.postsShown]) for (const id of m.keys()) if (!keep(id)) m.delete(id);
    for (const key of this.postsSuperseded) if (!keep(key.slice(0, key.lastIndexOf(":")))) this.postsSuperseded.delete(key);
    this.surfaces.retain(keep);
  }

  /** Forgets update ids older than UPDATE_MEMORY_MS before `now`. */
  pruneUpdates(now: number): void {
    for (const [id, at] of this.updates) if (at < now - UPDATE_MEMORY_MS) this.updates.delete(id);
  }

  /** A byte offset at or before the line of the first transition with seq > `after`. */
  feedStart(after: number): number {
    let lo = 0;
    let hi = this.feedSeqs.length;
    // The last sample whose seq <= after + 1.
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.feedSeqs[mid]! <= after + 1) lo = mid + 1;
      else hi = mid;
    }
    return lo === 0 ? 0 : this.feedOffsets[lo - 1]!;
  }

  /** Sizes, for logs and the benchmark. */
  get sizes(): { updates: number; notices: number; drafts: number; feedSamples: number } {
    return { updates: this.updates.size, notices: this.notices.size, drafts: this.drafts.size, feedSamples: this.feedSeqs.length };
  }

  /** The checkpoint's content. */
  snapshot(source: string): IndexSnapshot {
    this.pruned = false;
    return {
      v: 1,
      source,
      scanned_to: this.scannedTo,
      last_seq: this.lastSeq,
      last_hash: this.lastHash,
      head: this.head,
      transitions: this.transitions,
      // By id: concurrent decisions are claimed in one order and audited in another; the set is what counts.
      updates: [...this.updates].sort((a, b) => a[0] - b[0]),
      notices: [...this.notices],
      drafts: [...this.drafts].map(([id, d]) => [id, d.version, d.to] as [string, number, DraftStatus]),
      feed: this.feedSeqs.map((seq, i) => `${seq.toString(36)}.${this.feedOffsets[i]!.toString(36)}`).join(","),
      posts_due: [...this.postsDue],
      posts_shown: [...this.postsShown],
      posts_superseded: [...this.postsSuperseded].map((key) => {
        const at = key.lastIndexOf(":");
        return [key.slice(0, at), Number(key.slice(at + 1))] as [string, number];
      }),
      edit_prompts: [],
      surfaces: [...this.surfaces.all()],
      send_outcomes: [...this.drafts].flatMap(([id, { sendOutcome: o }]) =>
        o ? [[id, o.sentMessageId, o.reason, o.at] as [string, number | null, string | null, number | null]] : [],
      ),
      lines: this.linesBefore,
      anchor: this.anchor === null ? null : [this.anchor.offset, this.anchor.seq],
      sibling: [this.sibling.seq, this.sibling.hash],
      halt: this.halt === null ? null : [this.halt.at, this.halt.lasting],
      draft_lines: [...this.draftLines],
    };
  }

  /** An index from a checkpoint's content. */
  static fromSnapshot(s: IndexSnapshot): AuditIndex {
    const index = new AuditIndex();
    index.scannedTo = s.scanned_to;
    index.lastSeq = s.last_seq;
    index.lastHash = s.last_hash;
    index.head = s.head;
    index.transitions = s.transitions;
    for (const [id, at] of s.updates) index.updates.set(id, at);
    for (const [key, at] of s.notices) index.notices.set(key, at);
    for (const [id, version, to] of s.drafts) index.drafts.set(id, { version, to });
    for (const [id, sentMessageId, reason, at] of s.send_outcomes) {
      const known = index.drafts.get(id);
      if (known) index.drafts.set(id, { ...known, sendOutcome: { sentMessageId, reason, at } });
    }
    for (const [id, v] of s.posts_due) index.postsDue.set(id, v);
    for (const [id, v] of s.posts_shown) index.postsShown.set(id, v);
    for (const [id, m] of s.posts_superseded) index.postsSuperseded.add(`${id}:${m}`);
    for (const [m, draftId, textVersion] of s.edit_prompts)
      index.surfaces.note({ kind: "edit_prompt", message_id: m, draft_id: draftId, text_version: textVersion });
    index.surfaces.restore(s.surfaces);
    index.linesBefore = s.lines;
    index.anchor = s.anchor === null ? null : { offset: s.anchor[0], seq: s.anchor[1] };
    index.sibling = { seq: s.sibling[0], hash: s.sibling[1] };
    index.halt = s.halt === null ? null : { at: s.halt[0], lasting: s.halt[1] };
    for (const [id, offset] of s.draft_lines) index.draftLines.set(id, offset);
    for (const [seq, offset] of feedPairs(s.feed)) {
      index.feedSeqs.push(seq);
      index.feedOffsets.push(offset);
    }
    return index;
  }
}

/** A checkpoint's feed map as [seq, offset] pairs, packed or not (a packed one's shape is checked by FEED_PACKED: 10 base-36 digits stay below 2^53). */
export function feedPairs(feed: IndexSnapshot["feed"]): Array<[number, number]> {
  if (typeof feed !== "string") return feed;
  return unpackFeed(feed);
}

function unpackFeed(packed: string): Array<[number, number]> {
  if (packed === "") return [];
  return packed.split(",").map((pair) => {
    const dot = pair.indexOf(".");
    return [Number.parseInt(pair.slice(0, dot), 36), Number.parseInt(pair.slice(dot + 1), 36)];
  });
}
