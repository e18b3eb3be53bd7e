/**
 * The messages of a review post whose draft does not share a message with
 * its header (a long draft: an email or a Slack message may be far longer
 * than one message, contract v5): what the header says of the parts, and the
 * message that takes decisions (the draft's last part, under its status, over
 * the legend of reactions). Kept apart from review-format.ts, which says what
 * any post shows. Pure.
 */
import { TELEGRAM_TEXT_LIMIT } from "../drafts/payload.js";
import { draftEntities, shiftEntities } from "../drafts/draft-entities.js";
import type { TextPart } from "../drafts/text-parts.js";
import { count } from "./audience-text.js";
import type { TimedText } from "../clock/local-time.js";

/**
 * The header's last line: how long the draft is, where it is and how its
 * parts join, and which one has the buttons and the status. It stays true
 * once the draft is decided (the header is never edited), and it shows no
 * legend of reactions: the header takes no decision.
 */
export function partsNote(draftText: string, parts: readonly TextPart[]): string {
  const chars = count(draftText.length);
  if (parts.length === 1)
    return `⬇️ The draft (${chars} characters) is the reply to this message; decide there, and see there what becomes of it.`;
  const runs = parts.filter((p) => p.joint === "run").length;
  const joins =
    runs === 0
      ? "each next message begins on a new line of the draft"
      : runs === parts.length - 1
        ? "each message runs on into the next, mid-line"
        : "where a message ends mid-word the next runs on, otherwise it begins on a new line";
  return `⬇️ The draft (${chars} characters) is in the ${parts.length} replies to this message, in order (${joins}); the last one takes the decision and shows what becomes of it.`;
}

/**
 * The message that takes decisions: the status on top once there is one, the
 * draft's last part as data (its quote marks where it begins and ends), and
 * the legend of reactions while it shows. Null past Telegram's limit (a long
 * status: it then goes on the header, see status-edits.ts).
 */
export function decisionMessage(last: string, legend: string | null, status: TimedText | null): TimedText | null {
  const top = status === null ? "" : `${status.text}\n\n`;
  const text = `${top}${last}${legend === null ? "" : `\n${legend}`}`;
  if (text.length > TELEGRAM_TEXT_LIMIT) return null;
  return { text, entities: [...(status?.entities ?? []), ...shiftEntities(draftEntities(0, last), top.length)] };
}
