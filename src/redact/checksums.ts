/**
 * Check-digit algorithms. A number-shaped string is only reported as a card,
 * an IBAN or a TFN when its check digit agrees, which is what keeps order
 * numbers, references and typos out of the redactions.
 */

/** Luhn (mod 10), used by payment cards. `digits` holds only 0-9. */
export function luhnValid(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return digits.length > 0 && sum % 10 === 0;
}

/**
 * ISO 13616 mod-97 check of a compact IBAN (no spaces, upper case): the
 * country code and check digits move to the end, letters become 10..35, and
 * the resulting number must leave remainder 1 when divided by 97.
 */
export function ibanMod97Valid(iban: string): boolean {
  const rearranged = iban.slice(4) + iban.slice(0, 4);
  let remainder = 0;
  for (const ch of rearranged) {
    const code = ch.charCodeAt(0);
    if (code >= 48 && code <= 57) {
      remainder = (remainder * 10 + (code - 48)) % 97;
    } else if (code >= 65 && code <= 90) {
      remainder = (remainder * 100 + (code - 55)) % 97;
    } else {
      return false;
    }
  }
  return remainder === 1;
}

const TFN_WEIGHTS = [1, 4, 3, 7, 5, 8, 6, 9, 10];

/** Australian Tax File Number (9 digits): the weighted digit sum is a multiple of 11. */
export function tfnValid(digits: string): boolean {
  if (digits.length !== 9) return false;
  let sum = 0;
  for (let i = 0; i < 9; i++) sum += (digits.charCodeAt(i) - 48) * (TFN_WEIGHTS[i] ?? 0);
  return sum % 11 === 0;
}
