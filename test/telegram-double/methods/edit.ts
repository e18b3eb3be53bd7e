import type { Message } from "grammy/types";
import { storedEntities } from "../entities.js";
import { badRequest } from "../errors.js";
import { chatIdParam, optJson, optString, type Params } from "../params.js";
import { checkReplyMarkup, messageText } from "../text.js";
import { unixNow } from "../world.js";
import { checkNotBlocked, messageIdParam } from "./send.js";
import { noteShown, type DoubleState, type Handler } from "./state.js";
import type { ShownVersion } from "../types.js";

const NOT_MODIFIED =
  "message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message";

/** The message to edit, and how to store its new version: counted against the chat's pace like a message, and noted as shown. */
function editable(params: Params, state: DoubleState, method: ShownVersion["method"]): { message: Message; store(m: Message): void } {
  if (params["inline_message_id"] !== undefined) throw badRequest("inline messages are not supported by the test double");
  const chat = state.world.resolveChat(chatIdParam(params));
  checkNotBlocked(chat);
  const messageId = messageIdParam(params);
  const message = chat.messages.get(messageId);
  if (!message) throw badRequest("message to edit not found");
  if (message.from?.id !== state.world.bot.id) throw badRequest("message can't be edited");
  return {
    message,
    store: (m) => {
      // As Telegram: an edit counts against the chat's limits like a message (a refused one changes nothing).
      const refusal = state.limiter?.admit(chat.config.id);
      if (refusal) throw refusal;
      chat.messages.set(messageId, m);
      noteShown(state, chat.config.id, m, method);
    },
  };
}

/** Omitted markup removes the keyboard, as Telegram does on every edit. */
function newMarkup(params: Params): { inline_keyboard: unknown[][] } | undefined {
  const markup = checkReplyMarkup(optJson(params, "reply_markup", "can't parse reply keyboard markup JSON object"));
  return markup && markup.inline_keyboard.length > 0 ? markup : undefined;
}

function applyEdit(
  target: ReturnType<typeof editable>,
  text: string | undefined,
  markup: unknown,
  entities?: Message["entities"],
): Message {
  const { message } = target;
  const sameText =
    text === undefined || (text === message.text && JSON.stringify(entities ?? []) === JSON.stringify(message.entities ?? []));
  if (sameText && JSON.stringify(markup) === JSON.stringify(message.reply_markup)) throw badRequest(NOT_MODIFIED);
  const { reply_markup: _old, ...kept } = message;
  const { entities: _oldEntities, ...rest } = kept as Message.TextMessage;
  const edited = {
    ...(text !== undefined ? rest : kept),
    ...(text !== undefined ? { text, ...(entities?.length ? { entities } : {}) } : {}),
    edit_date: unixNow(),
    ...(markup !== undefined ? { reply_markup: markup } : {}),
  } as Message;
  target.store(edited);
  return edited;
}

/**
 * editMessageText on a message the bot sent: new text, and the keyboard given
 * (or none: an edit without reply_markup removes the buttons). "message is not
 * modified" when both are unchanged.
 */
export const editMessageText: Handler = (params, state) => {
  const target = editable(params, state, "editMessageText");
  if (target.message.text === undefined) throw badRequest("there is no text in the message to edit");
  const parseMode = optString(params, "parse_mode");
  const text = messageText(optString(params, "text"), parseMode);
  const entities = storedEntities(parseMode ? { ...params, entities: undefined } : params, text);
  return applyEdit(target, text, newMarkup(params), entities);
};

/** editMessageReplyMarkup: replaces (or with no reply_markup, removes) the inline keyboard. */
export const editMessageReplyMarkup: Handler = (params, state) => {
  const target = editable(params, state, "editMessageReplyMarkup");
  return applyEdit(target, undefined, newMarkup(params));
};
