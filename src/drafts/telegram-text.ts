/**
 * What Telegram drops from the ends of a message text: ASCII whitespace and
 * control characters, and the Unicode spaces a text can start or end with
 * unseen: no-break spaces (U+00A0, U+202F), the ideographic space (U+3000),
 * the other Unicode spaces (U+1680, U+2000 to U+200A, U+205F), the zero width
 * space (U+200B), the Mongolian vowel separator (U+180E), line and paragraph
 * separators and bidi embedding controls (U+2028 to U+202E, which Telegram
 * removes anywhere) and the byte order mark (U+FEFF).
 */
const EDGE = "[\\u0000-\\u0020\\u00A0\\u1680\\u180E\\u2000-\\u200B\\u2028-\\u202F\\u205F\\u3000\\uFEFF]";
const AT_EDGES = new RegExp(`^${EDGE}+|${EDGE}+$`, "g");

/** Characters that show nothing: a text made only of these (and EDGE) is empty to Telegram, which refuses it. */
const INVISIBLE = new RegExp(`^(?:${EDGE}|[\\u200C-\\u200F\\u2060\\u2800\\uFFFC])*$`);

/**
 * The text as Telegram delivers it: without the characters it drops from
 * both ends (see EDGE). The draft is stored, shown to the reviewer, hashed
 * for the approval and sent in this form, so what is reviewed is what arrives.
 */
export function trimLikeTelegram(text: string): string {
  return text.replace(AT_EDGES, "");
}

/** True when Telegram would refuse the text as empty: nothing but spaces and invisible characters. */
export function isEmptyForTelegram(text: string): boolean {
  return INVISIBLE.test(text);
}
