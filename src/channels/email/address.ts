/**
 * Email addresses as the email channel takes them: one plain addr-spec per
 * entry (no display name), the domain turned into its ASCII (xn--) form the
 * way it will go out on the wire, and the characters that could forge a
 * header or make a line read differently than it is refused by name.
 */
import { domainToASCII, domainToUnicode } from "node:url";

/** CR, LF, NUL, every other C0 and C1 control, DEL, and the Unicode line and paragraph separators. */
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;
/** Direction controls: they make a text display in another order than it is written. */
const BIDI = /[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]/;
/** Zero-width characters: invisible, they make two different texts look the same. */
const ZERO_WIDTH = /[\u200b-\u200d\u2060\ufeff]/;

/** Half of a UTF-16 surrogate pair on its own: no character at all; it would go out as U+FFFD. */
export const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** The characters RFC 5322 allows in an atom (the local part of a plain address is dot-separated atoms). */
const ATEXT = "A-Za-z0-9!#$%&'*+/=?^_`{|}~-";
const DOT_ATOM = new RegExp(`^[${ATEXT}]+(?:\\.[${ATEXT}]+)*$`);
const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/** A character's code point as U+XXXX, for a refusal that names what it found. */
function codePoint(ch: string): string {
  return `U+${(ch.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, "0")}`;
}

/**
 * Why `value` may not stand in a header (an address, the subject): a control
 * character, a direction control, a zero-width character or a lone surrogate,
 * in words; null when it has none. Shared by every header field the destination carries.
 */
export function unsafeCharacterProblem(value: string): string | null {
  const control = CONTROL.exec(value);
  if (control) {
    return `contains a control character (${codePoint(control[0])}; CR, LF and NUL included), refused: it could add headers of its own`;
  }
  const bidi = BIDI.exec(value);
  if (bidi)
    return `contains an invisible direction control (${codePoint(bidi[0])}), refused: it makes the text read differently than it is`;
  const zero = ZERO_WIDTH.exec(value);
  if (zero) return `contains an invisible zero-width character (${codePoint(zero[0])}), refused: remove it`;
  if (LONE_SURROGATE.test(value)) return "contains a broken character (a lone UTF-16 surrogate), refused: it would arrive as �";
  return null;
}

/** An address as it will go out and as the owner may know it. */
export interface OutgoingAddress {
  /** The local part as given, @, the domain in ASCII (xn--) form, lowercased: what the server and the headers get. */
  readonly ascii: string;
  /** The same address with its domain in Unicode; equal to `ascii` for a plain ASCII domain. */
  readonly unicode: string;
  /** The ASCII domain, lowercased. */
  readonly domain: string;
}

/**
 * Reads one plain address: `{ ok: true, address }` with its outgoing form, or
 * `{ ok: false, problem }` saying what is wrong in words (the caller names the
 * field). Never throws.
 */
export function readAddress(value: string): { ok: true; address: OutgoingAddress } | { ok: false; problem: string } {
  const unsafe = unsafeCharacterProblem(value);
  if (unsafe) return { ok: false, problem: unsafe };
  if (/[<>"(),;:\s]/.test(value)) {
    return {
      ok: false,
      problem: `must be a plain address like anna@example.org, without a display name, quotes or brackets (got ${value})`,
    };
  }
  const at = value.lastIndexOf("@");
  if (at <= 0 || at === value.length - 1 || value.indexOf("@") !== at) {
    return { ok: false, problem: `must be a plain address like anna@example.org (got ${value})` };
  }
  const local = value.slice(0, at);
  if (local.length > 64 || !DOT_ATOM.test(local)) {
    return {
      ok: false,
      problem: `the part before @ must be plain ASCII letters, digits and . _ - + (at most 64), like anna@example.org (got ${value})`,
    };
  }
  const domain = domainToASCII(value.slice(at + 1));
  const labels = domain.split(".");
  if (domain === "" || labels.length < 2 || !labels.every((l) => LABEL.test(l)) || /^\d+$/.test(labels.at(-1) ?? "")) {
    return { ok: false, problem: `the domain after @ is not a valid domain name like example.org (got ${value})` };
  }
  const ascii = `${local}@${domain}`;
  if (ascii.length > 254) return { ok: false, problem: `is longer than 254 characters once its domain is in ASCII form` };
  return { ok: true, address: { ascii, unicode: `${local}@${domainToUnicode(domain)}`, domain } };
}

/** The outgoing form of an address the schema already accepted (its ASCII form; the value itself if it was never valid). */
export function outgoing(value: string): OutgoingAddress {
  const read = readAddress(value);
  return read.ok ? read.address : { ascii: value, unicode: value, domain: value.slice(value.lastIndexOf("@") + 1).toLowerCase() };
}

/** How an address is shown on the review post: as it will go out, with its Unicode form beside it when that differs. */
export function showAddress(address: OutgoingAddress): string {
  return address.ascii === address.unicode ? address.ascii : `${address.ascii} (${address.unicode})`;
}
