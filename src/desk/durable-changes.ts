/**
 * How the desk makes one change of a draft durable before anything is announced: the store (the
 * truth) first, then the audit log, both fsync'd, with the new post's surface and the owed status
 * edit in the same audit write; and what the desk's reads show of a draft while that is under way.
 * Apart from ReviewDesk because this ordering is the one promise a crash test leans on, and it reads
 * best on its own; the desk decides what changes, this file how a change is written.
 */
import type { AuditLog } from "../audit/audit-log.js";
import type { AuditEntry, PostEntry } from "../audit/audit-schema.js";
import type { Effect } from "../drafts/effects.js";
import type { DraftEvent } from "../drafts/events.js";
import type { Transition } from "../drafts/feed-event.js";
import type { DraftRecord } from "../drafts/record.js";
import type { DraftStatus } from "../drafts/status.js";
import type { JsonlStore } from "../store/jsonl-store.js";
import { transitionEntry } from "./audit-entries.js";
import { shownOfDraft, surfaceLine } from "./surfaces.js";

/** A new review post is a decision surface: its line goes with the `posted` change. */
function postSurface(draft: DraftRecord, event: { type: string }): AuditEntry[] {
  if (event.type !== "posted" || draft.review_chat_id === null || draft.review_message_id === null) return [];
  return [surfaceLine("decide", { chatId: draft.review_chat_id, messageId: draft.review_message_id }, shownOfDraft(draft))];
}

/** The `status_due` line of a change whose effects edit the review post (none otherwise). */
function statusDue(draft: DraftRecord, effects: readonly Effect[]): PostEntry[] {
  return effects.some((e) => e.type === "show_status") ? [{ kind: "status_due", draft_id: draft.draft_id, version: draft.version }] : [];
}

/** One change to write: the status it left, the new record, its event, and the effects it calls for. */
export interface Change {
  readonly from: DraftStatus | null;
  readonly draft: DraftRecord;
  readonly event: DraftEvent | { type: "created" };
  readonly previousText?: string | undefined;
  readonly effects?: readonly Effect[];
}

/** Writes the desk's changes in order (store, then audit log) and tells the listeners once both are durable. */
export class DurableChanges {
  /**
   * While a change is being made durable: what the desk's own reads may still show of that draft
   * (`before`, undefined: not yet created), and when the change is durable in the store and the
   * audit log both (`done`). The API waits for `done` (see ReviewDesk.find): it never answers an older
   * status than the store file, and the change's event is in the feed by then.
   */
  private readonly committing = new Map<string, { readonly before: DraftRecord | undefined; readonly done: Promise<void> }>();
  private readonly listeners = new Set<(t: Transition) => void>();

  constructor(
    private readonly store: JsonlStore<DraftRecord>,
    private readonly audit: AuditLog,
    /** Called once the store has the change, before the audit log does (the desk's index, its timers). */
    private readonly stored: (draft: DraftRecord) => void,
  ) {}

  /** Calls `listener` after every durable status change. Returns a function that unsubscribes. */
  onTransition(listener: (t: Transition) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Resolves once the change of `draftId` being made durable now (if any) is. */
  async settled(draftId: string): Promise<void> {
    await this.committing.get(draftId)?.done;
  }

  /** What the API shows of a live draft: its record, except while a change of it is not yet in the audit log. */
  published(draftId: string): DraftRecord | undefined {
    const committing = this.committing.get(draftId);
    return committing ? committing.before : this.store.latest.get(draftId);
  }

  /**
   * Resolves once every change being made durable now is in the store and the audit log both: the
   * store file may show it already, so the API's list waits for this before it reads (see ReviewDesk.find).
   */
  async committed(): Promise<void> {
    await Promise.all([...this.committing.values()].map((c) => c.done));
  }

  /**
   * The store (the truth) and the audit log, both fsync'd, at once: one fsync wait per change, not
   * two in a row. Only once both are durable is anything announced. A crash between the two leaves
   * one ahead, and the next start settles it either way: the store ahead is audited `recovered`
   * with the decision's actor (reconcileAudit); the audit log ahead gives the store the change back
   * from its line, which carries the whole record (app/store-restore.ts), so a reviewer's 👍 or 👎
   * is never dropped. The contract: an event is in the feed by the time its change shows through
   * GET /drafts/<id>.
   */
  async commit({ from, draft, event, previousText, effects = [] }: Change): Promise<void> {
    let done = (): void => {};
    this.committing.set(draft.draft_id, { before: this.store.latest.get(draft.draft_id), done: new Promise<void>((r) => (done = r)) });
    try {
      // The new post's surface is known at once (like every surface: see DecisionSurfaces.record), then on disk with its change.
      const surface = postSurface(draft, event);
      for (const line of surface) this.audit.index.notePost(line);
      // A change that edits the review post says so in the same write, so a crash before the edit is redone at start.
      const audited = this.audit.append([transitionEntry(from, draft, event, previousText), ...statusDue(draft, effects), ...surface]);
      audited.catch(() => {});
      await this.store.append([draft]);
      this.stored(draft);
      await audited;
    } finally {
      this.committing.delete(draft.draft_id);
      done();
    }
    const t: Transition = { draft_id: draft.draft_id, from, to: draft.status, version: draft.version, at: draft.updated_at };
    for (const listener of this.listeners) listener(t);
  }
}
