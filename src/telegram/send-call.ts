import type { Api } from "grammy";
import type { SendMessageCall } from "../send/outcome.js";
import { classifySendError } from "./classify.js";

/**
 * The sendMessage call the send path makes: plain text (no parse_mode, so no
 * byte of the draft is read as markup), the destination's topic if any.
 */
export function telegramSendCall(api: Api): SendMessageCall {
  return async ({ chatId, threadId, text }) => {
    try {
      const message = await api.sendMessage(chatId, text, threadId === null ? {} : { message_thread_id: threadId });
      return { kind: "ok", messageId: message.message_id };
    } catch (err) {
      return classifySendError(err);
    }
  };
}
