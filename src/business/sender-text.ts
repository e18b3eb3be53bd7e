import type { MessageEntity } from "grammy/types";
import type { DraftRecord } from "../drafts/record.js";
import { absoluteTime, timeEntity, timeMark, type TimeMark } from "../clock/local-time.js";
import { draftEntities } from "../drafts/draft-entities.js";
import { replyTarget } from "../drafts/reply-target.js";

/** The longest quote of the answered message on a review post (code points); longer ones are cut with "…". */
const QUOTE_MAX = 600;

type Drafted = Pick<DraftRecord, "sender" | "answering" | "audience" | "destination_chat_id" | "status">;

/** Why a draft that goes as the bot does not reply to a message of the owner's own chat. */
export function droppedReplyText(messageId: number): string {
  return `message ${messageId} is in your own chat with them, where the bot cannot reply`;
}

function personOf(d: Drafted): string {
  if (d.sender?.kind === "owner" && d.sender.person_name) return d.sender.person_name;
  return d.audience?.title ?? d.destination_chat_id;
}

/**
 * The review post's line that says who sends: "🗣 As you (Owen Owner,
 * @owen), in your chat with Anna (Anna wrote 2 h ago)", naming the account it
 * goes from, or "🤖 As @the_bot, not as you: …". Null for a plain bot draft
 * (send_as bot), whose post is as it always was.
 */
export function senderLine(d: Drafted, now: number, timeZone?: string): string | null {
  const s = d.sender;
  if (s === null) return null;
  if (s.kind === "bot") {
    const name = s.username ? `@${s.username}` : "the bot";
    return s.why_not_owner ? `🤖 As ${name}, not as you: ${s.why_not_owner}` : `🤖 As ${name}`;
  }
  const person = personOf(d);
  const wrote =
    s.last_incoming_at === null
      ? "no message from them in the last 24 h"
      : `${person}${WROTE}${absoluteTime(Date.parse(s.last_incoming_at), "r", timeZone, now)}`;
  const account = s.owner_name === null ? "" : ` (${s.owner_name}${s.owner_username ? `, @${s.owner_username}` : ""})`;
  return `🗣 As you${account}, in your chat with ${person} (${wrote})`;
}

const WROTE = " wrote ";

/**
 * When the person last wrote, as the sender line shows it: an absolute time
 * the client renders relative ("2 hours ago"), and the words before it (for
 * the entity's place in the header); null when the line shows no time.
 */
export function senderLineTime(d: Drafted, now: number, timeZone?: string): { mark: TimeMark; before: string } | null {
  const s = d.sender;
  if (s?.kind !== "owner" || s.last_incoming_at === null) return null;
  return { mark: timeMark(Date.parse(s.last_incoming_at), "r", timeZone, now), before: `${personOf(d)}${WROTE}` };
}

/** The 👍 button's text when the draft names its sender ("👍 Send as you to Anna"); null: the usual one. */
export function sendButtonText(d: Drafted, destination: string): string | null {
  const s = d.sender;
  if (s === null) return null;
  if (s.kind === "owner") return `👍 Send as you to ${personOf(d)}`;
  return `👍 Send as ${s.username ? `@${s.username}` : "the bot"} to ${destination}`;
}

/**
 * A reply to a message the daemon did not see: said as such, with where that message is and how to see it
 * (a link where the chat has one: a public chat's t.me/<username>/<id>, a supergroup's or channel's
 * t.me/c/<id>/<id> for its members; otherwise which chat to open), so the owner can read what he answers.
 */
function unseenReplyBlock(d: Drafted, messageId: number, offset: number): { text: string; entities: MessageEntity[] } {
  const lead = `\n↩️ In reply to message ${messageId}, not seen here`;
  const link = messageLink(d, messageId);
  if (link === null) {
    const where = d.sender?.kind === "owner" ? `your chat with ${personOf(d)}` : personOf(d);
    return { text: `${lead}: open ${where} in Telegram to read it before you decide.`, entities: [] };
  }
  const before = `${lead}: see it in ${personOf(d)}: `;
  return { text: `${before}${link}`, entities: [{ type: "url", offset: offset + before.length, length: link.length }] };
}

/** The t.me link of message `messageId` in the draft's destination, where it has one (null: a private chat or a basic group). */
function messageLink(d: Drafted, messageId: number): string | null {
  if (d.sender?.kind === "owner") return null;
  const username = d.audience?.username ?? (d.destination_chat_id.startsWith("@") ? d.destination_chat_id.slice(1) : null);
  if (username && d.audience?.kind !== "private") return `https://t.me/${username}/${messageId}`;
  const id = d.audience?.chat_id ?? d.destination_chat_id;
  return /^-100\d+$/.test(id) ? `https://t.me/c/${id.slice(4)}/${messageId}` : null;
}

function cut(text: string): string {
  const points = Array.from(text);
  return points.length <= QUOTE_MAX ? text : `${points.slice(0, QUOTE_MAX - 1).join("")}…`;
}

/** What a review post shows of the message a draft answers; `quoted`: it quotes that message (so the draft's own quote needs a label). */
export interface AnsweringBlock {
  readonly text: string;
  readonly entities: MessageEntity[];
  readonly quoted?: boolean;
}

/**
 * What the draft answers, under the header, exactly as the send does it
 * (replyTarget): a reply to a message the daemon saw, with who wrote it and
 * when, then its text inside a blockquote entity (commands in it made code,
 * as in a draft: the person's words are data, never markup or commands); a
 * reply to a message it did not see, said as such; a reply the bot cannot
 * make, said too. Without a reply, the person's last message gives context.
 */
export function answeringBlock(
  d: Drafted & Pick<DraftRecord, "reply_to_message_id" | "send_as">,
  offset: number,
  now: number,
  timeZone: string | undefined,
): AnsweringBlock {
  const t = replyTarget(d);
  if (t.kind === "reply" && !t.seen) return unseenReplyBlock(d, t.message_id, offset);
  const dropped = t.kind === "dropped" ? `\n↩️ Not as a reply: ${droppedReplyText(t.message_id)}` : "";
  const a = d.answering;
  if (a === null) return { text: dropped, entities: [] };
  const how = t.kind === "reply" ? "↩️ In reply to" : a.message_id === d.reply_to_message_id ? "💬 It answers" : "💬 The last message from";
  // When it was written: an absolute time the client renders relative ("2 hours ago"), never "today" that goes stale.
  const when = timeMark(Date.parse(a.at), "r", timeZone, now);
  const before = `${dropped}\n${how} ${a.author}, `;
  const lead = `${before}${when.text}:\n`;
  const quote = cut(a.text);
  const entities = [timeEntity(when, offset + before.length), ...draftEntities(offset + lead.length, quote)];
  return { text: lead + quote, entities, quoted: true };
}
