import type { Message } from "grammy/types";
import type { UploadedFile } from "../body.js";
import { badRequest } from "../errors.js";
import { chatIdParam, optString, type Params } from "../params.js";
import { threadFor, topicFields } from "../topics.js";
import type { SentPhoto } from "../types.js";
import { unixNow } from "../world.js";
import { checkNotBlocked } from "./send.js";
import type { Handler } from "./state.js";

/** Telegram's limit on a caption. */
const CAPTION_LIMIT = 1024;

/** The uploaded `photo` (multipart), or Telegram's refusal: missing, a file id or URL the double cannot fetch, not an image. */
function uploadedPhoto(params: Params): { file: UploadedFile; width: number; height: number } {
  let photo = params["photo"];
  if (photo === undefined || photo === null || photo === "") throw badRequest("there is no photo in the request");
  // `attach://<name>`: the file is the multipart part of that name (how grammY uploads an InputFile).
  if (typeof photo === "string" && photo.startsWith("attach://")) photo = params[photo.slice("attach://".length)];
  if (photo === undefined) throw badRequest("there is no photo in the request");
  if (typeof photo === "string") throw badRequest("wrong file identifier/HTTP URL specified");
  const file = photo as UploadedFile;
  if (!Buffer.isBuffer(file.data)) throw badRequest("there is no photo in the request");
  const size = imageSize(file.data);
  if (size === null) throw badRequest("IMAGE_PROCESS_FAILED");
  return { file, ...size };
}

/** Width and height of a PNG (IHDR) or a JPEG (SOF marker); null for anything else. */
export function imageSize(data: Buffer): { width: number; height: number } | null {
  const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  if (data.length >= 24 && data.subarray(0, 8).equals(png) && data.toString("latin1", 12, 16) === "IHDR")
    return { width: data.readUInt32BE(16), height: data.readUInt32BE(20) };
  if (data.length > 4 && data[0] === 0xff && data[1] === 0xd8) {
    for (let i = 2; i + 9 < data.length; ) {
      if (data[i] !== 0xff) return null;
      const marker = data[i + 1]!;
      if (marker >= 0xc0 && marker <= 0xc3) return { height: data.readUInt16BE(i + 5), width: data.readUInt16BE(i + 7) };
      i += 2 + data.readUInt16BE(i + 2);
    }
  }
  return null;
}

/**
 * sendPhoto with an uploaded file (multipart/form-data, as grammY's InputFile
 * sends it): validates the chat, the image (a PNG or JPEG, its size read from
 * its header) and the caption, then stores the message with a `photo` array
 * and keeps the bytes for the test (`photos()`).
 */
export const sendPhoto: Handler = (params, state) => {
  const chat = state.world.resolveChat(chatIdParam(params));
  checkNotBlocked(chat);
  const { file, width, height } = uploadedPhoto(params);
  const caption = optString(params, "caption");
  if (caption !== undefined && [...caption].length > CAPTION_LIMIT) throw badRequest("message caption is too long");
  const threadId = threadFor(state.world, chat, params);
  const refusal = state.limiter?.admit(chat.config.id);
  if (refusal) throw refusal;
  const messageId = state.world.nextMessageId(chat);
  const fileId = `photo-${chat.config.id}-${messageId}`;
  const message = {
    message_id: messageId,
    from: state.world.botUser(),
    chat: state.world.chatObject(chat),
    date: unixNow(),
    ...topicFields(state.world, chat, threadId),
    photo: [{ file_id: fileId, file_unique_id: fileId, width, height, file_size: file.data.length }],
    ...(caption ? { caption } : {}),
  } as Message.PhotoMessage;
  chat.messages.set(messageId, message);
  const sent: SentPhoto = { chatId: chat.config.id, messageId, caption, threadId, file, width, height, at: Date.now(), message };
  state.photos.push(sent);
  return message;
};
