import type { Decision, DraftRecord } from "../drafts/record.js";
import { isFinal } from "../drafts/status.js";
import { localMinute } from "../clock/local-time.js";
import { reviewLink } from "../owner/pending-text.js";

/** What a reviewer did that did not count. */
export type ActionKind = "decide" | "edit" | "prompt" | "undo" | "restore" | "toggle";

/**
 * The answer to an action on a message that is not a draft's live review post
 * (replaced by an edit, an orphan a crash left, a reminder or question the
 * draft left behind, a notice): why it did not count, and where the live post
 * is. It goes as a reply to the live post, so tapping its quote jumps there;
 * in a supergroup it also carries the post's t.me link.
 */
export function liveAnswer(draft: DraftRecord | undefined, why: LiveAnswerWhy = "outdated"): string {
  if (!draft && why === "outdated") {
    return "⚠️ Not applied: that message is not a live review post (it may be one a restart left behind). /pending lists the drafts awaiting you.";
  }
  return `⚠️ Not applied: ${WHY[why]}${livePointer(draft)}`;
}

/** Why an action on a message did not count. */
export type LiveAnswerWhy =
  | "outdated"
  | "reminder_outdated"
  | "question_outdated"
  | "edit_prompt"
  | "edit_prompt_retired"
  | "wrong_surface"
  | "used"
  | "notice"
  | "post_part"
  | "own_message";

const WHY: Record<LiveAnswerWhy, string> = {
  outdated: "that post is out of date",
  reminder_outdated: "that reminder is out of date",
  question_outdated: "that question no longer applies",
  // A 👍 (or a reply 👍) on an edit prompt: it asks for a new text, and a decision is made on the review post.
  edit_prompt: "the edit prompt only takes a new text (👍 alone is none); decisions are made on the review post",
  // A new text replied to an ✏️ Edit prompt the draft left behind (another version, a decision): it says so itself.
  edit_prompt_retired: "that ✏️ Edit prompt no longer applies (the draft changed since); tap ✏️ Edit on the live post for a new one",
  wrong_surface: "that message does not take this action",
  used: "that question was answered already or no longer applies; it counts once",
  notice: "that message only tells; it takes no decision",
  post_part: "that message is part of a long draft's post; only its last message, the one with the buttons, takes decisions",
  own_message: "that message of mine takes no decision",
};

/** ". Decide on the live post, version 2: <link>", or what became of the draft; `draft` undefined: /pending. */
function livePointer(draft: DraftRecord | undefined): string {
  if (!draft) return ". /pending lists the drafts awaiting you.";
  if (isFinal(draft.status)) return `; this draft is ${draft.status} now.`;
  if (draft.review_message_id === null || draft.review_chat_id === null) {
    return `. Version ${draft.text_version} of this draft is being posted; decide on the new post.`;
  }
  const link = reviewLink(draft.review_chat_id, draft.review_message_id);
  return `. Decide on the live post, version ${draft.text_version}${link ? `: ${link}` : " (the message this replies to)"}.`;
}

/** The answer to a reaction or a reply on a question: only its buttons answer it. */
export const TAP_A_BUTTON =
  "⚠️ Not applied: that question is answered by its buttons only; a reaction or a reply changes nothing. Tap a button.";

/** The answer to a refused action that the reviewer should hear about, or null for none; `decision`: the one refused, if any. */
export function refusalAnswer(
  kind: ActionKind,
  reason: string,
  draft: DraftRecord | undefined,
  decision: Decision | null = null,
): string | null {
  const status = draft?.status ?? "unknown";
  if (reason === "archived") {
    // In REVIEW_TIMEZONE, like every time the reviewer reads.
    const at = draft ? ` ${localMinute(Date.parse(draft.updated_at))}` : "";
    return `⚠️ Not applied: this draft is archived (${status}${at}, older than DRAFT_RETENTION) and can no longer change.`;
  }
  if (kind === "undo") return undoAnswer(reason, status, draft);
  if (kind === "restore") return keepAnswer(reason, status);
  if (kind === "toggle" && (reason === "already_approved" || reason === "final_state"))
    return `⚠️ Not applied: the draft is ${status}, so its destinations can no longer be turned on or off${status === "approved" ? " (↩️ Undo within the undo window first)" : ""}.`;
  if (kind === "edit" || kind === "prompt") {
    switch (reason) {
      case "edit_empty":
        return "✏️ Not applied: the edited text is empty. Reply with ✏️ followed by the new text.";
      case "edit_too_long":
        return "✏️ Not applied: the edited text is longer than Telegram's 4096 characters (after PII redaction). Shorten it and try again.";
      case "text_unchanged":
        return "✏️ Not applied: the edited text is the same as the current one.";
      case "already_approved":
        return "✏️ Not applied: the draft is already approved. Undo (↩️) within the undo window to edit it.";
      default:
        return `✏️ Not applied: the draft is ${status}; only a draft awaiting a decision can be edited.`;
    }
  }
  if (reason.startsWith("note_") && draft) return noteAnswer(reason, draft);
  if (reason === "halted" && draft)
    return `⛔ Still not sent: sends are halted (${draft.reason ?? "kill switch"}), and a 👍 now does not count. 👍 Send comes back on the post when the halt ends.`;
  if (reason === "not_a_choice") return choiceAnswer(draft);
  if (reason === "no_destination_on")
    return "⚠️ Not sent: no destination is on. Turn on at least one destination (tap it on the post), then 👍.";
  if (reason === "destinations_fixed")
    return "⚠️ Not applied: some destinations were sent to already, so the choice is fixed. 👍 sends the rest; ❌ Revise stops there.";
  if (reason === "already_approved") return approvedAnswer(status, decision);
  // An "ok" replied to an approved draft's post: it is approved already.
  if (reason === "not_awaiting_decision" && (status === "approved" || status === "sending")) return approvedAnswer(status, "send");
  if (reason === "expired" || (reason === "final_state" && status === "expired")) return "⌛ Not applied: the draft has expired.";
  // A decision on a final draft (a 👍 after a revise whose undo window is over, an "ok" after the send): said, not silent.
  if (reason === "final_state" || reason === "not_awaiting_decision") return finalAnswer(status);
  return null;
}

/** The answer to an undo that was refused: too late (and what became of the draft), not the reviewer's, or nothing to undo. */
function undoAnswer(reason: string, status: string, draft: DraftRecord | undefined): string | null {
  if (reason === "undo_closed" || reason === "final_state") {
    if (status === "sent") return "↩️ Too late to undo: the draft was already sent.";
    // Its window, as the post showed it, is over: the send follows at once.
    if (status === "approved" || status === "sending") return "↩️ Too late to undo: the undo window is over and the draft is being sent.";
    // The post still shows its dated "↩️ Undo until …" (no edit takes it off when the window ends): say what became of it.
    if (status === "revise" && draft?.revise_undo)
      return `↩️ Too late to undo: the undo window is over and the draft went back to ${draft.drafted_by_role} for revision.`;
    return `↩️ Too late to undo: the draft is ${status}.`;
  }
  if (reason === "not_your_decision")
    return "↩️ Not undone: taking a reaction away undoes only your own decision, and another reviewer decided this draft. ↩️ Undo on the post takes it back.";
  // An undo of a draft that awaits a decision (nothing approved or sent back): said, not silent.
  if (reason === "not_applicable" && draft !== undefined) return `↩️ Nothing to undo: the draft is ${status}.`;
  return null;
}

/**
 * A decision on a draft approved already: a 👍 again is told where the send
 * stands; a 👎 or 😴 came when the approval could no longer be undone (before
 * that it would have undone it), and the owner must know the draft still goes
 * out, and what still stops it: /halt, checked at the send call.
 */
function approvedAnswer(status: string, decision: Decision | null): string {
  if (status === "sending")
    return decision === "send" ? "👍 Already approved: its send has started." : "⚠️ Not applied: the draft's send has started.";
  if (decision === "send") return "👍 Already approved: it goes out as its post shows.";
  return "⚠️ Not applied: the draft is approved and can no longer be undone, so it goes out as its post shows. /halt stops every send not yet made.";
}

/** A number that names no destination of the post: what the post lists, and that nothing was sent. */
function choiceAnswer(draft: DraftRecord | undefined): string {
  const n = draft?.choices?.length ?? 0;
  if (draft?.choose === "any")
    return `⚠️ Not applied: this post sends to any of ${n} destinations with its toggles, not to one by number. Tap a destination to turn it on or off, then 👍.`;
  if (n === 0)
    return "⚠️ Not applied: this draft has one destination, so a number picks nothing. 👍 sends it; a note (not just a number) sends it back for revision.";
  return `⚠️ Not applied: the post lists destinations 1 to ${n}. Reply with one of those numbers, or tap its button. Nothing was sent.`;
}

function finalAnswer(status: string): string {
  if (status === "sent") return "⚠️ Not applied: this draft was already sent.";
  if (status === "revise") return "⚠️ Not applied: this draft was sent back for revision; its new version comes as a new post.";
  return `⚠️ Not applied: the draft is ${status} and takes no more decisions.`;
}

/**
 * Why a note given after a 👎 did not reach the roles (see the machine's
 * noteOnRevise), said plainly, with what to do instead: it is never dropped
 * without a word.
 */
function noteAnswer(reason: string, draft: DraftRecord): string {
  const lost = `⚠️ Your note was NOT passed on to ${draft.drafted_by_role}`;
  const later = "give it when you review its next version (reply to that post)";
  switch (reason) {
    case "note_superseded":
      return `${lost}: a newer version of this draft replaced it. Reply with your note to the newer version's post.`;
    case "note_already_given":
      return (
        `${lost}: the draft was sent back with a note already (shown on its post), and that one stands. ` +
        `To change it, tap ↩️ Undo while the post offers it and send it back again with the whole note; otherwise ${later}.`
      );
    default: {
      const why = draft.revise_undo === null ? "there was no ↩️ Undo window (UNDO_WINDOW is 0)" : "its ↩️ Undo window is over";
      return `${lost}: the draft was sent back without a note and ${why}, so a note can no longer be added. Instead, ${later}.`;
    }
  }
}

/** Why "🔓 Keep the removed items" did not apply, and what to do instead. */
function keepAnswer(reason: string, status: string): string {
  switch (reason) {
    case "removed_items_gone":
      return "🔓 Not applied: the removed items are no longer kept (their file is missing or damaged), so nothing was changed. Reply ✏️ with the text as it should be.";
    case "restore_too_long":
      return "🔓 Not applied: with the removed items the text is longer than Telegram's 4096 characters. Reply ✏️ with a shorter text.";
    case "already_approved":
      return "🔓 Not applied: the draft is already approved. Undo (↩️) within the undo window first.";
    case "expired":
      return "⌛ Not applied: the draft has expired.";
    case "nothing_removed":
      return "🔓 Not applied: this version has no removed items to keep.";
    default:
      return `🔓 Not applied: the draft is ${status}; removed items can be kept only while it awaits a decision.`;
  }
}
