/**
 * The people a comment's text mentions, as Linear's Markdown writes them:
 * `@displayName` in plain text and profile links
 * (`https://linear.app/<workspace>/profiles/<displayName>`). Code spans and
 * code blocks are not mentions; an e-mail address is not one either.
 */

/** A mention as found: the handle (a displayName) and how the text wrote it. */
export interface Mention {
  readonly handle: string;
  readonly written: string;
}

const FENCED = /```[\s\S]*?```|~~~[\s\S]*?~~~/g;
const INLINE_CODE = /`[^`\n]*`/g;
const PROFILE = /https?:\/\/linear\.app\/[\w-]+\/profiles\/([\w.-]+)/gi;
/** An @ not preceded by a word character, a dot, a slash or another @ (so not an e-mail address). */
const AT = /(^|[^\w@./])@([A-Za-z0-9_][\w.-]*)/g;

/** The mentions in `text`, each handle once (first spelling kept): profile links first, then @handles. */
export function findMentions(text: string): Mention[] {
  const plain = text.replace(FENCED, " ").replace(INLINE_CODE, " ");
  const found: Mention[] = [];
  const seen = new Set<string>();
  const add = (handle: string, written: string) => {
    const key = handle.toLowerCase();
    if (handle === "" || seen.has(key)) return;
    seen.add(key);
    found.push({ handle, written });
  };
  for (const m of plain.matchAll(PROFILE)) add((m[1] ?? "").replace(/[.-]+$/, ""), m[0]);
  for (const m of plain.replace(PROFILE, " ").matchAll(AT)) {
    const handle = (m[2] ?? "").replace(/[.-]+$/, "");
    add(handle, `@${handle}`);
  }
  return found;
}
