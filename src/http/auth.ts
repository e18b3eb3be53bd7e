import { createHash, timingSafeEqual } from "node:crypto";

/** The `WWW-Authenticate` challenge sent with every 401. */
export const BEARER_CHALLENGE = 'Bearer realm="draft-review"';

const BEARER = /^Bearer[ \t]+([^\s]+)[ \t]*$/i;

function digest(text: string): Buffer {
  return createHash("sha256").update(text, "utf8").digest();
}

/**
 * Checks `Authorization: Bearer <token>` headers against one token in
 * constant time. Both sides are hashed first, so the comparison always runs
 * over two 32-byte digests and neither the token's length nor a matching
 * prefix shows in the timing.
 */
export class BearerAuth {
  private readonly expected: Buffer;

  constructor(token: string) {
    if (token.length === 0) throw new Error("the API token is empty; this is a bug in the caller");
    this.expected = digest(token);
  }

  /** True when `header` (the raw Authorization value, or undefined) carries the token. */
  allows(header: string | undefined): boolean {
    const presented = header === undefined ? undefined : BEARER.exec(header)?.[1];
    // Compare even when nothing usable was presented, so a missing header costs the same.
    const same = timingSafeEqual(digest(presented ?? ""), this.expected);
    return presented !== undefined && same;
  }
}
