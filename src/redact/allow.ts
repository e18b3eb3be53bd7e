import { digitsOf } from "./context.js";
import type { PiiKind } from "./kinds.js";

/**
 * PII_ALLOW: values the owner never wants removed (their own email address,
 * phone number, handle). A phone number matches in any common notation:
 * `+61 412 345 678`, `+61412345678` and `0412 345 678` are one number.
 */
export interface AllowList {
  /** True when the found `value` of `kind` is one of the allowed values. */
  allows(kind: PiiKind, value: string): boolean;
}

/** An allow list that allows nothing. */
export const NOTHING_ALLOWED: AllowList = { allows: () => false };

/** Digits that identify a phone number whatever the notation: no `00`/`+` prefix, no trunk `0`. */
function phoneKey(value: string): string {
  const digits = digitsOf(value.replace("(0)", ""));
  return digits.replace(/^00/, "").replace(/^0/, "");
}

/** The same number: one key ends with the other (the longer one has the country code), and 8+ digits agree. */
function samePhone(a: string, b: string): boolean {
  const [short, long] = a.length <= b.length ? [a, b] : [b, a];
  return short.length >= 8 && long.endsWith(short);
}

/** Text compared without case and spacing (emails, handles, anything else). */
function plainKey(value: string): string {
  return value.replace(/\s+/g, "").toLowerCase().replace(/^@/, "");
}

/** Parses PII_ALLOW (comma-separated; empty parts ignored). */
export function parseAllowList(text: string | null | undefined): AllowList {
  const values = (text ?? "")
    .split(",")
    .map((v) => v.trim())
    .filter((v) => v !== "");
  if (values.length === 0) return NOTHING_ALLOWED;
  const phones = values.map(phoneKey).filter((k) => k.length >= 8);
  const plain = new Set(values.map(plainKey));
  return {
    allows(kind, value) {
      if (plain.has(plainKey(value))) return true;
      if (kind !== "phone") return false;
      const key = phoneKey(value);
      return phones.some((p) => samePhone(p, key));
    },
  };
}
