import { createHmac, timingSafeEqual } from "node:crypto";

/** The header that carries the time a callback was signed (unix seconds). */
export const TIMESTAMP_HEADER = "X-Draft-Review-Timestamp";
/** The header that carries `sha256=<hex>`, the HMAC of `"<timestamp>.<raw body>"`. */
export const SIGNATURE_HEADER = "X-Draft-Review-Signature";

/**
 * The signature of one callback: `sha256=` and the hex HMAC-SHA256, keyed
 * with CALLBACK_SECRET, of the timestamp, a dot and the raw body. Signing the
 * timestamp too lets a receiver refuse a replayed request.
 */
export function signCallback(secret: string, timestampSeconds: number, body: string | Uint8Array): string {
  const mac = createHmac("sha256", secret);
  mac.update(`${timestampSeconds}.`);
  mac.update(body);
  return `sha256=${mac.digest("hex")}`;
}

/**
 * Checks a callback as a receiver would: the signature matches (compared in
 * constant time) and the timestamp is within `maxAgeSeconds` of `nowSeconds`.
 */
export function verifyCallback(
  body: Uint8Array,
  headers: { readonly timestamp: string | undefined; readonly signature: string | undefined },
  secret: string,
  nowSeconds: number,
  maxAgeSeconds = 300,
): boolean {
  const ts = headers.timestamp ?? "";
  if (!/^\d{1,12}$/.test(ts) || Math.abs(nowSeconds - Number(ts)) > maxAgeSeconds) return false;
  const expected = Buffer.from(signCallback(secret, Number(ts), body));
  const given = Buffer.from(headers.signature ?? "");
  return given.length === expected.length && timingSafeEqual(given, expected);
}
