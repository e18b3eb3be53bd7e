import { notifyRoles } from "../drafts/notify-roles.js";
import type { DraftRecord } from "../drafts/record.js";

/**
 * The review chat's answer to a revision note: where the note went. The roles
 * are the event's `notify_roles` (the drafting role, then one the note
 * addresses as `Name: ...`). "told" only when a delivery of the event was
 * acknowledged (a callback's 2xx, or a feed reader past its seq); until then
 * the note is only queued for them in the feed, and the answer says so.
 */
export function revisionAnswer(draft: Pick<DraftRecord, "drafted_by_role" | "revision_note">, delivered = false): string {
  const roles = notifyRoles(draft.drafted_by_role, draft.revision_note);
  const names = roles.length === 1 ? roles[0]! : `${roles.slice(0, -1).join(", ")} and ${roles.at(-1)!}`;
  return delivered ? `✍️ Sent back for revision; told ${names}.` : `✍️ Sent back for revision; queued for ${names}.`;
}
