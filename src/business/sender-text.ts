import type { MessageEntity } from "grammy/types";
import type { DraftRecord } from "../drafts/record.js";
import { localWhen } from "../owner/local-time.js";
import { draftEntities } from "../telegram/draft-entities.js";
import { agoText } from "./sender-choice.js";

/** The longest quote of the answered message on a review post (code points); longer ones are cut with "…". */
const QUOTE_MAX = 600;

type Drafted = Pick<DraftRecord, "sender" | "answering" | "audience" | "destination_chat_id" | "status">;

function personOf(d: Drafted): string {
  if (d.sender?.kind === "owner" && d.sender.person_name) return d.sender.person_name;
  return d.audience?.title ?? d.destination_chat_id;
}

/**
 * The review post's line that says who sends: "🗣 As you, in your chat with
 * Anna (Anna wrote 2 h ago)" or "🤖 As @the_bot (not as you: …)". Null for a
 * plain bot draft (send_as bot), whose post is as it always was.
 */
export function senderLine(d: Drafted, now: number): string | null {
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
      : `${person} wrote ${agoText(now - Date.parse(s.last_incoming_at))}`;
  return `🗣 As you, in your chat with ${person} (${wrote})`;
}

/** The 👍 button's text when the draft names its sender ("👍 Send as you to Anna"); null: the usual one. */
export function sendButtonText(d: Drafted, destination: string): string | null {
  const s = d.sender;
  if (s === null) return null;
  if (s.kind === "owner") return `👍 Send as you to ${personOf(d)}`;
  return `👍 Send as ${s.username ? `@${s.username}` : "the bot"} to ${destination}`;
}

function cut(text: string): string {
  const points = Array.from(text);
  return points.length <= QUOTE_MAX ? text : `${points.slice(0, QUOTE_MAX - 1).join("")}…`;
}

/**
 * The message the draft answers, under the header: who wrote it and when,
 * then its text inside a blockquote entity (commands in it made code, as in
 * a draft): the person's words are data, never markup or commands. Empty
 * when the daemon did not see that message.
 */
export function answeringBlock(
  d: Drafted & Pick<DraftRecord, "reply_to_message_id">,
  offset: number,
  now: number,
  timeZone: string | undefined,
): { text: string; entities: MessageEntity[] } {
  const a = d.answering;
  if (a === null) return { text: "", entities: [] };
  const how = d.reply_to_message_id === a.message_id ? "↩️ In reply to" : "💬 The last message from";
  const lead = `\n${how} ${a.author}, ${localWhen(Date.parse(a.at), now, timeZone)}:\n`;
  const quote = cut(a.text);
  return { text: lead + quote, entities: draftEntities(offset + lead.length, quote) };
}
