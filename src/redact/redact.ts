import { NOTHING_ALLOWED, parseAllowList, type AllowList } from "./allow.js";
import { findPii } from "./detect.js";
import { removalHint } from "./hints.js";
import { label, type PiiKind } from "./kinds.js";

export type { PiiKind } from "./kinds.js";

/** A redacted text, how many pieces of each kind were removed (kinds with none are absent), and a hint per piece. */
export interface RedactionResult {
  text: string;
  removed: Partial<Record<PiiKind, number>>;
  /** One per removed piece, in text order: "phone ending 678" (see `removalHint`). */
  hints: string[];
}

/** The redactor with PII_ALLOW applied: the owner's own details stay in the text. */
export function makeRedactor(allowText: string | null | undefined): (text: string) => RedactionResult {
  const allow = parseAllowList(allowText);
  return (text) => redact(text, allow);
}

/**
 * Replaces every piece of PII or secret in `text` with its label (`[email]`,
 * `[phone]`, `[card]`, `[iban]`, `[ssn]`, `[tfn]`, `[nino]`, `[ip]`,
 * `[secret]`), except values `allow` lists (PII_ALLOW). Everything else is
 * kept byte for byte. Pure, synchronous, no I/O.
 */
export function redact(text: string, allow: AllowList = NOTHING_ALLOWED): RedactionResult {
  const spans = findPii(text).filter((s) => !allow.allows(s.kind, text.slice(s.start, s.end)));
  if (spans.length === 0) return { text, removed: {}, hints: [] };
  const removed: Partial<Record<PiiKind, number>> = {};
  const hints: string[] = [];
  let out = "";
  let at = 0;
  for (const span of spans) {
    out += text.slice(at, span.start) + label(span.kind);
    at = span.end;
    removed[span.kind] = (removed[span.kind] ?? 0) + 1;
    hints.push(removalHint(span.kind, text.slice(span.start, span.end)));
  }
  return { text: out + text.slice(at), removed, hints };
}
