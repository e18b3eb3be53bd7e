import { luhnValid } from "./checksums.js";
import { digitsOf } from "./context.js";
import type { Detector, PiiSpan } from "./kinds.js";

/**
 * Payment card numbers: printed as 4-4-4-4(-3), 4-6-5 (Amex), 4-6-4
 * (Diners) or as one run of 13-19 digits. A candidate counts only when its
 * prefix and length belong to a card network and the Luhn check passes, so
 * invoice numbers, transaction ids and Telegram ids (which start with 1) stay.
 */
const CARD = new RegExp(
  String.raw`(?<![\w-])(?:\d{4}([ -]?)\d{4}\1\d{4}\1\d{4}(?:\1\d{3})?|\d{4}([ -]?)\d{6}\2\d{4,5}|\d{13,19})(?![\w]|[.,\/-]\d)`,
  "g",
);

/** Prefix and length rules of the major networks (IIN ranges). */
function isNetworkNumber(d: string): boolean {
  const n = d.length;
  const p2 = Number(d.slice(0, 2));
  const p3 = Number(d.slice(0, 3));
  const p4 = Number(d.slice(0, 4));
  if (d[0] === "4") return n === 13 || n === 16 || n === 19; // Visa
  if ((p2 >= 51 && p2 <= 55) || (p4 >= 2221 && p4 <= 2720)) return n === 16; // Mastercard
  if (p2 === 34 || p2 === 37) return n === 15; // American Express
  if (p4 === 6011 || p2 === 65 || (p3 >= 644 && p3 <= 649) || p2 === 62) return n >= 16; // Discover, UnionPay
  if ((p3 >= 300 && p3 <= 305) || p2 === 36 || p2 === 38 || p2 === 39) return n >= 14; // Diners Club
  if (p4 >= 3528 && p4 <= 3589) return n >= 16; // JCB
  return false;
}

/** Finds payment card numbers. */
export const findCards: Detector = (text) => {
  const spans: PiiSpan[] = [];
  for (const m of text.matchAll(CARD)) {
    const digits = digitsOf(m[0]);
    if (digits.length > 19 || !isNetworkNumber(digits) || !luhnValid(digits)) continue;
    spans.push({ kind: "card", start: m.index, end: m.index + m[0].length });
  }
  return spans;
};
