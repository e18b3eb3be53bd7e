import { contextBefore, digitsOf } from "./context.js";
import type { Detector, PiiSpan } from "./kinds.js";

/**
 * Phone numbers in international form (`+` and a country code) and in the
 * national forms of Australia, the US and the UK. National forms are matched
 * only in their real shapes (a trunk `0` with the right area prefixes, US
 * area and exchange codes starting 2-9 with consistent separators), so
 * dates, amounts, Telegram chat ids (`-100...`), message ids and order
 * numbers do not match. Not covered: other countries' national forms (use
 * the international form), and bare ten-digit US numbers with no phone word
 * before them.
 */

// Not glued to a word, a sign, a decimal point, a slash or a hyphen before, nor the
// continuation of a spaced number ("123 456 789 4111")...
const PRE = String.raw`(?<![\w+.\/-]|\d )`;
// ...and not continued by a word character or another number after.
const POST = String.raw`(?![\w]|[.\/-]\d)`;

const AU = [
  String.raw`04\d{2}[ -]?\d{3}[ -]?\d{3}`, // mobile 0412 345 678
  String.raw`\(04\d{2}\) ?\d{3}[ -]?\d{3}`, // mobile (0412) 345 678
  String.raw`04[ -]\d{4}[ -]\d{4}`, // mobile 04 1234 5678
  String.raw`\(0[2378]\) ?\d{4}[ -]?\d{4}`, // landline (02) 9374 4000
  String.raw`0[2378][ -]?\d{4}[ -]?\d{4}`, // landline 02 9374 4000
  String.raw`1[38]00[ -]?\d{3}[ -]?\d{3}`, // 1300 / 1800 numbers
];
const US = [
  String.raw`(?:1[ .-]?)?\([2-9]\d{2}\) ?[2-9]\d{2}[ .-]\d{4}`, // (415) 555-0132
  String.raw`(?:1[ .-])?[2-9]\d{2}(?<sep>[.-])[2-9]\d{2}\k<sep>\d{4}`, // 415-555-0132, 1-800-555-0199
];
const UK = [
  String.raw`07\d{3}[ -]?\d{3}[ -]?\d{3}`, // mobile 07700 900123, 07700-900-123
  String.raw`02\d[ -]?\d{4}[ -]?\d{4}`, // 020 7946 0958
  String.raw`01\d1[ -]?\d{3}[ -]?\d{4}`, // 0161 496 0000
  String.raw`011\d[ -]?\d{3}[ -]?\d{4}`, // 0113 496 0777
  String.raw`01\d{3}[ -]?(?:\d{5,6}|\d{3}[ -]?\d{3})`, // 01632 960000, 01632 960 000
  String.raw`0[389]\d{2}[ -]?\d{3}[ -]?\d{4}`, // 0800 123 4567, 0345 ...
  String.raw`\(0[12]\d{1,3}\) ?\d{3,4} ?\d{3,4}`, // (020) 7946 0958, (01632) 960000
];

const NATIONAL = new RegExp(`${PRE}(?:${[...AU, ...US, ...UK].join("|")})${POST}`, "g");

/**
 * US numbers written as ten bare digits or with spaces only look like ids and
 * lists of figures ("scores 250 300 1000"), so they count only after a
 * phone word.
 */
const US_BARE = new RegExp(String.raw`${PRE}(?:1 ?)?(?:[2-9]\d{2}[2-9]\d{6}|[2-9]\d{2} [2-9]\d{2} \d{4})${POST}`, "g");
const PHONE_WORD = /\b(?:phone|ph|tel|telephone|mobile|mob|cell|call|ring|text|sms|whatsapp|fax|dial)\b/i;

/**
 * `+`, a country code, then groups of digits separated by at most one space,
 * dot or hyphen; `(0)` (the UK trunk digit) and a parenthesised area code are
 * allowed. `\d{1,12}(?!\d)` takes each group whole, so the match is linear.
 */
const INTERNATIONAL = new RegExp(String.raw`(?<![\w+])\+[1-9]\d{0,2}(?: ?\(0\))?(?:[ .-]?(?:\(\d{1,4}\)|\d{1,12}(?!\d))){1,7}` + POST, "g");

/** Finds phone numbers. */
export const findPhones: Detector = (text) => {
  const spans: PiiSpan[] = [];
  for (const m of text.matchAll(INTERNATIONAL)) {
    const digits = digitsOf(m[0].replace("(0)", ""));
    if (digits.length < 8 || digits.length > 15) continue;
    spans.push({ kind: "phone", start: m.index, end: m.index + m[0].length });
  }
  for (const m of text.matchAll(NATIONAL)) {
    spans.push({ kind: "phone", start: m.index, end: m.index + m[0].length });
  }
  for (const m of text.matchAll(US_BARE)) {
    if (contextBefore(text, m.index, PHONE_WORD, 30)) spans.push({ kind: "phone", start: m.index, end: m.index + m[0].length });
  }
  return spans;
};
