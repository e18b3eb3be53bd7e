import { crc32, crc32Byte } from "./crc32.js";

/**
 * The on-disk form of one store line: the record's JSON with one extra last
 * key, `..., "crc":"<8 hex>"}`, where the CRC-32 covers the JSON text without
 * that key. A flipped bit or a torn write then fails the check instead of
 * passing as a (different) valid record. The line is still plain JSON, so
 * `jq` and other readers keep working.
 */

/** `,"crc":"` + 8 hex digits + `"}`: the fixed-size tail of every line. */
export const CRC_SUFFIX_BYTES = 18;
const SUFFIX_HEAD = Buffer.from(',"crc":"');
const QUOTE = 0x22;
const BRACE = 0x7d;

/**
 * Encodes a record as one checksummed line, newline included. Throws a
 * TypeError (a caller's bug) for a value that is not a non-empty JSON object
 * or that already has a `crc` key.
 */
export function encodeLine(record: object): string {
  if (Object.hasOwn(record, "crc")) throw new TypeError('a stored record cannot have a "crc" field: the store adds its own');
  const json = JSON.stringify(record);
  if (json === undefined || json.length < 3 || json[0] !== "{") {
    throw new TypeError("a stored record must be a non-empty JSON object");
  }
  const sum = crc32(Buffer.from(json));
  return `${json.slice(0, -1)},"crc":"${sum.toString(16).padStart(8, "0")}"}\n`;
}

/**
 * Checks one line `buf[start, end)` (newline excluded). Returns null when the
 * checksum matches, else a short reason. On success the record's JSON is
 * `buf[start, end - CRC_SUFFIX_BYTES)` followed by `}`.
 */
export function checkLine(buf: Uint8Array, start: number, end: number): string | null {
  const body = end - CRC_SUFFIX_BYTES;
  if (body - start < 2) return end === start ? "empty line" : "line too short";
  if (buf[end - 1] !== BRACE || buf[end - 2] !== QUOTE) return "no checksum at the end of the line";
  for (let i = 0; i < SUFFIX_HEAD.length; i++) {
    if (buf[body + i] !== SUFFIX_HEAD[i]) return "no checksum at the end of the line";
  }
  const stored = parseHex8(buf, end - 10);
  if (stored < 0) return "malformed checksum";
  // The checksum covers the JSON without the crc key: the body, then the closing brace.
  const actual = crc32Byte(crc32(buf, start, body), BRACE);
  return actual === stored ? null : "checksum mismatch";
}

/** The 8 hex digits at `buf[at, at+8)` as a number, or -1 when not hex. */
function parseHex8(buf: Uint8Array, at: number): number {
  let v = 0;
  for (let i = at; i < at + 8; i++) {
    const c = buf[i]!;
    const d = c >= 0x30 && c <= 0x39 ? c - 0x30 : c >= 0x61 && c <= 0x66 ? c - 0x57 : -1;
    if (d < 0) return -1;
    v = v * 16 + d;
  }
  return v;
}
