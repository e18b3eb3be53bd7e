import { contextBefore } from "./context.js";
import type { Detector, PiiSpan } from "./kinds.js";

/**
 * UK National Insurance numbers: two prefix letters, six digits (often in
 * pairs), and a suffix A-D. The prefix letters follow HMRC's rules: D, F, I,
 * Q, U and V are never used, O is never second, and BG, GB, KN, NK, NT, TN and
 * ZZ are never allocated, so HMRC's own sample `QQ 12 34 56 C` stays.
 */
const NINO = /(?<![\w])(?!BG|GB|KN|NK|NT|TN|ZZ)[A-CEGHJ-PR-TW-Z][A-CEGHJ-NPR-TW-Z] ?\d{2} ?\d{2} ?\d{2}(?: ?[A-D])?(?![\w])/g;
const KEYWORD = /\b(?:ni|nino|national insurance)\b/i;
const LETTER_AFTER = /^ ?[A-Za-z]\b/;

/**
 * Finds UK National Insurance numbers. Without its suffix letter a NINO looks
 * like a product code (`AB123456`), so that form counts only after an NI
 * keyword, and not when another letter follows (a wrong suffix is a typo).
 */
export const findNinos: Detector = (text) => {
  const spans: PiiSpan[] = [];
  for (const m of text.matchAll(NINO)) {
    const end = m.index + m[0].length;
    const hasSuffix = /[A-D]$/.test(m[0]);
    if (!hasSuffix && (LETTER_AFTER.test(text.slice(end, end + 3)) || !contextBefore(text, m.index, KEYWORD, 32))) continue;
    spans.push({ kind: "nino", start: m.index, end });
  }
  return spans;
};
