/**
 * Small helpers the detectors share for looking around a candidate match.
 * Some numbers are only PII when a keyword says so ("TFN 123456782"), and
 * some look like PII but a keyword says otherwise ("ACN 753 505 592").
 */

/**
 * True when `pattern` matches the text just before `index`, looking back at
 * most `windowChars` characters and never past the start of the line. A word
 * the window cuts in two is left out, so its tail cannot pass for a keyword
 * (the "ring" of "string" is no phone word).
 * `pattern` must not be global (a global regex carries state between calls).
 */
export function contextBefore(text: string, index: number, pattern: RegExp, windowChars = 32): boolean {
  let start = Math.max(0, index - windowChars);
  while (start > 0 && start < index && WORD_CHAR.test(text[start - 1]!) && WORD_CHAR.test(text[start]!)) start++;
  let before = text.slice(start, index);
  const newline = before.lastIndexOf("\n");
  if (newline >= 0) before = before.slice(newline + 1);
  return pattern.test(before);
}

const WORD_CHAR = /\w/;

/** Only the ASCII digits of `s`, e.g. "4111 1111-1111" -> "411111111111". */
export function digitsOf(s: string): string {
  return s.replace(/\D/g, "");
}
