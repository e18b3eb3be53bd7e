import type { InlineKeyboardButton, MessageEntity } from "grammy/types";
import { TELEGRAM_TEXT_LIMIT } from "../drafts/payload.js";
import type { DraftRecord } from "../drafts/record.js";
import { AWAITING_DECISION } from "../drafts/status.js";
import { absoluteTime } from "../clock/local-time.js";
import { describeChange, REWRITE_SHARE, type ChangeView, type RichDiff } from "./word-diff.js";
import { hintsText } from "../redact/hints.js";

/**
 * The review post's parts for edits, revisions and the undo window: which
 * version this is and what changed, the countdown to the send, the ✏️ Edit and
 * ↩️ Undo buttons, the note on a replaced post, and the edit prompt.
 */

/** `14:03:12`, the time of day in REVIEW_TIMEZONE (undefined: the process's zone); see local-time.ts. */
export function clockTime(ms: number, timeZone?: string): string {
  return absoluteTime(ms, "T", timeZone);
}

function quote(note: string): string {
  const flat = note.replace(/\s+/g, " ").trim();
  return `“${flat.length <= 200 ? flat : `${flat.slice(0, 199)}…`}”`;
}

/** `“Title” (-100123) · forum topic #5`, or the bare chat id: where a draft goes, as data. */
function destinationName(d: { chat_id: string; thread_id: number | null; title: string | null }): string {
  const name = d.title === null ? `chat ${d.chat_id}` : `${quote(d.title)} (${d.chat_id})`;
  return d.thread_id === null ? name : `${name} · forum topic #${d.thread_id}`;
}

/**
 * "🔁 New version of the draft quoted above.", or, when another role drafted
 * the earlier one (any role may revise any draft), who revised whose:
 * "🔁 Margot's new version of Scribe's draft quoted above."
 */
export function revisesLine(draft: Pick<DraftRecord, "drafted_by_role" | "revises_role" | "revises_post">): string {
  const other = draft.revises_role !== null && draft.revises_role !== draft.drafted_by_role ? draft.revises_role : null;
  if (other === null)
    return draft.revises_post === null ? "🔁 New version of an earlier draft." : "🔁 New version of the draft quoted above.";
  const whose = `🔁 ${draft.drafted_by_role}'s new version of`;
  return draft.revises_post === null ? `${whose} an earlier draft by ${other}.` : `${whose} ${other}'s draft quoted above.`;
}

/**
 * Lines for the post of an edited draft (its version and the diff against the
 * version before) or of a new version of an earlier draft (whose draft it
 * revises, the reviewer's note on that one and the diff against its text).
 * A version that changed most of the words says it was rewritten instead of
 * a diff (contract v4, see REWRITE_SHARE). Empty for a first version.
 */
export function versionLines(draft: DraftRecord): string {
  const lines: string[] = [];
  if (draft.revises !== null) {
    // The post replies to the earlier one: its quote is one tap from there (a draft id is nothing the owner can use).
    lines.push(revisesLine(draft));
    if (draft.revises_note) lines.push(`Your note: ${quote(draft.revises_note)}`);
    const from = draft.revises_destination;
    if (from !== null) {
      const to = { chat_id: draft.destination_chat_id, thread_id: draft.destination_thread_id, title: draft.audience?.title ?? null };
      lines.push(`🎯 Destination changed: from ${destinationName(from)} to ${destinationName(to)}.`);
    }
  }
  const change = changeOf(draft);
  if (change?.kind === "rewrite") {
    // Most of the words changed: a word-by-word diff would be longer than either text; the post shows the new one in full.
    lines.push(
      draft.text_version > 1
        ? `✏️ Rewritten (version ${draft.text_version}): most of the words changed.`
        : "✏️ Rewritten: most of the words differ from the earlier draft.",
    );
    return lines.join("\n");
  }
  if (draft.text_version > 1) lines.push(editedLine(draft));
  if (change !== null) lines.push(change.kind === "none" ? "Changes: none in the words." : `Changes: ${change.diff.text}`);
  return lines.join("\n");
}

/**
 * The strikethrough and bold entities of the "Changes:" line in `header`
 * (see versionLines), at their offsets there; none without a diff.
 */
export function diffEntities(draft: DraftRecord, header: string): RichDiff["entities"] {
  const change = changeOf(draft);
  if (change?.kind !== "diff") return [];
  const at = header.indexOf(`Changes: ${change.diff.text}`);
  if (at < 0) return [];
  const start = at + "Changes: ".length;
  return change.diff.entities.map((e) => ({ ...e, offset: e.offset + start }));
}

/**
 * "👍 Approved · Sending at 14:03:12 · ↩️ Undo" while an approval waits out
 * UNDO_WINDOW; once the window is over at `now` and the send has not started
 * (Telegram's limits), "📤 Sending…" without Undo, which is refused by then.
 * Null without a window.
 */
export function countdownLine(draft: DraftRecord, time: (ms: number) => string = clockTime, now?: number): string | null {
  if (draft.status !== "approved" || draft.send_after === null) return null;
  const at = time(Date.parse(draft.send_after));
  if (!approvalUndoOpen(draft, now)) return `👍 Approved · 📤 Sending as soon as Telegram allows (the undo window closed at ${at}).`;
  return `👍 Approved · Sending at ${at} · ↩️ Undo`;
}

/** True while an approval's undo window runs at `now` (undefined: not judged by time). */
function approvalUndoOpen(draft: DraftRecord, now?: number): boolean {
  if (draft.status !== "approved" || draft.send_after === null) return false;
  return now === undefined || now < Date.parse(draft.send_after);
}

/** True when the review post shows ↩️ Undo for `draft` at `now`: an approval's or a revise's window runs. */
export function offersUndo(draft: DraftRecord, now: number): boolean {
  return approvalUndoOpen(draft, now) || reviseUndoUntil(draft, now) !== null;
}

/** Callback data of the ✏️ Edit and ↩️ Undo buttons. */
export function flowCallbackData(action: "edit" | "undo", draftId: string): string {
  return `v1:${action}:${draftId}`;
}

/** Until when a `revise` can be undone (ms), or null: not a revise, or its UNDO_WINDOW is over at `now`. */
export function reviseUndoUntil(draft: DraftRecord, now: number): number | null {
  if (draft.status !== "revise" || draft.revise_undo === null || draft.revised_by !== null) return null;
  const until = Date.parse(draft.revise_undo.until);
  return now < until ? until : null;
}

/**
 * The extra button rows: ✏️ Edit while a decision is awaited, ↩️ Undo while
 * an approval's or a revise's undo window runs (`now`, for the revise's).
 */
export function flowButtons(draft: DraftRecord, now?: number): InlineKeyboardButton[][] {
  if (AWAITING_DECISION.has(draft.status)) {
    // A text longer than one message cannot be offered to copy, nor come back in one reply: no ✏️ Edit (a 👎 with a note can).
    if (draft.draft_text.length > TELEGRAM_TEXT_LIMIT) return [];
    return [[{ text: "✏️ Edit", callback_data: flowCallbackData("edit", draft.draft_id) }]];
  }
  const undoable = approvalUndoOpen(draft, now) || (now !== undefined && reviseUndoUntil(draft, now) !== null);
  if (undoable) return [[{ text: "↩️ Undo", callback_data: flowCallbackData("undo", draft.draft_id) }]];
  return [];
}

/** How the post shows this version's change (null: a first version); the removed items put back always show as a diff. */
function changeOf(draft: DraftRecord): ChangeView | null {
  if (draft.previous_text === null) return null;
  return describeChange(draft.previous_text, draft.draft_text, draft.redaction?.restored === true ? Infinity : REWRITE_SHARE);
}

/** "✏️ Edited in review: version 2.", or for the version 🔓 made: "🔓 Version 2 keeps the removed items (phone ending 678)." */
function editedLine(draft: DraftRecord): string {
  if (draft.redaction?.restored !== true) return `✏️ Edited in review: version ${draft.text_version}.`;
  const hints = draft.redaction.hints ?? [];
  return `🔓 Version ${draft.text_version} keeps the removed items${hints.length > 0 ? ` (${hintsText(hints)})` : ""}.`;
}

/** The text a replaced review post is edited to: which version replaced it. */
export function supersededText(draft: DraftRecord): string {
  const v = draft.text_version;
  const how =
    draft.redaction?.restored === true
      ? `🔓 Replaced by version ${v} (the removed items kept)`
      : `✏️ Replaced by version ${v} (edited in review)`;
  return `${how}. Decide on the new post below; this one no longer counts.`;
}

/**
 * The ✏️ Edit prompt: the current text in a tap-to-copy block (a `pre`
 * entity, so no parse_mode reads the draft as markup), sent with a ForceReply.
 * A text too long for the line above it goes alone.
 */
export function editPrompt(draft: DraftRecord): { text: string; entities: MessageEntity[] } {
  const intro = `✏️ Edit version ${draft.text_version}: tap the text to copy it, change it, and send it as a reply to this message.\n\n`;
  const withIntro = intro.length + draft.draft_text.length <= TELEGRAM_TEXT_LIMIT;
  const offset = withIntro ? intro.length : 0;
  return {
    text: (withIntro ? intro : "") + draft.draft_text,
    entities: [{ type: "pre", offset, length: draft.draft_text.length }],
  };
}
