import type { SurfaceState } from "../audit/audit-schema.js";
import type { Decision, DraftRecord } from "../drafts/record.js";
import { timed, timeMark } from "../clock/local-time.js";
import { shortDestination } from "./audience-text.js";
import { shiftEntities } from "../drafts/draft-entities.js";
import { isFinal } from "../drafts/status.js";
import { reviewFooter, type FormattedText, type ReviewFormatOptions } from "./review-format.js";

/**
 * The ⏰ reminder, and the words of a question or reminder that counts no
 * more: what was chosen on it, or what became of its draft. Said in the
 * message's own text, with its times under date_time entities, so nothing in
 * the review chat keeps looking actionable after it stopped being so.
 */

/**
 * The REMIND_BEFORE reminder, sent as a reply to the draft's post so that it
 * notifies: when the draft expires (a date_time entity: the client counts
 * down), and that a decision here counts as on the post (its buttons are the
 * post's, and its legend of reactions when the post shows one).
 */
export function reminderMessage(draft: DraftRecord, options: ReviewFormatOptions): FormattedText {
  const when = timeMark(Date.parse(draft.expires_at), "r", options.timeZone, options.now());
  // The legend of reactions as its post shows it: once a day, not again on each reminder (issue 35, point 9).
  const legend = options.legend?.(draft) === false ? "" : ` ${reviewFooter(options)}.`;
  return timed(
    `⏰ Reminder: this draft (${draft.drafted_by_role}, for ${shortDestination(draft)}) expires `,
    when,
    ` and is not sent unless you decide, here or on its post.${legend}`,
  );
}

/** What a tap on a question chose, in the words the question's edit keeps ("✅ You chose: send."). */
function chosenLine(surface: SurfaceState, chose: Decision): string {
  if (surface.asks === "asbot") return "🤖 You chose: send it as the bot.";
  if (chose === "revise") return `✍️ You chose: send it back for revision${surface.note ? `, with “${surface.note}” as the note` : ""}.`;
  return chose === "defer" ? "😴 You chose: defer." : "✅ You chose: send.";
}

/**
 * What became of a draft, for a question or a reminder it left behind ("the
 * draft was sent at …"): said in the message's own text, so a tap on it is
 * never a trap.
 */
export function draftFate(
  draft: DraftRecord,
  surface: SurfaceState,
  options: Pick<ReviewFormatOptions, "now" | "timeZone">,
): FormattedText {
  const at = (iso: string) => timeMark(Date.parse(iso), "wdt", options.timeZone, options.now());
  switch (draft.status) {
    case "sent":
      return timed(`the draft was sent${draft.sent_as === "owner" ? " as you" : ""} at `, at(draft.sent_at ?? draft.updated_at));
    case "approved":
    case "sending":
      return timed("the draft was approved at ", at(draft.approval?.at ?? draft.updated_at), "; its post shows the send");
    case "halted":
      return timed("the draft is halted; its post says why");
    case "revise":
      return timed("the draft was sent back for revision");
    case "expired":
      return timed("the draft expired at ", at(draft.expires_at), ", unsent");
    case "failed":
    case "outcome_unknown":
      return timed(`the send ${draft.status === "failed" ? "failed" : "has an unknown outcome"}; its post says more`);
    default:
      if (draft.text_version !== surface.text_version) return timed(`the draft was edited: version ${draft.text_version} is its new post`);
      if (surface.until !== undefined && Date.parse(draft.expires_at) !== surface.until) {
        return timed("the draft was deferred until ", at(draft.expires_at));
      }
      return timed("who will read it, or who sends it, changed; its post shows it now");
  }
}

/**
 * What a reminder says under its head once it shows no buttons: an approval waiting out its window is no
 * "no longer applies" (the reminder still takes a 👍 taken back, and the post shows the send time and ↩️ Undo);
 * anything else is what became of the draft.
 */
function reminderTail(
  draft: DraftRecord,
  options: Pick<ReviewFormatOptions, "now" | "timeZone">,
  fate: (lead: string) => FormattedText,
): FormattedText {
  if (draft.status !== "approved") return fate("No longer applies: ");
  const at = timeMark(Date.parse(draft.approval?.at ?? draft.updated_at), "wdt", options.timeZone, options.now());
  return timed("👍 Approved at ", at, ": its post shows the send time and ↩️ Undo.");
}

/** What a question said before it was used or overtaken, when it did not record its words (an older one). */
const QUESTION_WORDS: Partial<Record<SurfaceState["asks"], string>> = {
  confirm: "Send to all its members?",
  ask: "Send the draft, or send it back for revision?",
  asbot: "🤖 Send it as the bot instead?",
};

/**
 * A question or a reminder that counts no more, as its edit shows it: what
 * it asked, then what was chosen on it (`chose`) or what became of the draft.
 */
export function closedMessage(
  surface: SurfaceState,
  draft: DraftRecord,
  chose: Decision | null,
  options: Pick<ReviewFormatOptions, "now" | "timeZone">,
): FormattedText {
  const fate = (lead: string) => {
    const f = draftFate(draft, surface, options);
    return { text: `${lead}${f.text}.`, entities: f.entities.map((e) => ({ ...e, offset: e.offset + lead.length })) };
  };
  if (surface.asks === "remind") {
    // Expired at the deadline it named: its fate says when, once ("due to expire 14:00 … expired at 14:00" said it twice).
    const expiredThen = draft.status === "expired" && surface.until === Date.parse(draft.expires_at);
    const due =
      surface.until === undefined || expiredThen
        ? []
        : [", due to expire ", timeMark(surface.until, "wdt", options.timeZone, options.now())];
    const head = timed(`⏰ Reminder: ${draft.drafted_by_role}'s draft for ${shortDestination(draft)}`, ...due, ".\n");
    const tail = reminderTail(draft, options, fate);
    return { text: head.text + tail.text, entities: [...head.entities, ...shiftEntities(tail.entities, head.text.length)] };
  }
  const asked = surface.asks === "edit" ? `✏️ Edit version ${surface.text_version}.` : (surface.question ?? QUESTION_WORDS[surface.asks]);
  const head = `${asked ?? "Question."}\n\n`;
  if (chose !== null) return { text: head + chosenLine(surface, chose), entities: [] };
  // An Edit prompt whose version was edited did its work (by its reply, or another prompt's): not "no longer applies".
  if (surface.asks === "edit" && surface.text_version != null && draft.text_version > surface.text_version && !isFinal(draft.status))
    return { text: `${head}✅ Edited: version ${draft.text_version} is its new post.`, entities: [] };
  const tail = fate("No longer applies: ");
  return { text: head + tail.text, entities: shiftEntities(tail.entities, head.length) };
}
