/**
 * The email audience as the review post shows it (no network): every
 * recipient labelled, external addresses marked, IDN shown as it goes out,
 * the confirm reasons, and a fingerprint that changes with anything the
 * approval binds to.
 */
import { describe, expect, it } from "vitest";
import { createEmailChannel, type EmailDestination, emailRecipientKeys } from "../../../src/channels/email/index.js";
import { configFrom, destination } from "./fixtures.js";

const startedAt = Date.now();
const config = configFrom({ SMTP_URL: "smtp://u:p@127.0.0.1:9", EMAIL_FROM: "Phill <phill@example.com>", EMAIL_CONFIRM_OVER: "3" });

function audience(d: EmailDestination, knownRecipient?: (address: string) => boolean) {
  return createEmailChannel({ config, now: () => startedAt, knownRecipient }).readAudience(d, "any text @everyone");
}

describe("the email audience", () => {
  it("labels every recipient, marks external ones, shows the subject and what it answers", async () => {
    const d = destination({
      to: ["anna@example.com", "dan@partner.org"],
      cc: ["bob@example.com"],
      bcc: ["carol@sub.example.com"],
      subject: "Numbers",
      in_reply_to: "<earlier@partner.org>",
    });
    const a = await audience(d, (address) => address === "dan@partner.org");
    expect(a).toMatchObject({ channel: "email", readerCount: 4, problem: null, checkedAt: new Date(startedAt).toISOString() });
    expect(a.lines).toEqual([
      "From: Phill <phill@example.com>",
      "to: anna@example.com",
      "to: dan@partner.org (external)",
      "cc: bob@example.com",
      "bcc (hidden from the others): carol@sub.example.com (external)",
      "Subject: Numbers",
      "answers <earlier@partner.org>",
    ]);
    expect(a.confirmReasons).toEqual([
      "4 recipients, more than EMAIL_CONFIRM_OVER (3)",
      "first approved email outside example.com to carol@sub.example.com",
    ]);
  });

  it("shows an IDN address as it goes out with its Unicode form beside it, and asks for it by its xn-- form", async () => {
    const asked: string[] = [];
    const a = await audience(destination({ to: ["Anna@Bücher.example"] }), (address) => {
      asked.push(address);
      return false;
    });
    expect(a.lines[1]).toBe("to: Anna@xn--bcher-kva.example (Anna@bücher.example) (external)");
    expect(asked).toEqual(["anna@xn--bcher-kva.example"]);
    expect(emailRecipientKeys(destination({ to: ["Anna@Bücher.example"], bcc: ["Bob@Example.com"] }))).toEqual([
      "anna@xn--bcher-kva.example",
      "bob@example.com",
    ]);
    expect(a.confirmReasons).toEqual(["first approved email outside example.com to Anna@xn--bcher-kva.example (Anna@bücher.example)"]);
  });

  it("asks for nothing more for known or internal recipients up to EMAIL_CONFIRM_OVER, and counts a failing lookup as unknown", async () => {
    const d = destination({ to: ["anna@example.com", "dan@partner.org"], cc: ["bob@EXAMPLE.com"] });
    expect((await audience(d, () => true)).confirmReasons).toEqual([]);
    const broken = await audience(d, () => {
      throw new Error("records unreadable");
    });
    expect(broken.confirmReasons).toEqual(["first approved email outside example.com to dan@partner.org"]);
    expect((await audience(destination())).lines).toEqual(["From: Phill <phill@example.com>", "to: anna@example.com", "Subject: Hello"]);
  });

  it("keeps the fingerprint for the same audience (order, case) and changes it for anything the approval binds to", async () => {
    const base = { to: ["anna@example.com", "dan@partner.org"], cc: [], bcc: [], subject: "S", in_reply_to: null, references: [] };
    const print = async (fields: Record<string, unknown>) => (await audience(destination({ ...base, ...fields }), () => true)).fingerprint;
    const original = await print({});
    expect(original).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(await print({ to: ["DAN@partner.org", "anna@EXAMPLE.com"] })).toBe(original);
    const changes = [
      { to: ["anna@example.com"] },
      { to: ["anna@example.com"], cc: ["dan@partner.org"] },
      { to: ["anna@example.com"], bcc: ["dan@partner.org"] },
      { to: ["anna@example.com", "dan@partner.net"] },
      { subject: "S." },
      { in_reply_to: "<x@partner.org>" },
      { references: ["<x@partner.org>"] },
    ];
    const prints = await Promise.all(changes.map(print));
    expect(new Set([original, ...prints]).size).toBe(changes.length + 1);
    const otherFrom = configFrom({ SMTP_URL: "smtp://u:p@127.0.0.1:9", EMAIL_FROM: "Phillip <phill@example.com>" });
    const fromChanged = await createEmailChannel({ config: otherFrom, now: () => startedAt }).readAudience(destination(base), "");
    expect(fromChanged.fingerprint).not.toBe(original);
  });

  it("shows an IDN From address as it goes out, the Unicode form beside it", async () => {
    const idn = configFrom({ SMTP_URL: "smtp://u:p@127.0.0.1:9", EMAIL_FROM: "Jörg <joerg@bücher.example>" });
    const a = await createEmailChannel({ config: idn, now: () => startedAt }).readAudience(destination(), "");
    expect(a.lines[0]).toBe("From: Jörg <joerg@xn--bcher-kva.example> (joerg@bücher.example)");
    expect(a.lines[1]).toBe("to: anna@example.com (external)");
  });
});

describe("an audience that cannot be read", () => {
  it("is a problem naming the field, with an unknown reader count and one more tap, never a throw", async () => {
    const broken = { ...destination(), to: ["Anna <anna@example.com>"] };
    const a = await audience(broken);
    expect(a).toMatchObject({ readerCount: null, confirmReasons: ["the audience could not be read"] });
    expect(a.problem).toMatch(/^the email destination is not valid \(to\.0: must be a plain address like anna@example\.org/);
  });
});

describe("the channel's other parts", () => {
  it("has one rate key for the mailbox, whatever the destination", () => {
    const ch = createEmailChannel({ config, now: () => startedAt });
    expect(ch.rateKey(destination())).toBe("email:phill@example.com");
    expect(ch.rateKey(destination({ to: ["x@partner.org"] }))).toBe("email:phill@example.com");
    expect(ch).toMatchObject({ name: "email", maxLength: 100_000 });
  });
});
