import { describe, expect, it } from "vitest";
import { findPii } from "../../src/redact/detect.js";
import { redact } from "../../src/redact/redact.js";
import { isIpv6 } from "../../src/redact/ip.js";
import type { PiiKind } from "../../src/redact/kinds.js";

/** What findPii reports, as [kind, value] pairs, for compact tables. */
function found(text: string): [PiiKind, string][] {
  return findPii(text).map((s) => [s.kind, text.slice(s.start, s.end)]);
}

describe("findPii, one family at a time", () => {
  it.each<[string, [PiiKind, string][]]>([
    ["mail bob.smith+tg@mail.example.co.uk.", [["email", "bob.smith+tg@mail.example.co.uk"]]],
    ["git clone git@github.com:org/repo.git", []],
    ["npm i @scope/pkg@1.2.3 and ping @alice", []],
    [
      "call 0412 345 678 or +61 2 9374 4000",
      [
        ["phone", "0412 345 678"],
        ["phone", "+61 2 9374 4000"],
      ],
    ],
    [
      "US (415) 555-0132, UK 020 7946 0958",
      [
        ["phone", "(415) 555-0132"],
        ["phone", "020 7946 0958"],
      ],
    ],
    ["chat -1001234567890, message 48213, +12% WoW", []],
    ["card 4111 1111 1111 1111 and 4111 1111 1111 1112", [["card", "4111 1111 1111 1111"]]],
    ["iban GB82 WEST 1234 5698 7654 32 and GB83 WEST 1234 5698 7654 32", [["iban", "GB82 WEST 1234 5698 7654 32"]]],
    ["SSN 123-45-6789, not 000-12-3456 or 912-34-5678", [["ssn", "123-45-6789"]]],
    ["order 123456789; SSN 123456789", [["ssn", "123456789"]]],
    ["TFN 123 456 782, not 123 456 789", [["tfn", "123 456 782"]]],
    ["user 123456782 vs TFN 123456782", [["tfn", "123456782"]]],
    ["ABN 53 123 456 782 and ACN 123 456 782", []],
    ["NI AB 12 34 56 C, sample QQ 12 34 56 C", [["nino", "AB 12 34 56 C"]]],
    [
      "from 203.0.113.7:8080 and 2001:db8::1.",
      [
        ["ip", "203.0.113.7"],
        ["ip", "2001:db8::1"],
      ],
    ],
    ["version 10.1.2.3, at 23:59:59, MAC 00:1A:2B:3C:4D:5E, std::string", []],
  ])("%s", (text, expected) => {
    expect(found(text)).toEqual(expected);
  });
});

describe("secrets", () => {
  it.each<[string, string]>([
    ["key AKIAIOSFODNN7EXAMPLE leaked", "AKIAIOSFODNN7EXAMPLE"],
    ["Authorization: Bearer abc123def456ghi789jkl", "abc123def456ghi789jkl"],
    ["token 123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw0 from BotFather", "123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw0"],
    [
      "GET https://api.telegram.org/bot123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw0/getMe",
      "123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw0",
    ],
    ["db postgres://app:p@55word!@db.example.com/prod", "p@55word!"],
    ["db postgres://app:hunter2@db.example.com/prod", "hunter2"],
    ["link https://x.example.com/a?token=abcdef123456.", "abcdef123456"],
    ["SMTP_PASSWORD=s3cretPassw0rd", "s3cretPassw0rd"],
  ])("%s", (text, secret) => {
    expect(found(text)).toEqual([["secret", secret]]);
  });

  it("removes a private key block whole, and an unterminated one to the end", () => {
    const block = "-----BEGIN RSA PRIVATE KEY-----\nMIIEow\nAbCd==\n-----END RSA PRIVATE KEY-----";
    expect(found(`key:\n${block}\nthanks`)).toEqual([["secret", block]]);
    expect(found("key: -----BEGIN PRIVATE KEY-----\nMIIEvQ")).toEqual([["secret", "-----BEGIN PRIVATE KEY-----\nMIIEvQ"]]);
  });

  it.each([
    "Authorization: Bearer <token>",
    "we use a bearer token for the intake API",
    "DRAFT_API_TOKEN=${DRAFT_API_TOKEN}",
    "TELEGRAM_BOT_TOKEN: required in live mode",
    "https://example.com/docs?page=2&utm_source=telegram",
    "postgres://localhost:5432/dev",
    "-----BEGIN PUBLIC KEY----- MIIBIjANBg -----END PUBLIC KEY-----",
  ])("leaves %s", (text) => {
    expect(found(text)).toEqual([]);
  });
});

describe("isIpv6", () => {
  it.each(["::1", "2001:db8::8a2e:370:7334", "fe80::1ff:fe23:4567:890a", "::ffff:192.0.2.128", "1:2:3:4:5:6:7:8"])("accepts %s", (s) =>
    expect(isIpv6(s)).toBe(true),
  );
  it.each(["::", "12:30:45", "1:2:3:4:5:6:7:8:9", "1::2::3", "12345::1", "::ffff:300.0.2.1", "g::1"])("rejects %s", (s) =>
    expect(isIpv6(s)).toBe(false),
  );
});

describe("context before a candidate", () => {
  it("does not take the tail of a word cut by the window for a keyword", () => {
    // 30 characters before the number start inside "string": its "ring" is no phone word.
    const text = "std::string; version 10.1.2.3 - user 5123456789 ";
    expect(redact(text)).toEqual({ text, removed: {}, hints: [] });
    expect(redact("call me at 5123456789").removed).toEqual({ phone: 1 });
  });
});
