import type { MessageEntity } from "grammy/types";
import { badRequest } from "./errors.js";
import { optJson, type Params } from "./params.js";

/** Bot commands as Telegram's parser finds them in plain text. */
const BOT_COMMAND = /(?<![\p{L}\p{N}_/])\/[A-Za-z0-9_]{1,64}(?:@[A-Za-z0-9_]{3,32})?/gu;
/** Links with a scheme, as Telegram's parser finds them (enough for the tests). */
const URL = /\bhttps?:\/\/[^\s<>"]+/g;

const CONTAIN_NOTHING = new Set(["code", "pre"]);
const QUOTES = new Set(["blockquote", "expandable_blockquote"]);

function inside(inner: { offset: number; length: number }, outer: MessageEntity): boolean {
  return inner.offset >= outer.offset && inner.offset + inner.length <= outer.offset + outer.length;
}

function overlaps(a: { offset: number; length: number }, b: { offset: number; length: number }): boolean {
  return a.offset < b.offset + b.length && b.offset < a.offset + a.length;
}

/** Telegram's nesting rules for given entities: contained or apart; nothing in code/pre; quotes not nested. */
function checkNesting(entities: readonly MessageEntity[], textLength: number): void {
  for (const e of entities) {
    if (!(Number.isInteger(e.offset) && Number.isInteger(e.length) && e.offset >= 0 && e.length > 0 && e.offset + e.length <= textLength)) {
      throw badRequest("can't parse entities: entity beyond the end of the text");
    }
  }
  for (const a of entities) {
    for (const b of entities) {
      if (a === b || !overlaps(a, b)) continue;
      if (!inside(a, b) && !inside(b, a)) throw badRequest("can't parse entities: entities overlap");
      // Same range: a quote is taken as the outer one.
      const sameRange = a.offset === b.offset && a.length === b.length;
      if (inside(a, b) && CONTAIN_NOTHING.has(b.type) && !(sameRange && QUOTES.has(a.type))) {
        throw badRequest("can't parse entities: code and pre entities can't contain other entities");
      }
      if (QUOTES.has(a.type) && QUOTES.has(b.type)) throw badRequest("can't parse entities: blockquotes can't be nested");
    }
  }
}

/** The formats a date_time entity may ask for (Bot API 9.5): relative, or weekday, short/long date, short/long time. */
const DATE_TIME_FORMAT = /^(?:r|w?[dD]?[tT]?)$/;
/** Telegram takes dates from 0 to 1098 days ahead. */
const DATE_TIME_AHEAD_S = 1098 * 86_400;
/** What a date_time entity may contain: text styles only (like custom_emoji, it contains no other entity). */
const STYLES = new Set(["bold", "italic", "underline", "strikethrough", "spoiler"]);

/**
 * A date_time entity as Telegram checks it: `unix_time` an integer between 0
 * and 1098 days from now, `date_time_format` (optional) one of its formats,
 * nothing but text styles inside it (it cannot be inside code or pre either:
 * see checkNesting).
 */
function checkDateTimes(entities: readonly MessageEntity[]): void {
  for (const e of entities) {
    if (e.type !== "date_time") continue;
    const { unix_time: unixTime, date_time_format: format } = e as Partial<MessageEntity.DateTimeMessageEntity>;
    if (typeof unixTime !== "number" || !Number.isInteger(unixTime)) {
      throw badRequest("can't parse entities: date_time entity must have an integer unix_time");
    }
    if (unixTime < 0 || unixTime > Math.floor(Date.now() / 1000) + DATE_TIME_AHEAD_S) {
      throw badRequest("can't parse entities: date_time entity unix_time is out of range");
    }
    if (format !== undefined && (typeof format !== "string" || !DATE_TIME_FORMAT.test(format))) {
      throw badRequest("can't parse entities: unsupported date_time_format");
    }
    for (const inner of entities) {
      if (inner !== e && inside(inner, e) && !STYLES.has(inner.type)) {
        throw badRequest("can't parse entities: date_time entities can't contain other entities");
      }
    }
  }
}

/**
 * The entities Telegram stores with a bot's message: the ones given (checked),
 * plus what its parser finds by itself in the text (bot commands, links)
 * wherever no given entity forbids one: nothing is found inside code or pre,
 * or across a given entity's edge.
 */
export function storedEntities(params: Params, text: string): MessageEntity[] {
  const given = (optJson(params, "entities", "can't parse entities JSON object") ?? []) as MessageEntity[];
  if (!Array.isArray(given)) throw badRequest('field "entities" must be of type Array');
  checkNesting(given, text.length);
  checkDateTimes(given);
  const found: MessageEntity[] = [];
  const add = (type: "bot_command" | "url", offset: number, length: number) => {
    const range = { offset, length };
    const blocked = given.some((e) => overlaps(range, e) && (CONTAIN_NOTHING.has(e.type) || !inside(range, e)));
    if (!blocked) found.push({ type, offset, length });
  };
  for (const m of text.matchAll(BOT_COMMAND)) add("bot_command", m.index, m[0].length);
  for (const m of text.matchAll(URL)) add("url", m.index, m[0].length);
  return [...given, ...found].sort((a, b) => a.offset - b.offset || b.length - a.length);
}

/** The text a user would see as tappable commands: each bot_command entity's text. */
export function tappableCommands(text: string, entities: readonly MessageEntity[] | undefined): string[] {
  return (entities ?? []).filter((e) => e.type === "bot_command").map((e) => text.slice(e.offset, e.offset + e.length));
}
