import type { Api } from "grammy";
import type { SendMessageCall } from "../channels/telegram/send-call.js";
import { classifySendError } from "./classify.js";
import { linkPreviewFor } from "./link-preview.js";

/**
 * The sendMessage call the send path makes: plain text (no parse_mode, so no
 * byte of the draft is read as markup), the destination's topic if any, and
 * the same link preview the review post showed (link-preview.ts). As the
 * owner it goes through his business connection; an answer replies to the
 * message it answers (still sent if a message the daemon saw is gone; one it
 * did not see must be there: `replyRequired`).
 */
export function telegramSendCall(api: Api): SendMessageCall {
  return async ({ chatId, threadId, text, businessConnectionId, replyToMessageId, replyRequired }) => {
    try {
      const message = await api.sendMessage(chatId, text, {
        link_preview_options: linkPreviewFor(text),
        ...(threadId === null ? {} : { message_thread_id: threadId }),
        ...(businessConnectionId ? { business_connection_id: businessConnectionId } : {}),
        ...(replyToMessageId
          ? { reply_parameters: { message_id: replyToMessageId, allow_sending_without_reply: replyRequired !== true } }
          : {}),
      });
      return { kind: "ok", messageId: message.message_id };
    } catch (err) {
      return classifySendError(err);
    }
  };
}
