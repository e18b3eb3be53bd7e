import type { Detector, PiiSpan } from "./kinds.js";

/**
 * Email addresses: a local part, `@`, and a dotted domain ending in an
 * alphabetic TLD. Telegram @usernames (nothing before the `@`) and npm
 * `pkg@1.2.3` specs (numeric "TLD") do not match. The address must not
 * continue with `:word`, which is the scp-style git remote
 * (`git@github.com:org/repo.git`), nor start right after `://` (a URL's user
 * name). A URL password before an `@` is the secret detector's job.
 */
const EMAIL =
  /(?<![\w.%+-])[A-Za-z0-9](?:[A-Za-z0-9._%+-]{0,62}[A-Za-z0-9_%+-])?@(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,24}(?![\w-]|\.[A-Za-z0-9]|:\w)/y;

const LOCAL_CHAR = /[A-Za-z0-9._%+-]/;

/**
 * Finds email addresses. Starts from each `@` and walks back over the local
 * part, so the regex runs a few times per draft instead of at every word.
 */
export const findEmails: Detector = (text) => {
  const spans: PiiSpan[] = [];
  let searchFrom = 0;
  for (let at = text.indexOf("@"); at !== -1; at = text.indexOf("@", at + 1)) {
    let start = at;
    while (start > searchFrom && at - start < 64 && LOCAL_CHAR.test(text[start - 1] ?? "")) start -= 1;
    EMAIL.lastIndex = start;
    const m = EMAIL.exec(text);
    if (m === null || text.startsWith("://", start - 3)) continue;
    spans.push({ kind: "email", start, end: start + m[0].length });
    searchFrom = start + m[0].length;
    at = searchFrom - 1;
  }
  return spans;
};
