import { findPii } from "./detect.js";
import { label, type PiiKind } from "./kinds.js";

export type { PiiKind } from "./kinds.js";

/** A redacted text and how many pieces of each kind were removed (kinds with none are absent). */
export interface RedactionResult {
  text: string;
  removed: Partial<Record<PiiKind, number>>;
}

/**
 * Replaces every piece of PII or secret in `text` with its label (`[email]`,
 * `[phone]`, `[card]`, `[iban]`, `[ssn]`, `[tfn]`, `[nino]`, `[ip]`,
 * `[secret]`). Everything else is kept byte for byte. Pure, synchronous, no I/O.
 */
export function redact(text: string): RedactionResult {
  const spans = findPii(text);
  if (spans.length === 0) return { text, removed: {} };
  const removed: Partial<Record<PiiKind, number>> = {};
  let out = "";
  let at = 0;
  for (const span of spans) {
    out += text.slice(at, span.start) + label(span.kind);
    at = span.end;
    removed[span.kind] = (removed[span.kind] ?? 0) + 1;
  }
  return { text: out + text.slice(at), removed };
}
