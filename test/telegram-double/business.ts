import type { BusinessConnection, Message, Update } from "grammy/types";
import { badRequest, forbidden } from "./errors.js";
import type { Injected } from "./inject.js";
import type { DoubleState } from "./methods/state.js";
import { unixNow } from "./world.js";

/**
 * Telegram Business as the Bot API documents it: a user connects the bot to
 * their account (Settings → Telegram Business → Chatbots), the bot gets a
 * `business_connection` update, then `business_message` updates for the
 * account's private chats. With the connection's `can_reply` right the bot may
 * send as that user (sendMessage with `business_connection_id`), only in a
 * private chat whose other person wrote in the last 24 hours. The account's
 * chats are its own: their message ids are not the bot's chat's. Several
 * users may each connect the bot: every account has its own connection (one
 * per account: connecting again edits it), its own chats and numbering.
 */

/** Telegram's 24 h rule for answering as the business account, in seconds. */
export const BUSINESS_REPLY_WINDOW_SECONDS = 24 * 3600;

/**
 * Telegram's refusals of a send through a business connection. Telegram names
 * these errors by their MTProto types; the wording is the one bots receive.
 */
export const BUSINESS_ERRORS = {
  /** The connection id is unknown, or the user removed the bot (getBusinessConnection and sends). */
  unknown: () => badRequest("BUSINESS_CONNECTION_INVALID"),
  /** The connection exists but the user paused it (is_enabled false). */
  disabled: () => badRequest("BUSINESS_CONNECTION_NOT_ALLOWED"),
  /** The connection lacks the can_reply right. */
  noReplyRight: () => forbidden("BOT_BUSINESS_MISSING"),
  /** The chat is not one the bot may answer in: nobody wrote in the last 24 h, or not a private chat. */
  peerInvalid: () => badRequest("BUSINESS_PEER_INVALID"),
} as const;

/** One connection as the double keeps it. */
export interface BusinessConnectionState {
  id: string;
  userId: number;
  date: number;
  canReply: boolean;
  enabled: boolean;
  /** Per private chat of the account (the other person's id): its messages and when the person last wrote. */
  chats: Map<number, { lastMessageId: number; lastIncoming: number | null; messages: Map<number, Message> }>;
}

/** `connectBusiness` input: a user connects (or reconnects) the bot to their account. */
export interface BusinessConnectInjection {
  /** The account's user; their private chat with the bot has the same id. */
  userId: number;
  /** Default a fresh id. */
  id?: string;
  /** Default true. */
  canReply?: boolean;
}

/** `injectBusinessMessage` input: a person wrote to the business account. */
export interface BusinessMessageInjection {
  connectionId: string;
  /** The person who wrote; the account's chat with them has this id. */
  fromId: number;
  text: string;
  /** How long ago Telegram dated the message, in seconds. Default 0. */
  ageSeconds?: number;
  firstName?: string;
}

let connectionCounter = 0;

/** The BusinessConnection object of a connection. */
export function connectionObject(state: DoubleState, c: BusinessConnectionState): BusinessConnection {
  return {
    id: c.id,
    user: state.world.userObject(c.userId),
    user_chat_id: c.userId,
    date: c.date,
    ...(c.canReply ? { rights: { can_reply: true } } : { rights: {} }),
    is_enabled: c.enabled,
  };
}

function connectionUpdate(state: DoubleState, c: BusinessConnectionState): Injected {
  return state.updates.create({ business_connection: connectionObject(state, c) } as Omit<Update, "update_id">);
}

/**
 * A user connects the bot (or edits the connection): stored, and a
 * business_connection update. An account has one connection with the bot:
 * connecting again while it stands keeps its id.
 */
export function connectBusiness(state: DoubleState, o: BusinessConnectInjection): { id: string; injected: Injected } {
  connectionCounter += 1;
  const standing = [...state.business.values()].find((c) => c.userId === o.userId)?.id;
  const id = o.id ?? standing ?? `bc_${o.userId}_${connectionCounter}_${Date.now().toString(36)}`;
  const known = state.business.get(id);
  const c: BusinessConnectionState = known ?? { id, userId: o.userId, date: unixNow(), canReply: true, enabled: true, chats: new Map() };
  c.canReply = o.canReply ?? true;
  c.enabled = true;
  state.business.set(id, c);
  return { id, injected: connectionUpdate(state, c) };
}

/** The user changes the connection: pauses it, or takes the can_reply right away (or gives it back). */
export function changeBusiness(state: DoubleState, id: string, change: { enabled?: boolean; canReply?: boolean }): Injected {
  const c = requireConnection(state, id);
  if (change.enabled !== undefined) c.enabled = change.enabled;
  if (change.canReply !== undefined) c.canReply = change.canReply;
  return connectionUpdate(state, c);
}

/**
 * The connection's id now names another account (`userId`), and Telegram says
 * nothing: no update. What getBusinessConnection answers and whose account a
 * send through the id speaks as, from now on. Telegram is not known to do
 * this; a daemon must not trust the account it saved over the one Telegram names.
 */
export function moveBusiness(state: DoubleState, id: string, userId: number): void {
  requireConnection(state, id).userId = userId;
}

/** The user removes the bot from their account: an update with is_enabled false, then the id is unknown. */
export function revokeBusiness(state: DoubleState, id: string): Injected {
  const c = requireConnection(state, id);
  c.enabled = false;
  state.business.delete(id);
  return connectionUpdate(state, c);
}

/** A business_message update: a person wrote to the account, dated `ageSeconds` ago. */
export function injectBusinessMessage(state: DoubleState, o: BusinessMessageInjection): Injected & { messageId: number } {
  const c = requireConnection(state, o.connectionId);
  if (o.firstName !== undefined) state.world.addUser({ id: o.fromId, firstName: o.firstName });
  const chat = chatOf(c, o.fromId);
  const date = unixNow() - (o.ageSeconds ?? 0);
  chat.lastMessageId += 1;
  const from = state.world.userObject(o.fromId);
  const message = {
    message_id: chat.lastMessageId,
    business_connection_id: c.id,
    from,
    chat: { id: o.fromId, type: "private", first_name: from.first_name, ...(from.username ? { username: from.username } : {}) },
    date,
    text: o.text,
  } as Message;
  chat.messages.set(message.message_id, message);
  chat.lastIncoming = Math.max(chat.lastIncoming ?? 0, date);
  const injected = state.updates.create({ business_message: message } as Omit<Update, "update_id">);
  return { ...injected, messageId: message.message_id };
}

/** getBusinessConnection: the connection, or Telegram's refusal of an unknown id. */
export function getBusinessConnection(state: DoubleState, id: string | undefined): BusinessConnection {
  const c = id === undefined ? undefined : state.business.get(id);
  if (!c) throw BUSINESS_ERRORS.unknown();
  return connectionObject(state, c);
}

/**
 * The checks of a send on behalf of the account, in Telegram's order:
 * the connection, its state, its right, then the 24 h rule of the chat.
 * Returns the account's chat to store the message in.
 */
export function admitBusinessSend(state: DoubleState, id: string, chatId: number | string): BusinessSendTarget {
  const c = state.business.get(id);
  if (!c) throw BUSINESS_ERRORS.unknown();
  if (!c.enabled) throw BUSINESS_ERRORS.disabled();
  if (!c.canReply) throw BUSINESS_ERRORS.noReplyRight();
  if (typeof chatId !== "number" || chatId <= 0) throw BUSINESS_ERRORS.peerInvalid();
  const chat = c.chats.get(chatId);
  if (!chat || chat.lastIncoming === null || unixNow() - chat.lastIncoming > BUSINESS_REPLY_WINDOW_SECONDS)
    throw BUSINESS_ERRORS.peerInvalid();
  return { connection: c, chatId, chat };
}

/** Where an admitted business send goes. */
export interface BusinessSendTarget {
  connection: BusinessConnectionState;
  chatId: number;
  chat: BusinessConnectionState["chats"] extends Map<number, infer C> ? C : never;
}

/** Stores a message sent as the account: from the account's user, with `sender_business_bot` the bot. */
export function storeBusinessMessage(
  state: DoubleState,
  target: BusinessSendTarget,
  text: string,
  replyToMessageId: number | undefined,
): Message.TextMessage {
  const { connection, chatId, chat } = target;
  chat.lastMessageId += 1;
  // Replies as the account never fail for a missing target (allow_sending_without_reply is always true).
  const replyTo = replyToMessageId === undefined ? undefined : chat.messages.get(replyToMessageId);
  const person = state.world.userObject(chatId);
  const message = {
    message_id: chat.lastMessageId,
    business_connection_id: connection.id,
    from: state.world.userObject(connection.userId),
    sender_business_bot: state.world.botUser(),
    chat: { id: chatId, type: "private", first_name: person.first_name, ...(person.username ? { username: person.username } : {}) },
    date: unixNow(),
    ...(replyTo ? { reply_to_message: replyTo } : {}),
    text,
  } as Message.TextMessage;
  chat.messages.set(message.message_id, message);
  return message;
}

function chatOf(c: BusinessConnectionState, personId: number) {
  let chat = c.chats.get(personId);
  if (!chat) {
    chat = { lastMessageId: 0, lastIncoming: null, messages: new Map() };
    c.chats.set(personId, chat);
  }
  return chat;
}

function requireConnection(state: DoubleState, id: string): BusinessConnectionState {
  const c = state.business.get(id);
  if (!c) throw new Error(`telegram double: no business connection ${id} (connectBusiness first)`);
  return c;
}
