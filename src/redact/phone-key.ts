import { digitsOf } from "./context.js";

/**
 * The ITU-T E.164 country codes of one and two digits; every other code has
 * three. The codes form a prefix code, so this is enough to split a number
 * written internationally into its country code and national number.
 */
const SHORT_COUNTRY_CODES: ReadonlySet<string> = new Set(
  (
    "1 7 20 27 30 31 32 33 34 36 39 40 41 43 44 45 46 47 48 49 51 52 53 54 55 56 57 58 " +
    "60 61 62 63 64 65 66 81 82 84 86 90 91 92 93 94 95 98"
  ).split(" "),
);

/** The shortest national number that counts as a phone number here (shorter ones are service codes). */
const MIN_NATIONAL_DIGITS = 7;

/**
 * A phone number as PII_ALLOW compares it: its country code when it was
 * written internationally (`+61 …`, `0061 …`), null when it was written
 * nationally (the country is not said), and its national number without the
 * trunk `0` (`0412 345 678` and `+61 (0) 412 345 678` both give `412345678`).
 */
export interface PhoneKey {
  readonly countryCode: string | null;
  readonly national: string;
}

/** Splits the digits after `+` or `00` into the country code and the national number. */
function splitCountryCode(digits: string): { countryCode: string; rest: string } {
  const size = SHORT_COUNTRY_CODES.has(digits.slice(0, 1)) ? 1 : SHORT_COUNTRY_CODES.has(digits.slice(0, 2)) ? 2 : 3;
  return { countryCode: digits.slice(0, size), rest: digits.slice(size) };
}

/** Reads a phone number in any common notation; null when it has too few digits to be one. */
export function phoneKey(value: string): PhoneKey | null {
  const text = value.replace(/\(0\)/g, "").trim();
  const all = digitsOf(text);
  const international = text.startsWith("+") || all.startsWith("00");
  const { countryCode, rest } = international ? splitCountryCode(all.replace(/^00/, "")) : { countryCode: null, rest: all };
  // One leading 0 is the trunk prefix (written after the country code too, by habit or in Italy's numbers).
  const national = rest.replace(/^0/, "");
  return national.length >= MIN_NATIONAL_DIGITS ? { countryCode, national } : null;
}

/**
 * True when the number `found` in a text is the allowed number `entry`: the
 * national numbers agree and so do the countries. A number found written
 * nationally is read as in the entry's country (the text is about the owner's
 * own country): `0412 345 678` is `+61 412 345 678`. A number found written
 * internationally proves its country: `+1 412 345 678` is not
 * `+61 412 345 678`, and not an entry written nationally either, whose country
 * is unknown (see withCountries).
 */
export function isAllowedPhone(entry: PhoneKey, found: PhoneKey): boolean {
  if (entry.national !== found.national) return false;
  return found.countryCode === null || found.countryCode === entry.countryCode;
}

/**
 * PII_ALLOW's phone entries, those written nationally also read in each
 * country that its international entries name (the owner's): with
 * `+61 400 000 000, 0412 345 678` the second is `+61 412 345 678` too. With
 * no international entry, a national entry keeps only numbers written
 * nationally: redacting too much is the safe side.
 */
export function withCountries(entries: readonly PhoneKey[]): PhoneKey[] {
  const countries = new Set(entries.flatMap((e) => (e.countryCode === null ? [] : [e.countryCode])));
  return entries.flatMap((e) =>
    e.countryCode !== null ? [e] : [e, ...[...countries].map((countryCode) => ({ countryCode, national: e.national }))],
  );
}
