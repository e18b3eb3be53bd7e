import { describe, expect, it } from "vitest";
import { parseAllowList } from "../../src/redact/allow.js";
import { hintsText, removalHint } from "../../src/redact/hints.js";
import { makeRedactor, redact } from "../../src/redact/redact.js";

// Issue 13 item 6: redaction that keeps the owner's own details, and says what it removed.

describe("PII_ALLOW", () => {
  const allowed = makeRedactor("+61 412 345 678, owner@tao.example, @owner_handle");

  it("keeps the owner's phone number in any common notation, and still removes others", () => {
    for (const phone of ["+61 412 345 678", "+61412345678", "0412 345 678", "0412-345-678", "+61 (0) 412 345 678", "0061 412 345 678"]) {
      expect(allowed(`Call me on ${phone} tonight.`).text, phone).toBe(`Call me on ${phone} tonight.`);
    }
    expect(allowed("Call Sam on 0412 999 888.")).toMatchObject({ text: "Call Sam on [phone].", hints: ["phone ending 888"] });
  });

  // Issue 19 row 11: matched by country code and national number, never by a digit suffix.
  it("does not keep another country's number whose digits end like the owner's", () => {
    for (const other of ["+1 412 345 678", "+44 412 345 678", "+614 412 345 678", "0061 1412 345 678"]) {
      expect(parseAllowList("+61 412 345 678").allows("phone", other), other).toBe(false);
    }
    expect(allowed("Not mine: +1 412 345 678.").text).toBe("Not mine: [phone].");
  });

  it("reads a number written nationally in the owner's country, an entry written nationally only where PII_ALLOW says", () => {
    const us = parseAllowList("+1 (412) 555-0100");
    expect(us.allows("phone", "(412) 555-0100")).toBe(true);
    expect(us.allows("phone", "+1 412 555 0100")).toBe(true);
    expect(us.allows("phone", "+61 412 555 0100")).toBe(false);
    // Italy keeps the 0 after the country code: both notations still name one number.
    expect(parseAllowList("+39 06 1234 5678").allows("phone", "06 1234 5678")).toBe(true);
    // An entry without a country code: written nationally it matches; internationally only in the country of another entry.
    const national = parseAllowList("0412 345 678");
    expect(national.allows("phone", "0412-345-678")).toBe(true);
    expect(national.allows("phone", "+61 412 345 678")).toBe(false);
    expect(national.allows("phone", "+1 412 345 678")).toBe(false);
    const withHome = parseAllowList("+61 400 000 000, 0412 345 678");
    expect(withHome.allows("phone", "+61 412 345 678")).toBe(true);
    expect(withHome.allows("phone", "+1 412 345 678")).toBe(false);
    // Too short to be a phone number: never matched as one.
    expect(parseAllowList("+61 123").allows("phone", "+61 123")).toBe(true);
    expect(parseAllowList("123 45").allows("phone", "+61 123 45")).toBe(false);
  });

  it("keeps the owner's email whatever its case, and a handle; other emails go", () => {
    expect(allowed("Write to Owner@TAO.example or ana@example.com").text).toBe("Write to Owner@TAO.example or [email]");
    expect(parseAllowList("@owner_handle").allows("email", "owner_handle")).toBe(true);
  });

  it("allows nothing when unset or empty", () => {
    expect(makeRedactor(undefined)("Call me on +61 412 345 678").text).toBe("Call me on [phone]");
    expect(makeRedactor(" , ")("Call me on +61 412 345 678").text).toBe("Call me on [phone]");
  });
});

describe("removal hints", () => {
  it("let the reviewer recognise what was removed without showing it", () => {
    expect(removalHint("phone", "+61 412 345 678")).toBe("phone ending 678");
    expect(removalHint("card", "4111 1111 1111 1111")).toBe("card ending 1111");
    expect(removalHint("email", "priya@Northwind.io")).toBe("email at northwind.io");
    expect(removalHint("secret", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY")).toBe("secret of 40 characters");
    expect(hintsText(["phone ending 678", "email at x.io", "phone ending 678"])).toBe("phone ending 678, email at x.io");
  });

  it("are what redact returns, in text order", () => {
    expect(redact("Cache: redis://:s3cretPass@cache.internal:6379 · call 0412 345 678").hints).toEqual([
      "secret of 10 characters",
      "phone ending 678",
    ]);
  });
});
