import type { PiiKind } from "./kinds.js";
import { isAllowedPhone, phoneKey, type PhoneKey, withCountries } from "./phone-key.js";

/**
 * PII_ALLOW: values the owner never wants removed (their own email address,
 * phone number, handle). A phone number matches in any common notation, by
 * country code and national number (see phone-key.ts): `+61 412 345 678`,
 * `+61412345678` and `0412 345 678` are one number; `+1 412 345 678` is
 * another, though its digits end the same.
 */
export interface AllowList {
  /** True when the found `value` of `kind` is one of the allowed values. */
  allows(kind: PiiKind, value: string): boolean;
}

/** An allow list that allows nothing. */
export const NOTHING_ALLOWED: AllowList = { allows: () => false };

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
  const phones = withCountries(values.map(phoneKey).filter((k): k is PhoneKey => k !== null));
  const plain = new Set(values.map(plainKey));
  return {
    allows(kind, value) {
      if (plain.has(plainKey(value))) return true;
      if (kind !== "phone") return false;
      const key = phoneKey(value);
      return key !== null && phones.some((p) => isAllowedPhone(p, key));
    },
  };
}
