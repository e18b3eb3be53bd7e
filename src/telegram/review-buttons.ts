/**
 * The buttons of the review chat's messages and what their callback data says: the post's keyboard
 * (a send button naming its destination, one per destination when he picks one, ❌ Revise, ⏳ defer,
 * 🔓 Keep), the large-audience confirmation, the "ok"-reply question and "🤖 Send as the bot instead".
 * Apart from review-format.ts (the post's words) because buttons are what a tap is judged by: the
 * data they carry is read back here, untrusted, in one place.
 */
import type { InlineKeyboardButton, InlineKeyboardMarkup } from "grammy/types";
import { sendButtonText } from "../business/sender-text.js";
import { formatDuration } from "../config/duration.js";
import { withChoice } from "../drafts/choices.js";
import type { ConfirmNeed } from "../drafts/decide.js";
import type { Decision, DraftRecord } from "../drafts/record.js";
import { confirmQuestion, count, shortDestination } from "./audience-text.js";
import { flowButtons } from "./flow-format.js";
import { fanOutButtons, fanOutConfirmText, onList } from "./fan-out-format.js";
import { offersKeep, settled, type ReviewFormatOptions } from "./review-format.js";

/** What a button asks for: a decision, the confirmation of a 👍 for a large audience, ✏️ Edit, ↩️ Undo, 🤖 send as the bot instead, or 🔓 keep the removed items. */
export type ButtonAction = Decision | "confirm" | "edit" | "undo" | "asbot" | "keep" | "toggle";

/** Callback data of a button: a version, the action, and the draft it was made for. */
export function callbackData(action: ButtonAction, draftId: string): string {
  return `v1:${action}:${draftId}`;
}

/** Reads callback data back; it is untrusted, so anything unexpected is null. */
export function readCallbackData(
  data: string | undefined,
): { action: ButtonAction; decision: Decision | null; draftId: string; confirmed: boolean; destination?: number } | null {
  // "Send to N" among several destinations (contract v5): a send, naming its destination.
  const to = /^v1:to([1-5]):([A-Za-z0-9_-]{1,56})$/.exec(data ?? "");
  if (to) return { action: "send", decision: "send", draftId: to[2]!, confirmed: false, destination: Number(to[1]) };
  // A destination's toggle when he picks any of them: no decision, it turns that one on or off.
  const tg = /^v1:tg([1-5]):([A-Za-z0-9_-]{1,56})$/.exec(data ?? "");
  if (tg) return { action: "toggle", decision: null, draftId: tg[2]!, confirmed: false, destination: Number(tg[1]) };
  const m = /^v1:(send|revise|defer|confirm|edit|undo|asbot|keep):([A-Za-z0-9_-]{1,56})$/.exec(data ?? "");
  if (!m) return null;
  const action = m[1] as ButtonAction;
  const confirmed = action === "confirm";
  const decision =
    confirmed || action === "asbot" ? "send" : action === "edit" || action === "undo" || action === "keep" ? null : (action as Decision);
  return { action, decision, draftId: m[2]!, confirmed };
}

/**
 * The buttons under a review message while it awaits a decision; none after.
 * The send button names the destination, so the message that carries the
 * decision says where it goes whatever the draft's text says.
 */
export function reviewKeyboard(
  draft: DraftRecord,
  options: Pick<ReviewFormatOptions, "deferForMs"> & { now?: () => number },
): InlineKeyboardMarkup {
  if (settled(draft)) return { inline_keyboard: flowButtons(draft, options.now?.()) };
  // While the halt that stopped it lasts, a 👍 could only halt again: none is offered (see haltedLine).
  const send =
    draft.status === "halted" && draft.halt_lasts
      ? []
      : draft.choose === "any"
        ? fanOutButtons(draft)
        : draft.choices !== null
          ? choiceButtons(draft)
          : [[sendButton(draft)]];
  return {
    inline_keyboard: [
      ...send,
      [
        { text: "❌ Revise", callback_data: callbackData("revise", draft.draft_id), style: "danger" },
        { text: `⏳ +${formatDuration(options.deferForMs)}`, callback_data: callbackData("defer", draft.draft_id) },
        ...flowButtons({ ...draft, status: "pending" }).flat(),
      ],
      ...(offersKeep(draft) ? [[{ text: "🔓 Keep the removed items", callback_data: callbackData("keep", draft.draft_id) }]] : []),
    ],
  };
}

/** Among several destinations: one send button each, numbered as the post lists them ("👍 Send to 2 · #design"). */
function choiceButtons(draft: DraftRecord): InlineKeyboardButton[][] {
  return (draft.choices ?? []).map((c) => {
    const view = withChoice(draft, c.index) ?? draft;
    const text = `👍 Send to ${c.index} · ${shortDestination(view)}`;
    return [{ text, callback_data: `v1:to${c.index}:${draft.draft_id}`, style: "success" } as InlineKeyboardButton];
  });
}

/** The one 👍 button of a draft with one destination. */
function sendButton(draft: DraftRecord): InlineKeyboardButton {
  return { text: sendLabel(draft), callback_data: callbackData("send", draft.draft_id), style: "success" } as InlineKeyboardButton;
}

/**
 * The confirmation asked after a 👍 for a large audience: its text and its one button. Among several destinations
 * on (choose any) it names each that asks the tap (`needs`), and its button says where the tap sends.
 */
export function confirmMessage(
  draft: DraftRecord,
  needs: readonly ConfirmNeed[] = [],
): { text: string; markup: InlineKeyboardMarkup; question: string } {
  const members = draft.audience?.member_count;
  const fanOut = fanOutConfirmText(draft, needs);
  const label =
    fanOut !== null
      ? `✅ Yes, send to ${onList(draft)}`
      : members === null || members === undefined
        ? "✅ Yes, send"
        : `✅ Yes, send to ${count(members)} members`;
  const text = fanOut ?? confirmQuestion(draft);
  return {
    text,
    question: text,
    markup: { inline_keyboard: [[{ text: label, callback_data: callbackData("confirm", draft.draft_id), style: "success" }]] },
  };
}

/** The 👍 button's text: who sends, to whom ("👍 Send as you to Anna", "👍 Send to Team"); every send button says it. */
function sendLabel(draft: DraftRecord): string {
  const destination = shortDestination(draft);
  return sendButtonText(draft, destination) ?? `👍 Send to ${destination}`;
}

/**
 * The question a reply that is only an approval word ("ok") gets: what it
 * meant, send or revise with that reply as the note. The reply is quoted as
 * data (no parse_mode).
 */
export function askMessage(draft: DraftRecord, note: string): { text: string; markup: InlineKeyboardMarkup; question: string } {
  const quoted = `“${note}”`;
  // Sent to any of several: the 👍 goes to those on, as the post shows them.
  const where = draft.choose === "any" ? `the destinations on (${onList(draft)})` : shortDestination(draft);
  const question = `You replied ${quoted}. Send the draft to ${where}, or send it back for revision with ${quoted} as the note?`;
  return {
    question,
    text: `${question} Nothing happens until you choose.`,
    markup: {
      inline_keyboard: [
        [
          {
            text: draft.choose === "any" ? `👍 Send to ${onList(draft)}` : sendLabel(draft),
            callback_data: callbackData("send", draft.draft_id),
            style: "success",
          },
        ],
        [{ text: `✍️ Revise: ${quoted}`, callback_data: callbackData("revise", draft.draft_id), style: "danger" }],
      ],
    },
  };
}

/** The button under the notice of a draft the owner's identity could not send (a new approval, as the bot). */
export function asBotMarkup(draft: DraftRecord): InlineKeyboardMarkup {
  return { inline_keyboard: [[{ text: "🤖 Send as the bot instead", callback_data: callbackData("asbot", draft.draft_id) }]] };
}
