import type { PiiKind, PiiSpan } from "./kinds.js";

/**
 * When detectors disagree about a piece of text, the more specific finding
 * wins: a secret over anything inside it (a URL password before an `@` is not
 * an email), checksum-validated numbers over pattern-only ones, and phone
 * numbers, the loosest pattern, last.
 */
const PRIORITY: Readonly<Record<PiiKind, number>> = {
  secret: 0,
  iban: 1,
  card: 2,
  tfn: 3,
  ssn: 4,
  nino: 5,
  email: 6,
  ip: 7,
  phone: 8,
};

/**
 * Picks non-overlapping spans: by priority, then the longer span, then the
 * earlier one. Spans that overlap an accepted one are dropped whole, never
 * trimmed. The result is sorted by position.
 */
export function resolveOverlaps(spans: readonly PiiSpan[]): PiiSpan[] {
  const ranked = [...spans].sort((a, b) => PRIORITY[a.kind] - PRIORITY[b.kind] || b.end - b.start - (a.end - a.start) || a.start - b.start);
  const accepted: PiiSpan[] = [];
  for (const span of ranked) {
    if (accepted.every((kept) => span.end <= kept.start || kept.end <= span.start)) accepted.push(span);
  }
  return accepted.sort((a, b) => a.start - b.start);
}
