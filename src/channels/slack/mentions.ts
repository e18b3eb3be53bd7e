/**
 * The mentions in a text that notify everyone in a conversation: Slack's own
 * markup (`<!channel>`, `<!here>`, `<!everyone>`, with or without a
 * `|label`) and the same words written plainly (`@channel`, …), which the
 * review post names too: a reviewer must not have to know whether Slack
 * turns a plain one into a notification.
 */

/** The kinds of mention that notify a whole conversation, as the post names them. */
export type EveryoneMention = "@channel" | "@here" | "@everyone";

const MARKUP = /<!(channel|here|everyone)(?:\|[^>]*)?>/gi;
// Not inside a word or an address ("me@here.com" still counts: better one warning too many).
const PLAIN = /(?<![A-Za-z0-9_])@(channel|here|everyone)(?![A-Za-z0-9_])/gi;

/** Every kind mentioned in `text`, each once, in a fixed order. */
export function everyoneMentions(text: string): EveryoneMention[] {
  const found = new Set<string>();
  for (const m of text.matchAll(MARKUP)) found.add(m[1]!.toLowerCase());
  for (const m of text.matchAll(PLAIN)) found.add(m[1]!.toLowerCase());
  return (["channel", "here", "everyone"] as const).filter((k) => found.has(k)).map((k) => `@${k}` as EveryoneMention);
}
