import { digitsOf } from "./context.js";
import type { PiiKind } from "./kinds.js";

/**
 * A hint that lets the reviewer recognise what was removed without showing
 * it: "phone ending 678", "email at northwind.io", "card ending 1111".
 * Never more than a few trailing digits, a domain, or a length.
 */
export function removalHint(kind: PiiKind, value: string): string {
  const digits = digitsOf(value);
  const ending = (n: number, name: string) => (digits.length > n + 3 ? `${name} ending ${digits.slice(-n)}` : name);
  switch (kind) {
    case "phone":
      return ending(3, "phone");
    case "card":
      return ending(4, "card");
    case "iban":
      return ending(4, "IBAN");
    case "ssn":
      return ending(2, "SSN");
    case "tfn":
      return ending(2, "TFN");
    case "nino":
      return "NI number";
    case "email": {
      const domain = value.slice(value.lastIndexOf("@") + 1).toLowerCase();
      return domain === "" ? "email" : `email at ${domain}`;
    }
    case "ip":
      return "IP address";
    case "secret":
      return `secret of ${value.length} characters`;
  }
}

/** The hints as the review post shows them: "phone ending 678, email at northwind.io" (each once, in order). */
export function hintsText(hints: readonly string[]): string {
  return [...new Set(hints)].join(", ");
}
