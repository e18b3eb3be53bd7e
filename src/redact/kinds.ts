/**
 * The categories of personal or secret data the redactor removes. Each one has
 * a stable label that replaces the removed text, so a reader of a redacted
 * draft (or of the audit log) still sees what kind of thing was there.
 */
export type PiiKind = "email" | "phone" | "card" | "iban" | "ssn" | "tfn" | "nino" | "ip" | "secret";

/** Every kind, in the order reports list them. */
export const PII_KINDS: readonly PiiKind[] = ["email", "phone", "card", "iban", "ssn", "tfn", "nino", "ip", "secret"];

/**
 * One detected piece of PII: `text.slice(start, end)` is what gets removed.
 * Detectors return these; `redact` replaces them with `label(kind)`.
 */
export interface PiiSpan {
  readonly kind: PiiKind;
  readonly start: number;
  readonly end: number;
}

/** The text that replaces a removed span, e.g. `[email]`. Stable: others match on it. */
export function label(kind: PiiKind): string {
  return `[${kind}]`;
}

/** A detector finds every span of its family in a text. Pure; spans may overlap other families'. */
export type Detector = (text: string) => PiiSpan[];
