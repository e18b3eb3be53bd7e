import type { MessageEntity } from "grammy/types";
import type { ChatMessage } from "./fake-telegram.js";

/** Who the owner was told will read the draft. `unknown`: the message said it could not be told. */
export type ShownAudience =
  | { readonly kind: "known"; readonly title: string | null; readonly members: number | null; readonly public: boolean }
  | { readonly kind: "person"; readonly name: string }
  /** A destination on Linear, email or Slack: the tag of the audience the explorer's channel service answered (fake-channels.ts). */
  | { readonly kind: "channel"; readonly tag: string }
  | { readonly kind: "unknown" };

/**
 * What a message in the review chat showed the owner when he acted on it:
 * the draft text (the blockquote of a review post, the `pre` block of an Edit
 * prompt), who will read it, and who it goes out as. What the message itself
 * does not show is taken from the message it replies to, as that one was
 * when the reply was sent (a confirmation question quotes the post it is
 * about). Read from the text and entities Telegram holds, never from the desk.
 */
export interface Surface {
  readonly messageId: number;
  readonly draftText: string | null;
  readonly audience: ShownAudience | null;
  /** "bot" unless the message says the draft goes out as the owner ("🗣 As you"). */
  readonly identity: "bot" | "owner";
  /** The account it said the draft goes from ("🗣 As you (Owner, @owner)"), or null when it named none. */
  readonly account: string | null;
  /** A question (a confirmation, the "ok" question, /resume): only a tap on its buttons counts. */
  readonly isQuestion: boolean;
  /** The message carries, or carried, a decision control: a draft's buttons, or it is an Edit prompt. */
  readonly decisionControl: boolean;
  /**
   * What the owner's actions on it can be, by its controls: a 👍 on a review post (it carried 👍 Send),
   * a "Yes, send" on a confirmation question, an undo on a review post or a message with ↩️ Undo.
   * An action elsewhere is refused with a pointer to the live post, so it neither approves nor undoes.
   */
  readonly accepts: { readonly approve: boolean; readonly confirm: boolean; readonly undo: boolean };
  /** An Edit prompt: a reply to it is the draft's new text, whatever it says. */
  readonly isEditPrompt: boolean;
}

/** The draft's text: the last quote (a post quotes the message the draft answers above it), or an Edit prompt's `pre` block. */
function draftTextOf(text: string, entities: readonly MessageEntity[]): string | null {
  const block = entities.findLast((e) => e.type === "blockquote" || e.type === "pre");
  return block === undefined ? null : text.slice(block.offset, block.offset + block.length);
}

/** The part of a message that describes the audience: a review post's "— for …" line, or a question's "Send to …". */
function audienceTextOf(text: string, draftText: string | null): string | null {
  const outside = draftText === null ? text : text.replace(draftText, "");
  // A draft to another channel: the header names the destination, the channel's own lines follow, indented.
  const forLine = /— for (.*(?:\n {2}.*)*)/.exec(outside);
  if (forLine) return forLine[1]!;
  const question = /^Send to (.*)$/m.exec(outside);
  return question ? question[1]! : null;
}

/** Reads an audience line: a “title”, N members, public (an @username); a person (👤 name); no title and no count: unknown. */
export function readAudience(line: string): ShownAudience {
  const tag = /\[aud ([\w-]+)\]/.exec(line);
  if (tag) return { kind: "channel", tag: tag[1]! };
  const person = /^👤 ([^·(]+)/u.exec(line);
  if (person) return { kind: "person", name: person[1]!.trim() };
  const members = /([\d,]+) members?\b/.exec(line);
  const title = /“([^”]*)”/.exec(line);
  if (members === null && title === null) return { kind: "unknown" };
  return {
    kind: "known",
    title: title ? title[1]! : null,
    members: members ? Number(members[1]!.replace(/,/g, "")) : null,
    public: /@[A-Za-z0-9_]{3,}/.test(line) || /\bpublic\b/.test(line),
  };
}

/** What `message` shows now, completed from what its quote showed. */
export function surfaceOf(message: ChatMessage): Surface {
  const own = partsOf(message.text, message.entities);
  const quoted = message.quoted === null ? null : partsOf(message.quoted.text, message.quoted.entities);
  return {
    messageId: message.id,
    draftText: own.draftText ?? quoted?.draftText ?? null,
    audience: channelAudience(own, quoted) ?? own.audience ?? quoted?.audience ?? null,
    identity: own.identity ?? quoted?.identity ?? "bot",
    account: own.identity !== null ? own.account : (quoted?.account ?? null),
    isQuestion: isQuestion(message),
    decisionControl: [...message.everButtons].some((b) => b.startsWith("v1:")) || isEditPrompt(message),
    accepts: {
      approve: carried(message, "v1:send:"),
      confirm: carried(message, "v1:confirm:"),
      undo: carried(message, "v1:send:") || carried(message, "v1:undo:"),
    },
    isEditPrompt: isEditPrompt(message),
  };
}

/**
 * The audience on another channel a message showed: its own, or (a
 * confirmation question names the destination and the reasons only) the one
 * of the post it replies to and quotes.
 */
function channelAudience(own: Parts, quoted: Parts | null): ShownAudience | null {
  if (own.audience?.kind === "channel") return own.audience;
  return quoted?.audience?.kind === "channel" ? quoted.audience : null;
}

/**
 * What a "🤖 Send as the bot instead" tap approves: the draft as the message
 * quotes its post, going out as the bot (a new approval, contract v3).
 */
export function asBotSurfaceOf(message: ChatMessage): Surface {
  const s = surfaceOf(message);
  return { ...s, identity: "bot", account: null, accepts: { approve: carried(message, "v1:asbot:"), confirm: false, undo: false } };
}

function carried(message: ChatMessage, prefix: string): boolean {
  return message.fromBot && [...message.everButtons].some((b) => b.startsWith(prefix));
}

/**
 * A question of the bot's (contract v4: answered by its buttons only): the
 * confirmation a large or unknown audience asks for ("Send to …?"), the "ok"
 * question ("You replied …"), a /resume question.
 */
export function isQuestion(message: ChatMessage): boolean {
  if (!message.fromBot) return false;
  return /^(Send to |You replied )/u.test(message.text) || [...message.everButtons].some((b) => b.startsWith("owner:resume:"));
}

/** The bot's ✏️ Edit prompt (the text to copy in a `pre` block). */
export function isEditPrompt(message: ChatMessage): boolean {
  return message.fromBot && message.entities.some((e) => e.type === "pre");
}

interface Parts {
  readonly draftText: string | null;
  readonly audience: ShownAudience | null;
  /** Who it says the draft goes out as: "🗣 As you" (the owner), "🤖 As" (the bot); null: it does not say. */
  readonly identity: "bot" | "owner" | null;
  readonly account: string | null;
}

function partsOf(text: string, entities: readonly MessageEntity[]): Parts {
  const draftText = draftTextOf(text, entities);
  const outside = draftText === null ? text : text.replace(draftText, "");
  const line = audienceTextOf(text, draftText);
  const identity = /🗣 As you\b/u.test(outside) ? "owner" : /🤖 As /u.test(outside) ? "bot" : null;
  const account = identity === "owner" ? (/🗣 As you \(([^)]*)\)/u.exec(outside)?.[1] ?? null) : null;
  return { draftText, audience: line === null ? null : readAudience(line), identity, account };
}
