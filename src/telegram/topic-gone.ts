import type { DraftRecord } from "../drafts/record.js";
import { draftAsKnown } from "./draft-naming.js";
import type { FormattedText } from "./review-format.js";

/**
 * The first line of a message about a draft whose review post went with its
 * deleted topic: such a message goes to the main thread and cannot reply to
 * the post, so it says why it is there and names the draft.
 */
export function goneTopicLead(draft: Pick<DraftRecord, "drafted_by_role" | "destination_chat_id" | "audience" | "draft_text">): string {
  return `🗂 The topic “${draft.drafted_by_role}” was deleted, and this draft's post with it: ${draftAsKnown(draft)}\n`;
}

/** `message` after `lead` (empty: unchanged), its entities moved along. */
export function withLead(lead: string, message: FormattedText): FormattedText {
  if (lead === "") return message;
  return { text: lead + message.text, entities: message.entities.map((e) => ({ ...e, offset: e.offset + lead.length })) };
}
