import { ibanMod97Valid } from "./checksums.js";
import type { Detector, PiiSpan } from "./kinds.js";

/**
 * IBANs: a country code, two check digits and the country's fixed number of
 * characters, compact or printed in groups of four (upper or lower case). A candidate counts only
 * when its length is the one its country uses and the mod-97 check passes, so
 * mistyped IBANs, sample formats and other codes stay.
 */

/** IBAN length per country (SWIFT IBAN registry). */
const IBAN_LENGTH: Readonly<Record<string, number>> = {
  AD: 24,
  AE: 23,
  AL: 28,
  AT: 20,
  AZ: 28,
  BA: 20,
  BE: 16,
  BG: 22,
  BH: 22,
  BI: 27,
  BR: 29,
  BY: 28,
  CH: 21,
  CR: 22,
  CY: 28,
  CZ: 24,
  DE: 22,
  DJ: 27,
  DK: 18,
  DO: 28,
  EE: 20,
  EG: 29,
  ES: 24,
  FI: 18,
  FK: 18,
  FO: 18,
  FR: 27,
  GB: 22,
  GE: 22,
  GI: 23,
  GL: 18,
  GR: 27,
  GT: 28,
  HR: 21,
  HU: 28,
  IE: 22,
  IL: 23,
  IQ: 23,
  IS: 26,
  IT: 27,
  JO: 30,
  KW: 30,
  KZ: 20,
  LB: 28,
  LC: 32,
  LI: 21,
  LT: 20,
  LU: 20,
  LV: 21,
  LY: 25,
  MC: 27,
  MD: 24,
  ME: 22,
  MK: 19,
  MN: 20,
  MR: 27,
  MT: 31,
  MU: 30,
  NI: 28,
  NL: 18,
  NO: 15,
  OM: 23,
  PK: 24,
  PL: 28,
  PS: 29,
  PT: 25,
  QA: 29,
  RO: 24,
  RS: 22,
  RU: 33,
  SA: 24,
  SC: 31,
  SD: 18,
  SE: 24,
  SI: 19,
  SK: 24,
  SM: 27,
  SO: 23,
  ST: 25,
  SV: 28,
  TL: 23,
  TN: 24,
  TR: 26,
  UA: 29,
  VA: 22,
  VG: 24,
  XK: 20,
  YE: 30,
};

/**
 * Country, check digits, then up to 30 more characters, each optionally
 * after one space. Greedy: the candidate may run into the next word, and
 * `cut` trims it to the country's length.
 */
const CANDIDATE = /(?<![A-Za-z0-9])[A-Za-z]{2}\d{2}(?: ?[A-Za-z0-9]){11,30}/g;

/** Finds IBANs. */
export const findIbans: Detector = (text) => {
  const spans: PiiSpan[] = [];
  CANDIDATE.lastIndex = 0;
  for (let m = CANDIDATE.exec(text); m !== null; m = CANDIDATE.exec(text)) {
    const end = cut(m[0], IBAN_LENGTH[m[0].slice(0, 2).toUpperCase()] ?? 0);
    if (end === 0) {
      CANDIDATE.lastIndex = m.index + 1;
      continue;
    }
    const compact = m[0].slice(0, end).replace(/ /g, "").toUpperCase();
    const next = text[m.index + end] ?? "";
    if (!/[A-Za-z0-9]/.test(next) && ibanMod97Valid(compact)) {
      spans.push({ kind: "iban", start: m.index, end: m.index + end });
      CANDIDATE.lastIndex = m.index + end;
    } else {
      CANDIDATE.lastIndex = m.index + 1;
    }
  }
  return spans;
};

/** Length of the prefix of `candidate` holding exactly `length` IBAN characters, or 0 if it is shorter. */
function cut(candidate: string, length: number): number {
  if (length === 0) return 0;
  let seen = 0;
  for (let i = 0; i < candidate.length; i++) {
    if (candidate[i] !== " ") seen += 1;
    if (seen === length) return i + 1;
  }
  return 0;
}
