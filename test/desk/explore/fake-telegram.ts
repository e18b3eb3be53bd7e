import { GrammyError, HttpError, type Transformer } from "grammy";
import type { InlineKeyboardMarkup, MessageEntity, ReactionTypeEmoji, Update } from "grammy/types";
import { currentUpdate } from "../../../src/telegram/update-scope.js";

/** The bot's own user id in the explorer's Telegram. */
export const BOT_ID = 777000111;
/** The owner: the one reviewer, and the review chat (a private chat with the bot). */
export const OWNER = 4242;
/** The destination group of the explorer's drafts to a group. */
export const DESTINATION = "-1005550001";
/** The second reviewer in REVIEWER_USER_IDS (not the owner: his business connection must never send as the owner). */
export const SECOND_REVIEWER = 5151;
/** A person who writes to the owner: the destination of drafts that ask to go as the owner. */
export const PERSON = 6161;

/** A Telegram Business connection of an account with the bot, as Telegram holds it. */
export interface Connection {
  readonly id: string;
  readonly userId: number;
  enabled: boolean;
  /** When it was made (Unix seconds). */
  readonly date: number;
}

/** The accounts the explorer's Telegram knows: the owner, the second reviewer, the person. */
export const ACCOUNTS: Record<number, { first_name: string; username: string }> = {
  [OWNER]: { first_name: "Owner", username: "owner" },
  [SECOND_REVIEWER]: { first_name: "Second", username: "second_reviewer" },
  [PERSON]: { first_name: "Anna", username: "anna" },
};

/** Who reads the destination, as the explorer's Telegram answers getChat and getChatMemberCount. */
export interface ChatTruth {
  readonly title: string;
  readonly username: string | null;
  readonly members: number;
}

/** A message in the review chat as Telegram holds it now (the bot's and the owner's alike). */
export interface ChatMessage {
  readonly id: number;
  readonly fromBot: boolean;
  text: string;
  entities: MessageEntity[];
  /** Callback data of the buttons it carries now. */
  buttons: string[];
  /** Every callback data it ever carried (an old client may still tap one). */
  readonly everButtons: Set<string>;
  readonly replyTo: number | null;
  /** The replied-to message's text and entities when this one was sent (what its quote showed). */
  readonly quoted: { readonly text: string; readonly entities: MessageEntity[] } | null;
  /** Each state Telegram accepted, oldest first: what the chat showed from `at` until the next one. */
  readonly versions: Version[];
}

/** One state of a message as Telegram accepted it (the sendMessage, then each edit), with the time it accepted the call. */
export interface Version {
  readonly at: number;
  readonly text: string;
  /** Callback data of the buttons it carried. */
  readonly buttons: readonly string[];
}

/** A reviewer's reply to one of the bot's messages, as Telegram delivered it. */
export interface ReviewerReply {
  readonly updateId: number;
  readonly messageId: number;
  /** The bot's message it replies to. */
  readonly target: number;
  readonly text: string;
  readonly at: number;
}

/** A sendMessage to a destination: what went out, and what Telegram answered. */
export interface DestinationCall {
  readonly chatId: string;
  readonly text: string;
  readonly outcome: SendOutcome;
  /** The account it went from through a business connection; null: as the bot. */
  readonly via: number | null;
}

/** How the next destination sendMessage ends. `unknown`: Telegram got it, the answer was lost. */
export type SendOutcome = "ok" | "not_sent" | "unknown" | "retry_after" | "refused";

/** What the bot asked of Telegram, for a failure that names the call. */
type Payload = Record<string, unknown>;

function buttonsOf(markup: unknown): string[] {
  const rows = (markup as InlineKeyboardMarkup | undefined)?.inline_keyboard ?? [];
  return rows.flat().flatMap((b) => ("callback_data" in b && b.callback_data !== undefined ? [b.callback_data] : []));
}

function badRequest(method: string, p: Payload, description: string): GrammyError {
  return new GrammyError(description, { ok: false, error_code: 400, description }, method, p);
}

function connectionWire(c: Connection) {
  const user = { id: c.userId, is_bot: false, ...ACCOUNTS[c.userId]! };
  return { id: c.id, user, user_chat_id: c.userId, date: c.date, rights: { can_reply: true }, is_enabled: c.enabled };
}

function networkDown(method: string): HttpError {
  const cause = Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" });
  return new HttpError(`Network request for '${method}' failed!`, cause);
}

/**
 * The explorer's Telegram: an in-process Bot API behind a grammY transformer.
 * It keeps the review chat as the owner sees it (each message's current text
 * and buttons), answers getChat/getChatMemberCount from the truth the
 * explorer sets (or not at all), and records every destination sendMessage
 * with the outcome the explorer chose. Message and update ids never repeat,
 * across restarts of the daemon.
 */
export class FakeTelegram {
  readonly messages: ChatMessage[] = [];
  readonly calls: DestinationCall[] = [];
  /** The destination as Telegram would describe it now. */
  truth: ChatTruth = { title: "Book club", username: null, members: 5 };
  /** False: getChat and getChatMemberCount fail (Telegram not answering). */
  audienceAnswering = true;
  /** False: getChatMemberCount alone fails (the chat is known, its member count is not). */
  countAnswering = true;
  /** Outcomes for the next destination sends, first first; empty: ok. */
  readonly sendOutcomes: SendOutcome[] = [];
  /** Called with each destination call as it happens (the model stamps it). */
  onDestinationCall: (call: DestinationCall) => void = () => {};
  /** Business connections by id (a reconnection makes a new one). */
  readonly connections = new Map<string, Connection>();
  /** False: getBusinessConnection fails (Telegram not answering about it). */
  connectionAnswering = true;
  /** Updates Telegram holds until the daemon fetches them (made while it was down). */
  private readonly held: Update[] = [];
  private nextMessageId = 1;
  private nextUpdateId = 1;
  private nextConnection = 1;
  private nextPersonMessage = 1;
  private readonly byId = new Map<number, ChatMessage>();
  /** Updates in whose handling the bot posted or edited in the review chat (the update scope run.ts's journal reads). */
  readonly answered = new Set<number>();
  /** The owner's replies to the bot's messages, in order. */
  readonly replies: ReviewerReply[] = [];

  /** `now`: the simulated clock; every message and edit of the review chat is accepted at its time. */
  constructor(private readonly now: () => number = () => 0) {}

  /** The transformer that answers every Bot API call of the daemon's Bot. */
  readonly transformer: Transformer = async (_prev, method, payload) => {
    const p = payload as Payload;
    const result = this.answer(method, p);
    const scope = currentUpdate();
    if (scope !== undefined && answersInReviewChat(method, p)) this.answered.add(scope.updateId);
    return { ok: true, result } as never;
  };

  /** A message of the review chat by id. */
  message(id: number): ChatMessage | undefined {
    return this.byId.get(id);
  }

  private answer(method: string, p: Payload): unknown {
    switch (method) {
      case "sendMessage":
        return String(p.chat_id) === String(OWNER) ? this.postInReviewChat(p) : this.sendToDestination(p);
      case "editMessageText":
      case "editMessageReplyMarkup":
        return this.edit(method, p);
      case "getChat":
      case "getChatMemberCount":
      case "getChatMember":
        return this.audience(method, p);
      case "getBusinessConnection":
        return this.connection(String(p.business_connection_id));
      default:
        return true;
    }
  }

  private postInReviewChat(p: Payload): unknown {
    const replyTo = (p.reply_parameters as { message_id?: number } | undefined)?.message_id ?? null;
    const message = this.add({
      fromBot: true,
      text: String(p.text),
      entities: (p.entities as MessageEntity[] | undefined) ?? [],
      buttons: buttonsOf(p.reply_markup),
      replyTo,
    });
    return this.wire(message);
  }

  private edit(method: string, p: Payload): unknown {
    const message = this.byId.get(Number(p.message_id));
    if (message === undefined)
      throw new GrammyError(
        "Bad Request: message to edit not found",
        { ok: false, error_code: 400, description: "Bad Request: message to edit not found" },
        method,
        p,
      );
    if (method === "editMessageText") {
      message.text = String(p.text);
      message.entities = (p.entities as MessageEntity[] | undefined) ?? [];
    }
    message.buttons = buttonsOf(p.reply_markup);
    for (const b of message.buttons) message.everButtons.add(b);
    message.versions.push({ at: this.now(), text: message.text, buttons: [...message.buttons] });
    return this.wire(message);
  }

  private audience(method: string, p: Payload): unknown {
    if (!this.audienceAnswering) throw networkDown(method);
    if (String(p.chat_id) === String(PERSON)) {
      if (method !== "getChat") throw badRequest(method, p, "Bad Request: there are no administrators in the private chat");
      return { id: PERSON, type: "private", ...ACCOUNTS[PERSON] };
    }
    const t = this.truth;
    if (method === "getChatMemberCount") {
      if (!this.countAnswering) throw networkDown(method);
      return t.members;
    }
    if (method === "getChatMember")
      return { status: "administrator", can_post_messages: true, user: { id: BOT_ID, is_bot: true, first_name: "Bot" } };
    return { id: Number(p.chat_id), type: "supergroup", title: t.title, ...(t.username === null ? {} : { username: t.username }) };
  }

  private connection(id: string): unknown {
    if (!this.connectionAnswering) throw networkDown("getBusinessConnection");
    const c = this.connections.get(id);
    if (c === undefined)
      throw badRequest("getBusinessConnection", { business_connection_id: id }, "Bad Request: business connection not found");
    return connectionWire(c);
  }

  private sendToDestination(p: Payload): unknown {
    const viaId = p.business_connection_id === undefined ? null : String(p.business_connection_id);
    const via = viaId === null ? null : this.connections.get(viaId);
    if (via === undefined || via?.enabled === false) throw badRequest("sendMessage", p, "Bad Request: business connection not found");
    const outcome = this.sendOutcomes.shift() ?? "ok";
    const call: DestinationCall = { chatId: String(p.chat_id), text: String(p.text), outcome, via: via?.userId ?? null };
    this.calls.push(call);
    this.onDestinationCall(call);
    const fail = (code: number, description: string, parameters = {}) => {
      throw new GrammyError(description, { ok: false, error_code: code, description, parameters }, "sendMessage", p);
    };
    if (outcome === "not_sent") throw networkDown("sendMessage");
    if (outcome === "unknown") fail(502, "Bad Gateway");
    if (outcome === "retry_after") fail(429, "Too Many Requests: retry after 5", { retry_after: 5 });
    if (outcome === "refused") fail(403, "Forbidden: bot was kicked from the supergroup chat");
    return {
      message_id: 90_000 + this.calls.length,
      date: 0,
      chat: { id: Number(p.chat_id), type: "supergroup", title: this.truth.title },
      text: p.text,
    };
  }

  /** Adds a message to the review chat (the bot's, or one the owner writes). */
  add(m: { fromBot: boolean; text: string; entities?: MessageEntity[]; buttons?: string[]; replyTo: number | null }): ChatMessage {
    const quotedFrom = m.replyTo === null ? undefined : this.byId.get(m.replyTo);
    const message: ChatMessage = {
      id: this.nextMessageId++,
      fromBot: m.fromBot,
      text: m.text,
      entities: m.entities ?? [],
      buttons: m.buttons ?? [],
      everButtons: new Set(m.buttons ?? []),
      replyTo: m.replyTo,
      quoted: quotedFrom === undefined ? null : { text: quotedFrom.text, entities: [...quotedFrom.entities] },
      versions: [{ at: this.now(), text: m.text, buttons: [...(m.buttons ?? [])] }],
    };
    this.messages.push(message);
    this.byId.set(message.id, message);
    return message;
  }

  /** A message as the Bot API returns it. */
  private wire(m: ChatMessage): unknown {
    return { message_id: m.id, date: 0, chat: { id: OWNER, type: "private", first_name: "Owner" }, text: m.text };
  }

  private wireFull(m: ChatMessage): Update["message"] {
    return {
      message_id: m.id,
      date: 0,
      chat: { id: OWNER, type: "private", first_name: "Owner" },
      ...(m.fromBot ? { from: { id: BOT_ID, is_bot: true, first_name: "Bot" } } : { from: owner() }),
      text: m.text,
    } as Update["message"];
  }

  /** Telegram keeps `update` until the daemon asks (it was made while the daemon was down). */
  hold(update: Update): void {
    this.held.push(update);
  }

  /** How many updates Telegram holds for the daemon (made while it was down, or not fetched yet). */
  pendingUpdates(): number {
    return this.held.length;
  }

  /** getUpdates: what Telegram holds from `offset` on; asking for `offset` confirms every update before it. */
  getUpdates(offset: number, limit: number): Update[] {
    while (this.held.length > 0 && this.held[0]!.update_id < offset) this.held.shift();
    return this.held.slice(0, limit);
  }

  /** `userId` connects his account to the bot (a new connection), or the current one is disabled or enabled again. */
  connect(userId: number, enabled: boolean, date: number): Update {
    let c = [...this.connections.values()].find((x) => x.userId === userId);
    if (c === undefined || (enabled && c.enabled)) {
      c = { id: `bc-${userId}-${this.nextConnection++}`, userId, enabled, date };
      this.connections.set(c.id, c);
    }
    c.enabled = enabled;
    return { update_id: this.nextUpdateId++, business_connection: connectionWire(c) } as Update;
  }

  /** The person writes to the owner, seen through each enabled connection of the owner's account. */
  personWrites(text: string, date: number): Update[] {
    const id = this.nextPersonMessage++;
    return [...this.connections.values()]
      .filter((c) => c.userId === OWNER && c.enabled)
      .map(
        (c) =>
          ({
            update_id: this.nextUpdateId++,
            business_message: {
              message_id: id,
              business_connection_id: c.id,
              date,
              chat: { id: PERSON, type: "private", ...ACCOUNTS[PERSON] },
              from: { id: PERSON, is_bot: false, ...ACCOUNTS[PERSON] },
              text,
            },
          }) as Update,
      );
  }

  /** The owner's reaction update on a message: `before` → `after`. */
  reaction(messageId: number, before: readonly string[], after: readonly string[], date: number): Update {
    const emoji = (e: string): ReactionTypeEmoji => ({ type: "emoji", emoji: e as ReactionTypeEmoji["emoji"] });
    return {
      update_id: this.nextUpdateId++,
      message_reaction: {
        chat: { id: OWNER, type: "private", first_name: "Owner" },
        message_id: messageId,
        user: owner(),
        date,
        old_reaction: before.map(emoji),
        new_reaction: after.map(emoji),
      },
    };
  }

  /** The owner's tap on a button of a message, with whatever data (a current, an old or a forged one). */
  tap(messageId: number, data: string): Update {
    const m = this.byId.get(messageId)!;
    return {
      update_id: this.nextUpdateId++,
      callback_query: { id: `q${this.nextUpdateId}`, from: owner(), chat_instance: "ci", data, message: this.wireFull(m) as never },
    };
  }

  /** The owner writes `text` in the review chat, as a reply to `replyTo` when given. */
  write(text: string, replyTo: number | null, date: number): Update {
    const sent = this.add({ fromBot: false, text, replyTo });
    const target = replyTo === null ? undefined : this.byId.get(replyTo);
    const command = /^\/\w+/.exec(text);
    const updateId = this.nextUpdateId++;
    if (target?.fromBot) this.replies.push({ updateId, messageId: sent.id, target: target.id, text, at: this.now() });
    return {
      update_id: updateId,
      message: {
        message_id: sent.id,
        date,
        chat: { id: OWNER, type: "private", first_name: "Owner" },
        from: owner(),
        text,
        ...(command ? { entities: [{ type: "bot_command", offset: 0, length: command[0].length }] } : {}),
        ...(target ? { reply_to_message: this.wireFull(target) as never } : {}),
      },
    } as Update;
  }
}

/** A call that shows the owner something in the review chat: a message, an edit, a reaction, a callback's answer. */
function answersInReviewChat(method: string, p: Payload): boolean {
  if (method === "answerCallbackQuery") return true;
  if (!["sendMessage", "editMessageText", "editMessageReplyMarkup", "setMessageReaction", "sendPhoto"].includes(method)) return false;
  return String(p.chat_id) === String(OWNER);
}

function owner() {
  return { id: OWNER, is_bot: false, first_name: "Owner", username: "owner" };
}
