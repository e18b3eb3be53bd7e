import type { Message } from "grammy/types";
import { storedEntities } from "../entities.js";
import { badRequest, forbidden } from "../errors.js";
import { chatIdParam, optBool, optInt, optJson, optString, type Params } from "../params.js";
import { checkReplyMarkup, messageText } from "../text.js";
import type { SentMessage } from "../types.js";
import { type ChatState, unixNow } from "../world.js";
import { noteShown, type DoubleState, type Handler } from "./state.js";
import { admitBusinessSend, storeBusinessMessage } from "../business.js";
import { replyThread, threadFor, topicFields } from "../topics.js";

/** Refuses a send to a chat that blocked (or removed) the bot, in Telegram's words per chat type. */
export function checkNotBlocked(chat: ChatState): void {
  if (!chat.config.blocked) {
    checkMayPost(chat);
    return;
  }
  if (chat.config.type === "private") throw forbidden("bot was blocked by the user");
  throw forbidden(`bot was kicked from the ${chat.config.type} chat`);
}

/** Refuses a send where the bot is present but may not post, in Telegram's words. */
function checkMayPost(chat: ChatState): void {
  const c = chat.config;
  if (c.type === "channel" && !c.botIsAdmin) throw forbidden("bot is not a member of the channel chat");
  if (c.botCanPost === false) throw badRequest("not enough rights to send text messages to the chat");
}

/** The `message_id` parameter, required. */
export function messageIdParam(params: Params): number {
  const id = optInt(params, "message_id");
  if (id === undefined) throw badRequest("message identifier is not specified");
  return id;
}

function replyToParam(params: Params, chat: ChatState): Message | undefined {
  const replyParameters = optJson(params, "reply_parameters", "can't parse reply parameters JSON object") as
    | { message_id?: number; allow_sending_without_reply?: boolean }
    | undefined;
  const id = replyParameters?.message_id ?? optInt(params, "reply_to_message_id");
  if (id === undefined) return undefined;
  const target = chat.messages.get(id);
  const lenient = replyParameters?.allow_sending_without_reply ?? optBool(params, "allow_sending_without_reply") ?? false;
  if (!target && !lenient) throw badRequest("message to be replied not found");
  return target;
}

/** A copy of a message fit to embed as reply_to_message (Telegram nests only one level). */
export function embedded(message: Message): Message {
  const { reply_to_message: _dropped, ...rest } = message;
  return rest as Message;
}

/**
 * sendMessage: validates in Telegram's order (chat, block, thread, text,
 * markup, reply target, rate limit), then stores the message under the chat's
 * next message_id and logs it.
 */
export const sendMessage: Handler = (params, state) => {
  const businessId = optString(params, "business_connection_id");
  if (businessId !== undefined && businessId !== "") return sendAsBusiness(params, state, businessId);
  const chat = state.world.resolveChat(chatIdParam(params));
  checkNotBlocked(chat);
  const givenThread = threadFor(state.world, chat, params);
  const parseMode = optString(params, "parse_mode");
  const text = messageText(optString(params, "text"), parseMode);
  const markup = checkReplyMarkup(optJson(params, "reply_markup", "can't parse reply keyboard markup JSON object"));
  // As Telegram: given entities replace parse_mode's; either way its parser adds commands and links.
  const entities = storedEntities(parseMode ? { ...params, entities: undefined } : params, text);
  const replyTo = replyToParam(params, chat);
  const threadId = replyThread(state.world, chat, givenThread, replyTo);
  const refusal = state.limiter?.admit(chat.config.id);
  if (refusal) throw refusal;
  return accept(state, chat, { text, threadId, markup, replyTo, parseMode, params, entities });
};

interface Accepted {
  text: string;
  threadId: number | undefined;
  markup: { inline_keyboard: unknown[][] } | undefined;
  replyTo: Message | undefined;
  parseMode: string | undefined;
  params: Params;
  entities: SentMessage["entities"];
}

function accept(state: DoubleState, chat: ChatState, a: Accepted): Message.TextMessage {
  const messageId = state.world.nextMessageId(chat);
  const entities = a.entities;
  const message = {
    message_id: messageId,
    from: state.world.botUser(),
    chat: state.world.chatObject(chat),
    date: unixNow(),
    ...topicFields(state.world, chat, a.threadId),
    ...(a.replyTo ? { reply_to_message: embedded(a.replyTo) } : {}),
    text: a.text,
    ...(entities?.length ? { entities } : {}),
    ...(a.markup && a.markup.inline_keyboard.length > 0 ? { reply_markup: a.markup } : {}),
  } as Message.TextMessage;
  chat.messages.set(messageId, message);
  noteShown(state, chat.config.id, message, "sendMessage");
  state.sent.push({
    chatId: chat.config.id,
    messageId,
    text: a.text,
    threadId: a.threadId,
    replyMarkup: optJson(a.params, "reply_markup", ""),
    parseMode: a.parseMode,
    entities,
    linkPreview: optJson(a.params, "link_preview_options", "can't parse link preview options JSON object") as SentMessage["linkPreview"],
    replyToMessageId: a.replyTo?.message_id,
    at: Date.now(),
    message,
  });
  return message;
}

/**
 * sendMessage on behalf of a business account: the connection's checks and
 * the 24 h rule (business.ts), then the text checks as for any message. The
 * message lands in the account's chat with that person, from the account's
 * user; a reply target that is not found is no error there.
 */
function sendAsBusiness(params: Params, state: DoubleState, businessId: string): Message.TextMessage {
  const target = admitBusinessSend(state, businessId, chatIdParam(params));
  const parseMode = optString(params, "parse_mode");
  const text = messageText(optString(params, "text"), parseMode);
  const markup = checkReplyMarkup(optJson(params, "reply_markup", "can't parse reply keyboard markup JSON object"));
  const replyParameters = optJson(params, "reply_parameters", "can't parse reply parameters JSON object") as
    | { message_id?: number }
    | undefined;
  const replyToId = replyParameters?.message_id ?? optInt(params, "reply_to_message_id");
  const message = storeBusinessMessage(state, target, text, replyToId);
  const entities = storedEntities(parseMode ? { ...params, entities: undefined } : params, text);
  noteShown(state, target.chatId, message, "sendMessage");
  state.sent.push({
    chatId: target.chatId,
    messageId: message.message_id,
    text,
    threadId: undefined,
    replyMarkup: markup === undefined ? undefined : optJson(params, "reply_markup", ""),
    parseMode,
    entities,
    linkPreview: optJson(params, "link_preview_options", "can't parse link preview options JSON object") as SentMessage["linkPreview"],
    replyToMessageId: message.reply_to_message?.message_id,
    businessConnectionId: businessId,
    at: Date.now(),
    message,
  });
  return message;
}
