/**
 * The email destination at intake: what it accepts (with its defaults) and
 * every refusal naming the field, above all anything that could forge a
 * header or make the post read differently than the email.
 */
import { describe, expect, it } from "vitest";
import { describeEmailDestination, emailDestinationSchema } from "../../../src/channels/email/index.js";

const base = { channel: "email", to: ["anna@example.org"], subject: "Hello" };

/** The first refusal of `fields` over the base destination, as "path: message". */
function refusal(fields: Record<string, unknown>): string {
  const parsed = emailDestinationSchema.safeParse({ ...base, ...fields });
  if (parsed.success) throw new Error(`accepted: ${JSON.stringify(fields)}`);
  return parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join(" | ");
}

describe("an email destination that is accepted", () => {
  it("fills in cc, bcc, in_reply_to and references", () => {
    expect(emailDestinationSchema.parse(base)).toEqual({ ...base, cc: [], bcc: [], in_reply_to: null, references: [] });
  });

  it("takes the contract's full example, an IDN domain, and 100 recipients", () => {
    const full = {
      channel: "email",
      to: ["anna@example.org", "joerg@bücher.example"],
      cc: ["b.o+b@sub.example.org"],
      bcc: ["x_y@example.com"],
      subject: "Ünïcode subject — fine",
      in_reply_to: "<abc.123@example.org>",
      references: ["<root@example.org>", "<abc.123@example.org>"],
    };
    expect(emailDestinationSchema.parse(full)).toEqual(full);
    const many = Array.from({ length: 100 }, (_, i) => `p${i}@example.org`);
    expect(emailDestinationSchema.safeParse({ ...base, to: many.slice(0, 60), cc: many.slice(60, 90), bcc: many.slice(90) }).success).toBe(
      true,
    );
  });

  it("takes the spaces off the ends of the subject (mail clients drop them) and keeps those inside", () => {
    expect(emailDestinationSchema.parse({ ...base, subject: "  Re:  the  plan " }).subject).toBe("Re:  the  plan");
  });

  it("describes where it goes in one line", () => {
    expect(describeEmailDestination(emailDestinationSchema.parse(base))).toBe("email to anna@example.org");
    const three = emailDestinationSchema.parse({ ...base, cc: ["b@example.org"], bcc: ["c@example.org"] });
    expect(describeEmailDestination(three)).toBe("email to anna@example.org +2");
  });
});

describe("an email destination that is refused, naming the field", () => {
  it.each([
    ["a display name with quotes", { to: ['"Anna" <anna@example.org>'] }, /^to\.0: must be a plain address like anna@example\.org/],
    ["a display name without quotes", { cc: ["Anna <anna@example.org>"] }, /^cc\.0: must be a plain address like anna@example\.org/],
    ["two addresses in one entry", { bcc: ["a@example.org, b@example.org"] }, /^bcc\.0: must be a plain address/],
    ["no @", { to: ["anna.example.org"] }, /^to\.0: must be a plain address like anna@example\.org/],
    ["a domain without a dot", { to: ["anna@localhost"] }, /^to\.0: the domain after @ is not a valid domain name/],
    ["an IP address", { to: ["anna@192.168.1.1"] }, /^to\.0: the domain after @ is not a valid domain name/],
    ["a non-ASCII local part", { to: ["jörg@example.org"] }, /^to\.0: the part before @ must be plain ASCII/],
    [
      "LF in an address (header injection)",
      { to: ["anna@example.org\nBcc: eve@evil.example"] },
      /^to\.0: contains a control character \(U\+000A/,
    ],
    ["CR in an address", { cc: ["anna@example.org\r"] }, /^cc\.0: contains a control character \(U\+000D/],
    ["NUL in an address", { to: ["anna\u0000@example.org"] }, /^to\.0: contains a control character \(U\+0000/],
    [
      "a zero-width space in an address",
      { to: ["an\u200bna@example.org"] },
      /^to\.0: contains an invisible zero-width character \(U\+200B\)/,
    ],
    [
      "a direction control in an address",
      { bcc: ["\u202eanna@example.org"] },
      /^bcc\.0: contains an invisible direction control \(U\+202E\)/,
    ],
    [
      "CRLF in the subject (header injection)",
      { subject: "Hi\r\nBcc: eve@evil.example" },
      /^subject: contains a control character \(U\+000D/,
    ],
    ["a tab in the subject", { subject: "Hi\tthere" }, /^subject: contains a control character \(U\+0009/],
    [
      "a right-to-left override in the subject",
      { subject: "invoice \u202Efdp.exe" },
      /^subject: contains an invisible direction control \(U\+202E\)/,
    ],
    ["an isolate in the subject", { subject: "a \u2067b\u2069" }, /^subject: contains an invisible direction control \(U\+2067\)/],
    ["an Arabic letter mark in the subject", { subject: "a\u061Cb" }, /^subject: contains an invisible direction control \(U\+061C\)/],
    ["a zero-width joiner in the subject", { subject: "Pay\u200dPal" }, /^subject: contains an invisible zero-width character \(U\+200D\)/],
    ["a byte order mark in the subject", { subject: "\ufeffHello" }, /^subject: contains an invisible zero-width character \(U\+FEFF\)/],
    [
      "a lone surrogate in the subject",
      { subject: "broken \ud83d here" },
      /^subject: contains a broken character \(a lone UTF-16 surrogate\)/,
    ],
    ["an empty subject", { subject: "  " }, /^subject: subject must not be empty/],
    ["a 999-character subject", { subject: "s".repeat(999) }, /^subject: subject is 999 characters; at most 998/],
    ["no subject", { subject: undefined }, /^subject: subject is required/],
    ["no recipient in to", { to: [] }, /^to: to needs at least one address/],
    ["to as a string", { to: "anna@example.org" }, /^to: to must be a list of addresses/],
    [
      "an address twice across to and bcc, in another case",
      { bcc: ["ANNA@Example.org"] },
      /^bcc\.0: ANNA@Example\.org is already a recipient \(to\[0\]\)/,
    ],
    [
      "an IDN address and its xn-- form",
      { to: ["a@bücher.example"], cc: ["a@xn--bcher-kva.example"] },
      /^cc\.0: .* is already a recipient/,
    ],
    [
      "101 recipients",
      { cc: Array.from({ length: 100 }, (_, i) => `p${i}@example.org`) },
      /^to: at most 100 recipients in to, cc and bcc together \(got 101\)/,
    ],
    ["in_reply_to without brackets", { in_reply_to: "abc@example.org" }, /^in_reply_to: must be one Message-ID in angle brackets/],
    ["in_reply_to with two ids", { in_reply_to: "<a@x.org> <b@x.org>" }, /^in_reply_to: must be one Message-ID/],
    ["a CR in a reference", { references: ["<a@x.org>\r\nBcc: e@evil.example"] }, /^references\.0: contains a control character/],
    ["51 references", { references: Array.from({ length: 51 }, (_, i) => `<r${i}@x.org>`) }, /^references: references holds at most 50/],
    ["an unknown field", { reply_to: "x@example.org" }, /^: unknown field reply_to; an email destination has channel, to, cc, bcc/],
    ["another channel", { channel: "slack" }, /^channel: channel must be "email"/],
  ])("%s", (_label, fields, expected) => {
    expect(refusal(fields)).toMatch(expected);
  });
});
