import {
  deleteMyCommands,
  deleteWebhook,
  getMe,
  getMyCommands,
  getUpdates,
  getWebhookInfo,
  setMyCommands,
  setWebhook,
  stubTrue,
  answerCallbackQuery,
} from "./bot.js";
import { getChat, getChatAdministrators, getChatMember, getChatMemberCount, sendChatAction, setMessageReaction } from "./chats.js";
import { editMessageReplyMarkup, editMessageText } from "./edit.js";
import { sendPhoto } from "./photo.js";
import { sendMessage } from "./send.js";
import { getBusinessConnection } from "../business.js";
import { createForumTopic, deleteForumTopic } from "../topics.js";
import { optString } from "../params.js";
import type { Handler } from "./state.js";

const HANDLERS: Record<string, Handler> = {
  getMe,
  getUpdates,
  setWebhook,
  deleteWebhook,
  getWebhookInfo,
  setMyCommands,
  getMyCommands,
  deleteMyCommands,
  getChat,
  getChatMember,
  getChatMemberCount,
  getChatAdministrators,
  answerCallbackQuery,
  sendMessage,
  sendPhoto,
  editMessageText,
  editMessageReplyMarkup,
  setMessageReaction,
  sendChatAction,
  createForumTopic,
  deleteForumTopic,
  getBusinessConnection: (params, state) => getBusinessConnection(state, optString(params, "business_connection_id")),
  close: stubTrue,
  logOut: stubTrue,
};

const BY_LOWER_NAME = new Map(Object.entries(HANDLERS).map(([name, h]) => [name.toLowerCase(), h]));

/** The handler of a method; names are case-insensitive, as in the Bot API. Undefined: 404. */
export function handlerFor(method: string): Handler | undefined {
  return BY_LOWER_NAME.get(method.toLowerCase());
}

export type { DoubleState, Handler } from "./state.js";
