import { badRequest } from "./errors.js";

/** Telegram's limit on a message text, in UTF-16 code units after entity parsing. */
export const TEXT_LIMIT = 4096;

/** Telegram's limit on callback_data, in bytes of UTF-8. */
export const CALLBACK_DATA_LIMIT = 64;

/**
 * The text Telegram would store: markup removed per `parse_mode` (an
 * approximation of Telegram's parsers, good enough to catch a stray `<` or an
 * unescaped MarkdownV2 character), then leading and trailing whitespace trimmed.
 * Refuses an empty or over-long result in Telegram's words.
 */
export function messageText(raw: string | undefined, parseMode: string | undefined): string {
  if (raw === undefined) throw badRequest("message text is empty");
  const text = parseEntities(raw, parseMode).trim();
  if (text.length === 0) throw badRequest("message text is empty");
  if (text.length > TEXT_LIMIT) throw badRequest("message is too long");
  return text;
}

function parseEntities(raw: string, parseMode: string | undefined): string {
  switch (parseMode?.toLowerCase()) {
    case undefined:
    case "":
      return raw;
    case "html":
      return parseHtml(raw);
    case "markdownv2":
      return parseMarkdownV2(raw);
    case "markdown":
      return raw.replace(/\[([^\]]*)\]\([^)]*\)/g, "$1").replace(/[*_`]/g, "");
    default:
      throw badRequest(`unsupported parse_mode`);
  }
}

const HTML_TAGS = new Set([
  "b",
  "strong",
  "i",
  "em",
  "u",
  "ins",
  "s",
  "strike",
  "del",
  "span",
  "tg-spoiler",
  "a",
  "code",
  "pre",
  "blockquote",
  "tg-emoji",
]);
const HTML_ENTITIES: Record<string, string> = { lt: "<", gt: ">", amp: "&", quot: '"' };

function parseHtml(raw: string): string {
  let out = "";
  for (let i = 0; i < raw.length; ) {
    const ch = raw[i]!;
    if (ch === "<") {
      const end = raw.indexOf(">", i);
      const name = /^<\/?([a-zA-Z-]+)/.exec(raw.slice(i))?.[1]?.toLowerCase();
      if (end < 0 || name === undefined || !HTML_TAGS.has(name)) {
        throw badRequest(`can't parse entities: Unsupported start tag "${name ?? ""}" at byte offset ${byteOffset(raw, i)}`);
      }
      i = end + 1;
    } else if (ch === "&") {
      const m = /^&(#x[0-9a-fA-F]+|#\d+|[a-z]+);/.exec(raw.slice(i));
      const decoded = m ? decodeEntity(m[1]!) : undefined;
      out += decoded ?? "&";
      i += m && decoded !== undefined ? m[0].length : 1;
    } else {
      out += ch;
      i += 1;
    }
  }
  return out;
}

function decodeEntity(name: string): string | undefined {
  if (name.startsWith("#x")) return String.fromCodePoint(parseInt(name.slice(2), 16));
  if (name.startsWith("#")) return String.fromCodePoint(parseInt(name.slice(1), 10));
  return HTML_ENTITIES[name];
}

const MDV2_RESERVED = new Set([..."_*[]()~`>#+-=|{}.!"]);
const MDV2_FORMAT = new Set([..."_*~|`"]);

function parseMarkdownV2(raw: string): string {
  const withoutLinks = raw.replace(/(?<!\\)\[((?:\\.|[^\]\\])*)\]\((?:\\.|[^)\\])*\)/g, "$1");
  let out = "";
  for (let i = 0; i < withoutLinks.length; i++) {
    const ch = withoutLinks[i]!;
    if (ch === "\\") {
      out += withoutLinks[i + 1] ?? "";
      i += 1;
    } else if (MDV2_FORMAT.has(ch)) {
      continue;
    } else if (MDV2_RESERVED.has(ch)) {
      throw badRequest(`can't parse entities: Character '${ch}' is reserved and must be escaped with the preceding '\\'`);
    } else {
      out += ch;
    }
  }
  return out;
}

function byteOffset(text: string, index: number): number {
  return Buffer.byteLength(text.slice(0, index), "utf8");
}

/**
 * Checks a reply_markup the way Telegram does for what we use: an inline
 * keyboard whose buttons each carry an action, and callback_data of 1-64 bytes.
 * Other markups (reply keyboards, force_reply) are accepted as given.
 * Returns the inline keyboard to store on the message, if any.
 */
export function checkReplyMarkup(markup: unknown): { inline_keyboard: unknown[][] } | undefined {
  if (markup === undefined) return undefined;
  if (typeof markup !== "object" || markup === null || Array.isArray(markup)) {
    throw badRequest("can't parse reply keyboard markup JSON object");
  }
  if (!("inline_keyboard" in markup)) return undefined;
  const rows = markup.inline_keyboard;
  if (!Array.isArray(rows)) throw badRequest('field "inline_keyboard" must be of type Array');
  for (const row of rows) {
    if (!Array.isArray(row)) throw badRequest('field "inline_keyboard" must be of type Array');
    for (const button of row) checkButton(button);
  }
  return { inline_keyboard: rows as unknown[][] };
}

function checkButton(button: unknown): void {
  if (typeof button !== "object" || button === null)
    throw badRequest("can't parse inline keyboard button: InlineKeyboardButton must be an Object");
  const b = button as Record<string, unknown>;
  if (typeof b["text"] !== "string") throw badRequest("can't parse inline keyboard button: Text must be a String");
  if ("callback_data" in b) {
    const data = b["callback_data"];
    const bytes = typeof data === "string" ? Buffer.byteLength(data, "utf8") : 0;
    if (bytes < 1 || bytes > CALLBACK_DATA_LIMIT) throw badRequest("BUTTON_DATA_INVALID");
    return;
  }
  const actions = [
    "url",
    "login_url",
    "switch_inline_query",
    "switch_inline_query_current_chat",
    "switch_inline_query_chosen_chat",
    "callback_game",
    "pay",
    "web_app",
    "copy_text",
  ];
  if (!actions.some((a) => a in b)) throw badRequest("text buttons are unallowed in the inline keyboard");
}
