/** True when `name` is an IANA time zone this Node knows (REVIEW_TIMEZONE). */
export function isKnownTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat("en-GB", { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

/**
 * Makes REVIEW_TIMEZONE the process's zone (Node reads TZ when it changes), so
 * every local time a person reads — the review post, /pending, /status's
 * "today", the digest hour, the CLI — is in it. Files and the API stay UTC:
 * they are written with toISOString. Unset or unknown: the system's zone.
 */
export function useReviewTimeZone(zone: string | null | undefined): void {
  const name = zone?.trim();
  if (name && isKnownTimeZone(name)) process.env.TZ = name;
}
