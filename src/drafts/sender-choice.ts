import type { Audience } from "./audience.js";
import type { Answering, SendAs, Sender } from "./sender.js";
import { localDayTime } from "../clock/local-time.js";

/**
 * The owner's business connection as the choice reads it. Telegram Business's
 * own record (src/business/connection-store.ts) has this shape; the choice
 * is the drafts' rule, so it names only what it reads.
 */
export interface OwnerLink {
  readonly id: string;
  readonly user_id: number;
  readonly user_name: string;
  readonly user_username: string | null;
  readonly can_reply: boolean;
  readonly enabled: boolean;
}

/** A person's chat with the owner as the daemon saw it (src/business/chat-log.ts keeps it). */
export interface SeenChat {
  readonly name: string;
  readonly username: string | null;
  /** When they last wrote (epoch ms): the evidence for Telegram's 24 h rule. */
  readonly last_incoming: number;
  readonly messages: readonly { readonly message_id: number; readonly at: number; readonly author: string; readonly text: string }[];
}

/** Telegram's rule: a business bot answers as the owner only within 24 h of the person's last message. */
export const REPLY_WINDOW_MS = 24 * 3_600_000;

/** An account as a post names it: its name and @username. */
export interface AccountName {
  readonly name: string;
  readonly username: string | null;
}

/** "Bob Reviewer (@bob)" or "Bob Reviewer". */
export function accountText(a: AccountName): string {
  return a.username ? `${a.name} (@${a.username})` : a.name;
}

/** What the choice is made from: the payload's ask and what the daemon knows now. */
export interface SenderFacts {
  readonly sendAs: SendAs;
  readonly destinationChatId: string;
  readonly replyToMessageId: number | null;
  /** The owner's connection (OWNER_USER_ID's; no other account's), or null. */
  readonly connection: OwnerLink | null;
  /** Another account's business connection, ignored because it is not the owner's; null: none. */
  readonly other?: AccountName | null;
  /** The destination's chat in the owner's account, as the chat log has it (last 48 h). */
  readonly chat: SeenChat | undefined;
  /** The bot's own view of the person (getChat), asked when the draft goes as the bot; null: not asked. */
  readonly botView?: Audience | null;
  readonly botUsername: string | null;
  readonly now: number;
}

/** The identity chosen: with the message it answers and, for a person, the audience as the post names them. */
export type SenderChoice =
  | {
      readonly ok: true;
      readonly sender: Sender;
      readonly answering: Answering | null;
      /** The person: as the connection proves them (as the owner), or as the daemon saw and the bot sees them (as the bot). Null: resolve it. */
      readonly audience: Audience | null;
      readonly warnings: readonly string[];
    }
  | { readonly ok: false; readonly field: "send_as"; readonly error: string };

/** Why the owner cannot answer in this chat now, and what would make it possible ("once <until>"; null: nothing would, for this draft). */
export interface OwnerProblem {
  readonly why: string;
  readonly until: string | null;
}

const CHATBOTS = "Settings → Telegram Business → Chatbots";

/**
 * The person as every post names them: from what the daemon saw them write
 * (name and @username), else from the bot's getChat, else the id with why the
 * bot does not know them (never a bare id without a word).
 */
export function personText(f: Pick<SenderFacts, "destinationChatId" | "chat" | "botView">): string {
  const seen = f.chat;
  if (seen) return seen.username ? `${seen.name} (@${seen.username})` : seen.name;
  const v = f.botView;
  if (v?.kind === "private" && v.title !== null) return v.username ? `${v.title} (@${v.username})` : v.title;
  const why = v?.problem ? `: ${v.problem}` : "";
  return `user ${f.destinationChatId} (unknown to the bot${why})`;
}

/** The person's first name for a short phrase ("once Anna writes to you"), or "they". */
function shortPerson(f: Pick<SenderFacts, "chat" | "botView">): string {
  const name = f.chat?.name ?? (f.botView?.kind === "private" ? f.botView.title : null);
  return name ?? "the person";
}

/** Why the owner cannot answer in this chat now, or null when he can. */
export function ownerProblem(f: SenderFacts): OwnerProblem | null {
  const c = f.connection;
  if (!c && f.other) {
    return {
      why: `your own Telegram account is not connected to the bot (the account connected to it is ${accountText(f.other)}, and drafts speak only as you, OWNER_USER_ID)`,
      until: `you connect your own account to the bot (${CHATBOTS})`,
    };
  }
  if (!c) {
    return { why: "your Telegram account is not connected to the bot (Telegram Business)", until: `you connect it (${CHATBOTS})` };
  }
  if (!c.enabled) return { why: "your Telegram Business connection is paused", until: `you resume it (${CHATBOTS})` };
  if (!c.can_reply) {
    return {
      why: "your Telegram Business connection has no right to reply (can_reply)",
      until: `you let the bot reply to messages (${CHATBOTS})`,
    };
  }
  if (!isPersonChat(f.destinationChatId)) return { why: "the destination is not a private chat with a person", until: null };
  const person = personText(f);
  const writes = `${shortPerson(f)} writes to you`;
  if (!f.chat) {
    return {
      why: `${person} has not written to you in the last 24 h (as far as this daemon saw), and Telegram lets you answer as yourself only then`,
      until: writes,
    };
  }
  if (f.now - f.chat.last_incoming >= REPLY_WINDOW_MS) {
    return {
      // An absolute time: the reason is kept and shown on the post, where "25 h ago" would go stale.
      why: `${person} last wrote ${localDayTime(f.chat.last_incoming)}, and Telegram lets you answer as yourself only within 24 h of their message`,
      until: `${writes} again`,
    };
  }
  return null;
}

/** True for a chat id that is a person's (a private chat): the only chats the owner can answer in through the bot. */
export function isPersonChat(chatId: string): boolean {
  return /^[1-9]\d{0,15}$/.test(chatId);
}

/** The quoted message: the one answered if the log has it, else the person's last one. */
function answeringOf(f: SenderFacts): Answering | null {
  const messages = f.chat?.messages ?? [];
  const m = f.replyToMessageId === null ? messages.at(-1) : messages.find((x) => x.message_id === f.replyToMessageId);
  return m ? { message_id: m.message_id, author: m.author, at: new Date(m.at).toISOString(), text: m.text } : null;
}

/** The person as the owner's connection proves them (the bot's own getChat may fail for them). */
function personAudience(f: SenderFacts): Audience {
  return {
    chat_id: f.destinationChatId,
    kind: "private",
    title: f.chat?.name ?? null,
    username: f.chat?.username ?? null,
    member_count: null,
    can_post: true,
    problem: null,
    checked_at: new Date(f.now).toISOString(),
  };
}

/**
 * The person as the bot sends to them: the bot's view (getChat), named from
 * what the daemon saw them write when it has that. Null: the bot was not
 * asked (intake resolves it as for any draft).
 */
function personAsBotSees(f: SenderFacts): Audience | null {
  const v = f.botView ?? null;
  const seen = f.chat;
  if (!seen) return v;
  const bot = v?.kind === "private" ? v : null;
  return {
    chat_id: f.destinationChatId,
    kind: "private",
    title: seen.name,
    username: seen.username ?? bot?.username ?? null,
    member_count: null,
    can_post: v?.can_post ?? null,
    problem: v?.problem ?? null,
    checked_at: v?.checked_at ?? new Date(f.now).toISOString(),
  };
}

/**
 * Decides, when a draft is accepted and posted, which identity sends it, so
 * the reviewer sees it and the approval binds to it. `bot`: the bot.
 * `owner`: the owner's account (OWNER_USER_ID's connection, no other), in a
 * private chat with a person (another destination is refused naming
 * `send_as`); when Telegram would not let him answer there now, the draft
 * goes as the bot, its post says why before any tap, and the submitter gets a
 * warning. `auto`: the same, without the warning.
 */
export function chooseSender(f: SenderFacts): SenderChoice {
  if (f.sendAs === "bot") {
    return {
      ok: true,
      sender: { kind: "bot", username: f.botUsername, why_not_owner: null },
      answering: null,
      audience: null,
      warnings: [],
    };
  }
  const person = isPersonChat(f.destinationChatId);
  if (f.sendAs === "owner" && !person) {
    return {
      ok: false,
      field: "send_as",
      error: 'send_as: "owner" sends only in a private chat with a person; destination_chat_id is not one',
    };
  }
  const problem = ownerProblem(f);
  if (problem === null) return owner(f);
  const warnings =
    f.sendAs === "owner"
      ? [`send_as: cannot send as the owner: ${problem.why}; the review post says so and offers to send it as the bot`]
      : [];
  return {
    ok: true,
    sender: { kind: "bot", username: f.botUsername, why_not_owner: problem.why },
    answering: answeringOf(f),
    audience: person ? personAsBotSees(f) : null,
    warnings,
  };
}

function owner(f: SenderFacts): SenderChoice {
  const c = f.connection!;
  return {
    ok: true,
    sender: {
      kind: "owner",
      connection_id: c.id,
      owner_user_id: c.user_id,
      owner_name: c.user_name,
      owner_username: c.user_username,
      person_name: f.chat?.name ?? null,
      last_incoming_at: f.chat ? new Date(f.chat.last_incoming).toISOString() : null,
    },
    answering: answeringOf(f),
    audience: personAudience(f),
    warnings: [],
  };
}
