import type { Audience } from "../drafts/audience.js";
import type { Answering, SendAs, Sender } from "../drafts/sender.js";
import type { LoggedChat } from "./chat-log.js";
import type { OwnerConnection } from "./connection-store.js";

/** Telegram's rule: a business bot answers as the owner only within 24 h of the person's last message. */
export const REPLY_WINDOW_MS = 24 * 3_600_000;

/** "2 h ago", "35 min ago", "just now": how long ago, for a person. */
export function agoText(ms: number): string {
  const minutes = Math.floor(Math.max(0, ms) / 60_000);
  if (minutes < 1) return "just now";
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.floor(minutes / 60);
  return hours < 48 ? `${hours} h ago` : `${Math.floor(hours / 24)} days ago`;
}

/** What the choice is made from: the payload's ask and what the daemon knows now. */
export interface SenderFacts {
  readonly sendAs: SendAs;
  readonly destinationChatId: string;
  readonly replyToMessageId: number | null;
  /** The owner's connection, or null. */
  readonly connection: OwnerConnection | null;
  /** The destination's chat in the owner's account, as the chat log has it (last 48 h). */
  readonly chat: LoggedChat | undefined;
  readonly botUsername: string | null;
  readonly now: number;
}

/** The identity chosen: with the message it answers and, as the owner, the audience the connection proves. */
export type SenderChoice =
  | {
      readonly ok: true;
      readonly sender: Sender;
      readonly answering: Answering | null;
      /** As the owner: the person, proven by the connection (the bot's own getChat may fail for them). */
      readonly audience: Audience | null;
      readonly warnings: readonly string[];
    }
  | { readonly ok: false; readonly field: "send_as"; readonly error: string };

/** Why the owner cannot answer in this chat now, or null when he can. */
export function ownerProblem(f: SenderFacts): string | null {
  const c = f.connection;
  if (!c) return "the owner's Telegram Business connection is not connected";
  if (!c.enabled) return "the owner's Telegram Business connection is paused";
  if (!c.can_reply) return "the Telegram Business connection has no right to reply (can_reply)";
  if (!isPersonChat(f.destinationChatId)) return "the destination is not a private chat with a person";
  if (!f.chat) return "the person has not written to the owner in the last 24 h";
  if (f.now - f.chat.last_incoming >= REPLY_WINDOW_MS)
    return `${f.chat.name} last wrote ${agoText(f.now - f.chat.last_incoming)}, more than 24 h ago`;
  return null;
}

function isPersonChat(chatId: string): boolean {
  return /^[1-9]\d{0,15}$/.test(chatId);
}

/** The quoted message: the one answered if the log has it, else the person's last one. */
function answeringOf(f: SenderFacts): Answering | null {
  const messages = f.chat?.messages ?? [];
  const m = f.replyToMessageId === null ? messages.at(-1) : messages.find((x) => x.message_id === f.replyToMessageId);
  return m ? { message_id: m.message_id, author: m.author, at: new Date(m.at).toISOString(), text: m.text } : null;
}

function personAudience(f: SenderFacts): Audience {
  return {
    chat_id: f.destinationChatId,
    kind: "private",
    title: f.chat?.name ?? null,
    username: null,
    member_count: null,
    can_post: true,
    problem: null,
    checked_at: new Date(f.now).toISOString(),
  };
}

/**
 * Decides, when a draft is accepted and posted, which identity sends it, so
 * the reviewer sees it and the approval binds to it. `bot`: the bot. `owner`:
 * the owner's account, in a private chat with a person, through a reviewer's
 * connection (refused naming `send_as` when that cannot be; a closed 24 h
 * window is a warning, and the send halts unless the person writes again).
 * `auto`: the owner where Telegram allows it now, else the bot, saying why.
 */
export function chooseSender(f: SenderFacts): SenderChoice {
  const bot = (why: string | null): SenderChoice => ({
    ok: true,
    sender: { kind: "bot", username: f.botUsername, why_not_owner: why },
    answering: f.sendAs === "bot" ? null : answeringOf(f),
    audience: null,
    warnings: [],
  });
  if (f.sendAs === "bot") return bot(null);
  const problem = ownerProblem(f);
  if (f.sendAs === "auto") return problem === null ? owner(f, []) : bot(problem);
  const c = f.connection;
  if (!c) {
    return {
      ok: false,
      field: "send_as",
      error:
        'send_as: "owner" needs the owner\'s Telegram Business connection, and none is connected (Settings → Telegram Business → Chatbots; see `draft-review setup`)',
    };
  }
  if (!isPersonChat(f.destinationChatId)) {
    return {
      ok: false,
      field: "send_as",
      error: 'send_as: "owner" sends only in a private chat with a person; destination_chat_id is not one',
    };
  }
  return owner(f, problem === null ? [] : [`send_as: cannot send as the owner now: ${problem}; the send will halt unless that changes`]);
}

function owner(f: SenderFacts, warnings: readonly string[]): SenderChoice {
  const c = f.connection!;
  return {
    ok: true,
    sender: {
      kind: "owner",
      connection_id: c.id,
      owner_user_id: c.user_id,
      person_name: f.chat?.name ?? null,
      last_incoming_at: f.chat ? new Date(f.chat.last_incoming).toISOString() : null,
    },
    answering: answeringOf(f),
    audience: personAudience(f),
    warnings,
  };
}
