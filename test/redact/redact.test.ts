import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { resolveOverlaps } from "../../src/redact/spans.js";
import { redact } from "../../src/redact/redact.js";

describe("redact", () => {
  it("replaces each piece with its label and counts it", () => {
    const result = redact("Mail ana@example.com or call +61 412 345 678, or ana2@example.com.");
    expect(result).toEqual({
      text: "Mail [email] or call [phone], or [email].",
      removed: { email: 2, phone: 1 },
      hints: ["email at example.com", "phone ending 678", "email at example.com"],
    });
  });

  it("returns the text unchanged and nothing removed when there is no PII", () => {
    const text = "Invoice INV-2024-0042 for $1,250.00 is due 2024-07-01 (chat -1001234567890).";
    expect(redact(text)).toEqual({ text, removed: {}, hints: [] });
    expect(redact("")).toEqual({ text: "", removed: {}, hints: [] });
  });

  it("lets a URL password win over the email-looking text around it", () => {
    expect(redact("mongodb://admin:hunter2@cluster0.example.net/crm").text).toBe("mongodb://admin:[secret]@cluster0.example.net/crm");
  });

  it("is idempotent: a redacted text has nothing left to redact", () => {
    // Pieces are joined with " and ": detectors look at their neighbours (a TFN followed by " 123" may
    // be part of a longer number; a "+44" glued to a word is not a phone), and a label changes those
    // neighbours. Texts that glue PII to PII are not worth bending the detectors for.
    const piece = fc.constantFrom(
      "bob@example.com",
      "+44 7700 900123",
      "4111 1111 1111 1111",
      "GB82 WEST 1234 5698 7654 32",
      "123-45-6789",
      "TFN 123 456 782",
      "AB 12 34 56 C",
      "10.0.0.1",
      "2001:db8::1",
      "AKIAIOSFODNN7EXAMPLE",
      " ",
      ", ",
      "\n",
      "-1001234567890",
      "v1.2.3",
      "2024-05-12",
      "$12.50",
      "@",
      ":",
    );
    fc.assert(
      fc.property(fc.array(fc.oneof(piece, fc.string({ maxLength: 8 })), { maxLength: 30 }), (parts) => {
        const once = redact(parts.join(" and ")).text;
        expect(redact(once)).toEqual({ text: once, removed: {}, hints: [] });
      }),
      { numRuns: 300 },
    );
  });

  it("leaves any mix of PII-like non-PII untouched", () => {
    const lookalike = fc.constantFrom(
      "2024-05-12",
      "12/05/2024",
      "01.07.2024",
      "14:30",
      "23:59:59",
      "2024-05-12T09:41:27Z",
      "$1,234.56",
      "AUD 12,500",
      "EUR 4.200,00",
      "12.5%",
      "-3.2%",
      "-1001234567890",
      "chat_id=-1002233445566",
      "message 48213",
      "user 5123456789",
      "v2.14.3",
      "node 20.11.1",
      "version 10.1.2.3",
      "INV-2024-00123",
      "order #100234567",
      "PO-55102",
      "https://example.com/a/b?page=2&utm_source=tg",
      "https://t.me/c/1987654321/4521",
      "4111 1111 1111 1112",
      "GB83 WEST 1234 5698 7654 32",
      "TFN 123 456 789",
      "000-12-3456",
      "QQ 12 34 56 C",
      "256.1.1.1",
      "00:1A:2B:3C:4D:5E",
      "16:9",
      "std::string",
      "@acme_bot",
      "ext. 204",
      "+1 for this",
      "ISBN 978-0-13-468599-1",
      "ABN 53 123 456 782",
      "3f2a9c1d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a39",
    );
    const separator = fc.constantFrom(" ", ", ", "; ", "\n", " - ", " (", ") ");
    fc.assert(
      fc.property(fc.array(fc.tuple(lookalike, separator), { maxLength: 12 }), (pairs) => {
        const text = pairs.map(([piece, sep]) => piece + sep).join("");
        expect(redact(text)).toEqual({ text, removed: {}, hints: [] });
      }),
      { numRuns: 300 },
    );
  });

  it("handles 4096-character adversarial drafts (no catastrophic backtracking)", () => {
    for (const unit of ["4", "1234 ", "a:", "a.b@", "a.", "sk-", "GB12 ", "A_TOKEN=", "-----BEGIN PRIVATE KEY-----"]) {
      const draft = unit.repeat(Math.ceil(4096 / unit.length)).slice(0, 4096);
      expect(typeof redact(draft).text).toBe("string");
    }
  });
});

describe("resolveOverlaps", () => {
  it("keeps the higher-priority span, then the longer one, and sorts by position", () => {
    expect(
      resolveOverlaps([
        { kind: "phone", start: 10, end: 20 },
        { kind: "email", start: 12, end: 30 },
        { kind: "secret", start: 25, end: 28 },
        { kind: "ip", start: 0, end: 5 },
        { kind: "ip", start: 0, end: 8 },
      ]),
    ).toEqual([
      { kind: "ip", start: 0, end: 8 },
      { kind: "phone", start: 10, end: 20 },
      { kind: "secret", start: 25, end: 28 },
    ]);
  });
});
