import type { DraftPayload } from "../drafts/payload.js";
import type { DraftRecord } from "../drafts/record.js";
import type { NewDraftFacts } from "../drafts/create.js";

/** What intake reads to check `revises`: the store, then the archive. */
export interface RevisesLookup {
  get(draftId: string): DraftRecord | undefined;
  find(draftId: string): Promise<DraftRecord | undefined>;
}

/** The earlier draft a payload replaces (null: none named), whether it is archived, or why it cannot be replaced. */
export type RevisesCheck =
  | { readonly ok: true; readonly earlier: DraftRecord | null; readonly archived: boolean }
  | { readonly ok: false; readonly error: string };

/**
 * Checks a payload's `revises` (contract v2). The earlier draft is found in
 * the store or, once final and older than DRAFT_RETENTION, in the archive; an
 * unknown id is the one refusal the contract makes. Any role may revise any
 * role's draft (contract v2, again in v4: Margot re-researches Scribe's
 * draft); the new post says whose draft it replaces (see versionLines), so a
 * role cannot pass its text off silently. A draft made in test mode and one
 * made live never replace each other (a live desk does not see test-mode
 * drafts at all; test mode never changes a live draft).
 */
export async function checkRevises(payload: DraftPayload, drafts: RevisesLookup, mode: { testMode: boolean }): Promise<RevisesCheck> {
  const id = payload.revises;
  if (id === null) return { ok: true, earlier: null, archived: false };
  const live = drafts.get(id);
  const earlier = live ?? (await drafts.find(id));
  if (!earlier || (earlier.test_mode && !mode.testMode)) {
    return { ok: false, error: `revises: no draft ${id}; name the draft_id of an earlier draft` };
  }
  if (mode.testMode && !earlier.test_mode) {
    return { ok: false, error: `revises: draft ${id} was made by the live daemon; a draft made in test mode cannot replace it` };
  }
  return { ok: true, earlier, archived: live === undefined };
}

/** What the new draft keeps of the one it replaces: its text and note for the diff, its role, and its destination if this one goes elsewhere. */
export function revisesFacts(earlier: DraftRecord, payload: DraftPayload): NonNullable<NewDraftFacts["revises"]> {
  const moved =
    earlier.destination_chat_id !== payload.destination_chat_id || earlier.destination_thread_id !== payload.destination_thread_id;
  return {
    draftId: earlier.draft_id,
    text: earlier.draft_text,
    note: earlier.revision_note,
    post: earlier.review_message_id,
    role: earlier.drafted_by_role,
    destination: moved
      ? { chat_id: earlier.destination_chat_id, thread_id: earlier.destination_thread_id, title: earlier.audience?.title ?? null }
      : null,
  };
}
