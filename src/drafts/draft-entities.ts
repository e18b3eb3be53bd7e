import type { MessageEntity } from "grammy/types";

/**
 * What Telegram reads as a bot command: a slash, 1-64 letters, digits or
 * underscores, maybe @botname, not inside a word or a path.
 */
const BOT_COMMAND = /(?<![\p{L}\p{N}_/\\<>])\/[A-Za-z0-9_]{1,64}(?:@[A-Za-z0-9_]{3,32})?(?![\p{L}\p{N}_/])/gu;

/** The ranges of `text` that Telegram would make tappable bot commands (UTF-16 offsets). */
export function botCommandRanges(text: string): Array<{ offset: number; length: number }> {
  return [...text.matchAll(BOT_COMMAND)].map((m) => ({ offset: m.index, length: m[0].length }));
}

/**
 * The entities that mark a draft inside a review message: one blockquote over
 * exactly the draft's text (where it begins and ends: a draft cannot make an
 * entity, whatever characters it holds), and a `code` entity over each
 * /command in it, so that a tap on the draft's text can never run a command
 * (Telegram's rules: nothing nests inside code, so no bot_command entity can
 * exist there). The characters the reviewer reads stay the same.
 * `offset` is where the draft starts in the message, in UTF-16 code units.
 */
export function draftEntities(offset: number, draftText: string): MessageEntity[] {
  const quote: MessageEntity = { type: "blockquote", offset, length: draftText.length };
  const commands = botCommandRanges(draftText).map((r): MessageEntity => ({ type: "code", offset: offset + r.offset, length: r.length }));
  return [quote, ...commands];
}

/** The same entities moved by `by` code units (text put in front of the message). */
export function shiftEntities(entities: readonly MessageEntity[], by: number): MessageEntity[] {
  return entities.map((e) => ({ ...e, offset: e.offset + by }));
}
