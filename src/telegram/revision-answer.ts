import { notifyRoles } from "../drafts/notify-roles.js";
import type { DraftRecord } from "../drafts/record.js";

/**
 * Where a revision note went, as the review post's status says it (contract
 * v4, "one message per draft": the post's edit is the answer, no new
 * message). The roles are the event's `notify_roles` (the drafting role, then
 * one the note addresses as `Name: ...`). "Told" only once a delivery of the
 * event was acknowledged (a callback's 2xx, or a feed reader past its seq);
 * until then the note is only queued for them in the feed, and the line says so.
 */
export function revisionNoteLine(draft: Pick<DraftRecord, "drafted_by_role" | "revision_note">, told = false): string {
  const roles = notifyRoles(draft.drafted_by_role, draft.revision_note);
  const names = roles.length === 1 ? roles[0]! : `${roles.slice(0, -1).join(", ")} and ${roles.at(-1)!}`;
  return told ? `✉️ Told ${names}.` : `✉️ Queued for ${names}.`;
}
