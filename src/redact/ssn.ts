import { contextBefore } from "./context.js";
import type { Detector, PiiSpan } from "./kinds.js";

/**
 * US Social Security numbers. The dashed form `123-45-6789` is distinctive
 * enough alone; the spaced and unseparated forms also look like phone
 * fragments, ids and amounts, so they count only after an SSN keyword. Numbers
 * the SSA never issues (area 000, 666 or 900-999, group 00, serial 0000) are
 * never SSNs: they are the usual placeholders and ITINs.
 */
const SSN = /(?<![\w-])(\d{3})([- ]?)(\d{2})\2(\d{4})(?![\w]|[.\/-]\d)/g;
const KEYWORD = /\b(?:ssn|social security)\b/i;

/** Finds US Social Security numbers. */
export const findSsns: Detector = (text) => {
  const spans: PiiSpan[] = [];
  for (const m of text.matchAll(SSN)) {
    const [whole, area = "", sep, group, serial] = m;
    if (area === "000" || area === "666" || area[0] === "9" || group === "00" || serial === "0000") continue;
    if (sep !== "-" && !contextBefore(text, m.index, KEYWORD, 40)) continue;
    spans.push({ kind: "ssn", start: m.index, end: m.index + whole.length });
  }
  return spans;
};
