/**
 * The composed email, for any text and subject the destination accepts:
 * the body's bytes come back exactly, and the subject the destination holds
 * (spaces at its ends taken off) reads back as it is: what the post showed
 * is what the recipient's client shows.
 */
import fc from "fast-check";
import { simpleParser } from "mailparser";
import { describe, expect, it } from "vitest";
import { unsafeCharacterProblem } from "../../../src/channels/email/index.js";
import { composeEmail } from "../../../src/channels/email/message.js";
import { decodedBody } from "../../doubles/email/email-double.js";
import { configFrom, destination } from "./fixtures.js";

const config = configFrom({ SMTP_URL: "smtp://u:p@127.0.0.1:9", EMAIL_FROM: "Phíll Ünïcode <phill@example.com>" });
const startedAt = Date.now();

/** Text with the characters that break careless encoders: dots at line starts, CR, LF, spaces at line ends, non-BMP. */
const tricky = fc.constantFrom("\n", "\r\n", "\r", ".", "..", " ", "\t", "=", "é", "😀", "\u0000", "From ", "-- ", "x".repeat(80));
const text = fc.array(fc.oneof(fc.string({ unit: "grapheme" }), tricky), { maxLength: 40 }).map((parts) => parts.join(""));
const subject = fc
  .array(
    fc.oneof(
      fc.string({ unit: "grapheme", minLength: 1 }),
      fc.constantFrom(" ", "  ", "=?utf-8?B?", "=?utf-8?Q?a?=", "?=", "é", "😀", "x".repeat(90)),
    ),
    {
      minLength: 1,
      maxLength: 20,
    },
  )
  .map((parts) => parts.join("").slice(0, 998))
  .filter((s) => s.trim() !== "" && unsafeCharacterProblem(s) === null);

describe("composeEmail", () => {
  it("carries any text byte for byte and any accepted subject as written", async () => {
    await fc.assert(
      fc.asyncProperty(text, subject, async (body, subj) => {
        const d = destination({ subject: subj });
        const email = await composeEmail(config, d, body, "<p@example.com>", startedAt);
        expect(decodedBody(email.raw).equals(Buffer.from(body, "utf8"))).toBe(true);
        const parsed = await simpleParser(email.raw);
        expect(parsed.subject).toBe(d.subject);
        expect(d.subject).toBe(subj.replace(/^ +| +$/g, ""));
        expect(parsed.from?.value[0]).toEqual({ name: "Phíll Ünïcode", address: "phill@example.com" });
      }),
      { numRuns: 150 },
    );
  });

  it("folds 50 long references within 998 characters a line and they read back in order", async () => {
    const refs = Array.from({ length: 50 }, (_, i) => `<${String(i).padStart(3, "0")}${"r".repeat(230)}@example.org>`);
    const email = await composeEmail(config, destination({ references: refs, in_reply_to: refs[49] }), "x", "<p@example.com>", startedAt);
    const head = email.raw.subarray(0, email.raw.indexOf("\r\n\r\n")).toString();
    expect(Math.max(...head.split("\r\n").map((l) => l.length))).toBeLessThanOrEqual(998);
    const parsed = await simpleParser(email.raw);
    expect(parsed.references).toEqual(refs);
    expect(parsed.inReplyTo).toBe(refs[49]);
  });

  it("keeps header lines within 998 characters for the longest subject", async () => {
    const email = await composeEmail(config, destination({ subject: "é".repeat(998) }), "x", "<p@example.com>", startedAt);
    const head = email.raw.subarray(0, email.raw.indexOf("\r\n\r\n")).toString();
    expect(Math.max(...head.split("\r\n").map((l) => l.length))).toBeLessThanOrEqual(998);
    expect((await simpleParser(email.raw)).subject).toBe("é".repeat(998));
  });
});
