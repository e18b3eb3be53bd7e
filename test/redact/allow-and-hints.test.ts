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
