/**
 * A bot token inside any text ("123456:AAH..."), including inside a Bot API
 * URL (`/bot<token>/`, where no word boundary precedes its digits). One
 * pattern, so the logger and the error texts that are stored and shown hide
 * the same thing.
 */
const TOKEN_IN_TEXT = /(?<!\d)\d{5,}:[A-Za-z0-9_-]{30,}(?![A-Za-z0-9_-])/g;

/** `text` with every token-shaped string replaced by `replacement`. */
export function hideTokenShapes(text: string, replacement: string): string {
  return text.replace(TOKEN_IN_TEXT, replacement);
}
