import { tfnValid } from "./checksums.js";
import { contextBefore, digitsOf } from "./context.js";
import type { Detector, PiiSpan } from "./kinds.js";

/**
 * Australian Tax File Numbers: nine digits, usually printed 3-3-3, whose
 * weighted check digit agrees. An unseparated run of nine digits (a Telegram
 * user id, an order number) counts only after a TFN keyword. A 3-3-3 group
 * that is the tail of an ABN (`52 815 516 963`) or follows an ACN/ABN keyword
 * is a company number, not a TFN.
 */
const TFN = /(?<![\w-]|\d[ -])\d{3}([ -]?)\d{3}\1\d{3}(?![\w]|[ .\/-]\d)/g;
const KEYWORD = /\b(?:tfn|tax file)/i;
const COMPANY = /\b(?:abn|acn|arbn|arsn)\b/i;

/** Finds Australian Tax File Numbers. */
export const findTfns: Detector = (text) => {
  const spans: PiiSpan[] = [];
  for (const m of text.matchAll(TFN)) {
    if (!tfnValid(digitsOf(m[0]))) continue;
    if (m[1] === "" && !contextBefore(text, m.index, KEYWORD, 40)) continue;
    if (contextBefore(text, m.index, COMPANY, 16)) continue;
    spans.push({ kind: "tfn", start: m.index, end: m.index + m[0].length });
  }
  return spans;
};
