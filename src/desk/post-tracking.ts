import type { AuditEntry, AuditEntryOf } from "../audit/audit-schema.js";
import type { DraftRecord } from "../drafts/record.js";

/** One audit line about a review post that is not a status change (see audit-schema.ts). */
export type PostLine = AuditEntryOf<"status_due" | "status_shown" | "post_superseded" | "edit_prompt">;

/** An edit prompt: the draft it offers, and the text version it showed. */
export interface EditPrompt {
  readonly draftId: string;
  readonly textVersion: number;
}

/**
 * What the review chat shows, as far as the audit log knows: which status
 * edits are due and done, which replaced posts lost their buttons, and the
 * edit prompts sent. A crash between a change and its edit leaves a due edit
 * undone; the start redoes it (see `resumeDrafts`), so no final draft keeps
 * live buttons.
 */
export class PostTracking {
  private readonly due = new Map<string, number>();
  private readonly shown = new Map<string, number>();
  private readonly superseded = new Set<string>();
  readonly prompts = new Map<number, EditPrompt>();

  /** Reads the entries the audit log has (other kinds, and lines it could not read, are skipped). */
  constructor(entries: Iterable<AuditEntry | null>) {
    for (const entry of entries) if (entry !== null) this.note(entry);
  }

  /** Takes one audit entry into account. */
  note(entry: AuditEntry): void {
    switch (entry.kind) {
      case "status_due":
        this.due.set(entry.draft_id, Math.max(this.due.get(entry.draft_id) ?? 0, entry.version));
        return;
      case "status_shown":
        this.shown.set(entry.draft_id, Math.max(this.shown.get(entry.draft_id) ?? 0, entry.version));
        return;
      case "post_superseded":
        this.superseded.add(`${entry.draft_id}:${entry.review_message_id}`);
        return;
      case "edit_prompt":
        this.prompts.set(entry.message_id, { draftId: entry.draft_id, textVersion: entry.text_version });
        return;
    }
  }

  /** True when an edit of the draft's post is due and was not confirmed since. */
  statusEditOwed(draft: DraftRecord): boolean {
    return (this.due.get(draft.draft_id) ?? 0) > (this.shown.get(draft.draft_id) ?? 0);
  }

  /** The replaced posts of `draft` that may still show buttons. */
  supersededOwed(draft: DraftRecord): number[] {
    return draft.superseded_posts.filter((m) => !this.superseded.has(`${draft.draft_id}:${m}`));
  }
}
