import { describe, expect, it } from "vitest";
import { ibanMod97Valid, luhnValid, tfnValid } from "../../src/redact/checksums.js";

describe("luhnValid", () => {
  it.each(["4111111111111111", "5555555555554444", "378282246310005", "6011111111111117", "79927398713"])("accepts %s", (n) =>
    expect(luhnValid(n)).toBe(true),
  );
  it.each(["4111111111111112", "1234567812345678", "79927398710", ""])("rejects %s", (n) => expect(luhnValid(n)).toBe(false));
});

describe("ibanMod97Valid", () => {
  it.each(["GB82WEST12345698765432", "DE89370400440532013000", "FR1420041010050500013M02606", "NL91ABNA0417164300"])("accepts %s", (iban) =>
    expect(ibanMod97Valid(iban)).toBe(true),
  );
  it.each(["GB83WEST12345698765432", "DE89370400440532013001", "GB00WEST12345698765432", "GB82west12345698765432"])("rejects %s", (iban) =>
    expect(ibanMod97Valid(iban)).toBe(false),
  );
});

describe("tfnValid", () => {
  it.each(["123456782", "876543210", "865414088"])("accepts %s", (tfn) => expect(tfnValid(tfn)).toBe(true));
  it.each(["123456789", "876543211", "12345678", "1234567820"])("rejects %s", (tfn) => expect(tfnValid(tfn)).toBe(false));
});
