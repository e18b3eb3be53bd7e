import { notifyRoles } from "../drafts/notify-roles.js";
import type { DraftRecord } from "../drafts/record.js";

/**
 * The review chat's answer to a revision note: who was told. The roles are
 * the event's `notify_roles` (the drafting role, then one the note addresses
 * as `Name: ...`), so the reviewer sees where the note went.
 */
export function revisionAnswer(draft: Pick<DraftRecord, "drafted_by_role" | "revision_note">): string {
  const roles = notifyRoles(draft.drafted_by_role, draft.revision_note);
  const told = roles.length === 1 ? roles[0]! : `${roles.slice(0, -1).join(", ")} and ${roles.at(-1)!}`;
  return `✍️ Sent back for revision; told ${told}.`;
}
