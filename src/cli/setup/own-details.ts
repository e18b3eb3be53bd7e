import { parseAllowList } from "../../redact/allow.js";
import { findEmails } from "../../redact/email.js";
import { phoneKey } from "../../redact/phone-key.js";

/**
 * The owner's own phone numbers and email addresses, for PII_ALLOW: setup
 * asks for them so that redaction leaves them in drafts (the owner's number
 * in "call me on …" is no leak). Pure: reading answers, checking each value,
 * merging with what `.env` already has.
 */

/** What an answer holds: the values that are valid, and the ones that are not (to ask again). */
export interface OwnDetailsAnswer {
  readonly values: readonly string[];
  readonly invalid: readonly string[];
}

/** What a phone number may be written with: digits, spaces, `+`, `-`, `.`, `/` and brackets. */
const PHONE_CHARS = /^\+?[\d\s()./-]+$/;
/** E.164 allows at most 15 digits. */
const MAX_PHONE_DIGITS = 15;

/** True for a phone number in a common notation that PII_ALLOW can match (7 to 15 digits). */
export function isPhoneNumber(value: string): boolean {
  const digits = value.replace(/\D/g, "").length;
  return PHONE_CHARS.test(value) && digits <= MAX_PHONE_DIGITS && phoneKey(value) !== null;
}

/** True for one email address, as redaction finds it (so PII_ALLOW keeps exactly what would be removed). */
export function isEmailAddress(value: string): boolean {
  const spans = findEmails(value);
  return spans.length === 1 && spans[0]!.start === 0 && spans[0]!.end === value.length;
}

/** Reads a comma- (or semicolon-) separated answer; an empty answer holds nothing (skips). */
export function readOwnDetails(answer: string, kind: "phone" | "email"): OwnDetailsAnswer {
  const parts = answer
    .split(/[,;]/)
    .map((p) => p.trim())
    .filter((p) => p !== "");
  const valid = kind === "phone" ? isPhoneNumber : isEmailAddress;
  return { values: parts.filter(valid), invalid: parts.filter((p) => !valid(p)) };
}

/**
 * PII_ALLOW with `values` added after what it has: a value the list already
 * allows (the same number in another notation, an address in another case)
 * or that comes twice is not added again. `added` lists what is new.
 */
export function mergeAllowList(existing: string | undefined, values: readonly string[]): { value: string; added: string[] } {
  const kept = (existing ?? "")
    .split(",")
    .map((v) => v.trim())
    .filter((v) => v !== "");
  const added: string[] = [];
  for (const v of values) {
    const allowed = parseAllowList([...kept, ...added].join(","));
    if (!allowed.allows(isPhoneNumber(v) ? "phone" : "email", v)) added.push(v);
  }
  return { value: [...kept, ...added].join(","), added };
}

/** The values of a `--pii-allow` list: its phone numbers, then its email addresses, and those that are neither. */
export function readGivenList(list: string): OwnDetailsAnswer {
  const phones = readOwnDetails(list, "phone");
  const emails = readOwnDetails(phones.invalid.join(","), "email");
  return { values: [...phones.values, ...emails.values], invalid: emails.invalid };
}

/** Why a `--pii-allow` list is refused (a value that is no phone number or email address), or null. */
export function piiAllowProblem(list: string): string | null {
  const { invalid } = readGivenList(list);
  if (invalid.length === 0) return null;
  return `--pii-allow: ${invalid.map((v) => `"${v}"`).join(", ")} ${invalid.length === 1 ? "is" : "are"} no phone number (7 to 15 digits, + and spaces allowed) or email address`;
}
