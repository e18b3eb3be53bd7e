/**
 * The mentions in a text that notify people: the ones that notify everyone
 * in a conversation (Slack's markup `<!channel>`, `<!here>`, `<!everyone>`,
 * with or without a `|label`, and the same words written plainly, which the
 * review post names too: a reviewer must not have to know whether Slack
 * turns a plain one into a notification), and the people and user groups
 * named by markup (`<@U…>`, `<!subteam^S…>`).
 */

/** The kinds of mention that notify a whole conversation, as the post names them. */
export type EveryoneMention = "@channel" | "@here" | "@everyone";

const MARKUP = /<!(channel|here|everyone)(?:\|[^>]*)?>/gi;
// Not inside a word or an address ("me@here.com" still counts: better one warning too many).
const PLAIN = /(?<![A-Za-z0-9_])@(channel|here|everyone)(?![A-Za-z0-9_])/gi;
const PERSON = /<@([UW][A-Z0-9]{2,})(?:\|[^>]*)?>/g;
const GROUP = /<!subteam\^([A-Z0-9]{2,})(?:\|([^>]*))?>/g;

/** Every kind mentioned in `text`, each once, in a fixed order. */
export function everyoneMentions(text: string): EveryoneMention[] {
  const found = new Set<string>();
  for (const m of text.matchAll(MARKUP)) found.add(m[1]!.toLowerCase());
  for (const m of text.matchAll(PLAIN)) found.add(m[1]!.toLowerCase());
  return (["channel", "here", "everyone"] as const).filter((k) => found.has(k)).map((k) => `@${k}` as EveryoneMention);
}

/** The user ids mentioned with `<@U…>`, each once, sorted. */
export function personMentions(text: string): string[] {
  return [...new Set(Array.from(text.matchAll(PERSON), (m) => m[1]!))].sort();
}

/** The user groups mentioned with `<!subteam^S…|@handle>`: id and the handle the text shows (or the id), sorted by id. */
export function groupMentions(text: string): { id: string; label: string }[] {
  const groups = new Map<string, string>();
  for (const m of text.matchAll(GROUP)) if (!groups.has(m[1]!)) groups.set(m[1]!, m[2]?.trim() || m[1]!);
  return [...groups].sort(([a], [b]) => (a < b ? -1 : 1)).map(([id, label]) => ({ id, label }));
}
