import { createHash } from "node:crypto";
import type { DraftRecord } from "../drafts/record.js";
import { senderKindOf } from "../drafts/sender.js";
import { sendIdentity } from "../drafts/audience.js";

/** sha256 (hex) of a text, as UTF-8: what an approval binds to. */
export function textSha256(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

/**
 * Checks, at the moment of sending, that the draft carries a reviewer's
 * approval of exactly the text about to be sent. Returns why not, or null.
 * The hash is computed again from the text itself, not taken from the record.
 */
export function approvalProblem(draft: DraftRecord, reviewerIds: ReadonlySet<number>): string | null {
  const approval = draft.approval;
  if (approval === null) return "no approval is recorded";
  if (!reviewerIds.has(approval.actor.user_id)) {
    return `the approval came from user ${approval.actor.user_id}, who is not a reviewer now`;
  }
  const actual = textSha256(draft.draft_text);
  if (approval.text_sha256 !== actual || draft.text_sha256 !== actual) {
    return "the text differs from the text that was approved";
  }
  const approvedAs = approval.sender ?? "bot";
  if (approvedAs !== senderKindOf(draft)) return `the approval was for sending as ${approvedAs}, not as ${senderKindOf(draft)}`;
  // The account, its connection and the reply the approving message showed (older approvals recorded none).
  if (approval.identity !== undefined && approval.identity !== sendIdentity(draft)) {
    return "the approval was for another account, connection or reply than this send would use";
  }
  return null;
}
