/**
 * The email channel's send against a real SMTP server (the double, smtp-server
 * on 127.0.0.1) through the real nodemailer: what arrived, byte for byte.
 * The refusals and lost answers are in failures.test.ts.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createEmailChannel, type EmailConfig } from "../../../src/channels/email/index.js";
import { type EmailDouble, startEmailDouble } from "../../doubles/email/email-double.js";
import { configFor, destination, reference } from "./fixtures.js";

const startedAt = Date.now();
const now = () => startedAt;
let double: EmailDouble;

beforeEach(async () => {
  double = await startEmailDouble();
});
afterEach(async () => {
  await double.close();
});

function channel(config: EmailConfig = configFor(double.url), extra: { replyTimeoutMs?: number } = {}) {
  return createEmailChannel({ config, now, ...extra });
}

describe("an email that goes out", () => {
  it("arrives once with the envelope, headers and text the post showed (bcc in the envelope only)", async () => {
    const d = destination({
      to: ["anna@example.com", "Dan@Partner.org"],
      cc: ["bob@example.com"],
      bcc: ["carol@other.net"],
      subject: "Quarterly numbers — ready ✓",
      in_reply_to: "<earlier-1@partner.org>",
      references: ["<root@partner.org>", "<earlier-1@partner.org>"],
    });
    const text = "Hi Anna,\n\nthe numbers are in: 12 % up.\nÜbermorgen mehr 😀\n\n— Phill";
    const outcome = await channel().send(d, text, reference(1));
    expect(outcome).toEqual({ kind: "ok", sentRef: { message_id: "<f3c1e2a0-0000-4000-8000-000000000001@example.com>" } });
    expect(double.state.messages).toHaveLength(1);
    const got = double.state.messages[0]!;
    expect(got.envelope).toEqual({
      mailFrom: "phill@example.com",
      rcptTo: ["anna@example.com", "Dan@partner.org", "bob@example.com", "carol@other.net"],
    });
    expect(got.user).toBe("phill");
    expect(got.body.equals(Buffer.from(text, "utf8"))).toBe(true);
    expect(got.parsed.text).toBe(text);
    expect(got.parsed.messageId).toBe("<f3c1e2a0-0000-4000-8000-000000000001@example.com>");
    expect(got.parsed.subject).toBe("Quarterly numbers — ready ✓");
    expect(got.parsed.from?.text).toBe('"Phill" <phill@example.com>');
    expect(got.parsed.inReplyTo).toBe("<earlier-1@partner.org>");
    expect(got.parsed.references).toEqual(["<root@partner.org>", "<earlier-1@partner.org>"]);
    expect(got.parsed.date?.getTime()).toBe(Math.floor(startedAt / 1000) * 1000);
    expect(got.parsed.headers.get("content-type")).toMatchObject({ value: "text/plain", params: { charset: "utf-8" } });
    const head = got.raw.subarray(0, got.raw.indexOf("\r\n\r\n")).toString();
    expect(head).toMatch(/^To: anna@example.com, Dan@partner.org$/m);
    expect(head).toMatch(/^Cc: bob@example.com$/m);
    expect(head).not.toMatch(/carol|^bcc/im);
    expect(double.state.calls).toMatchObject({ connect: 1, auth: 1, mail: 1, rcpt: 4, data: 1, aborted: 0 });
  });

  it.each([
    ["a 100,000-character body", `${"Zeile mit Umlauten äöü und 😀 emoji.\n".repeat(2700)}`.padEnd(100_000, "x")],
    ["lines starting with dots (dot-stuffing)", ".\n..\n.hidden\n...\n.\r\n.end"],
    ["trailing spaces and tabs", "spaces at the end   \ntab at the end\t\nlast line  "],
    ["a 20,000-character line", "y".repeat(20_000)],
    ["mixed line ends kept as given", "crlf\r\nlf\ncr only\rend\r\n"],
    ["no final line end", "one line"],
    ["unicode beyond the BMP", "𝔘𝔫𝔦𝔠𝔬𝔡𝔢 ✓ 中文 العربية"],
  ])("carries %s byte for byte", async (_label, text) => {
    expect(text.length).toBeLessThanOrEqual(100_000);
    const outcome = await channel().send(destination(), text, reference(2));
    expect(outcome.kind).toBe("ok");
    expect(double.state.messages[0]!.body.equals(Buffer.from(text, "utf8"))).toBe(true);
  });

  it("sends an internationalized domain in its xn-- form, in the envelope and the header", async () => {
    const outcome = await channel().send(destination({ to: ["anna@bücher.example"] }), "Hallo", reference(3));
    expect(outcome.kind).toBe("ok");
    const got = double.state.messages[0]!;
    expect(double.state.commands).toContain("RCPT TO:<anna@xn--bcher-kva.example>");
    expect(got.raw.toString()).toMatch(/^To: anna@xn--bcher-kva.example$/m);
  });

  it("refuses a body over 100,000 characters without connecting", async () => {
    const outcome = await channel().send(destination(), "z".repeat(100_001), reference(4));
    expect(outcome).toEqual({ kind: "refused", reason: "the email is 100001 characters; an email takes at most 100000" });
    expect(double.state.calls.connect).toBe(0);
  });

  it("refuses a text with a lone surrogate (it would arrive as U+FFFD) without connecting", async () => {
    const outcome = await channel().send(destination(), "half an emoji: \ud83d", reference(24));
    expect(outcome.kind).toBe("refused");
    expect(outcome.kind === "refused" && outcome.reason).toMatch(/^the text holds a broken character \(a lone UTF-16 surrogate\)/);
    expect(double.state.calls.connect).toBe(0);
  });

  it("refuses a destination the schema would refuse (a header injection) without connecting", async () => {
    const d = { ...destination(), subject: "Hi\r\nBcc: eve@evil.example" };
    const outcome = await channel().send(d, "text", reference(5));
    expect(outcome.kind).toBe("refused");
    expect(outcome.kind === "refused" && outcome.reason).toMatch(/subject: contains a control character/);
    expect(double.state.calls.connect).toBe(0);
  });
});
