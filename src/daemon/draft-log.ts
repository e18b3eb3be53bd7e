import type { Transition } from "../drafts/feed-event.js";
import type { DraftRecord } from "../drafts/record.js";

/** The info level of the daemon's logger (pino's). */
export interface InfoLog {
  info(obj: object, msg: string): void;
}

/** What a change of status is, as the operator reads the log. */
function kindOf(t: Transition): string {
  if (t.from === null) return "draft created";
  if (t.from === "revise" && t.to === "revise") return "revision note added";
  if (t.to === "approved" || t.to === "revise" || t.to === "deferred") return "draft decided";
  if (t.to === "sending") return "draft sending";
  if (t.to === "sent") return "draft sent";
  if (t.to === "failed" || t.to === "outcome_unknown" || t.to === "halted") return "draft not sent";
  if ((t.from === "approved" || t.from === "revise") && t.to === "pending") return "decision undone";
  return "draft status changed";
}

/**
 * One info line per change of a draft: created, decided, sent (or not), and
 * the rest, with ids and statuses, never the draft's text or a note. Attach
 * it with `desk.onTransition`; `get` reads the record after the change.
 */
export function logDraftChanges(log: InfoLog, get: (draftId: string) => DraftRecord | undefined): (t: Transition) => void {
  return (t) => {
    const d = get(t.draft_id);
    log.info(
      {
        draft_id: t.draft_id,
        from: t.from,
        to: t.to,
        version: t.version,
        role: d?.drafted_by_role,
        destination_chat_id: d?.destination_chat_id,
        review_message_id: d?.review_message_id ?? null,
        ...(d?.decided_by ? { decided_by: d.decided_by.user_id, channel: d.decided_by.channel } : {}),
        ...(d?.sent_message_id ? { sent_message_id: d.sent_message_id } : {}),
      },
      kindOf(t),
    );
  };
}
