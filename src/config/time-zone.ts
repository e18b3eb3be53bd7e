/** True when `name` is an IANA time zone this Node knows (REVIEW_TIMEZONE). */
export function isKnownTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat("en-GB", { timeZone: name });
    return true;
  } catch {
    return false;
  }
}
