/**
 * The email channel's send against the SMTP double when it goes wrong:
 * every documented answer turned into the right outcome kind, the message
 * sent to all recipients or to none, and exactly one attempt (no library retry).
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

describe("a recipient the server refuses", () => {
  it.each([true, false])("stops the message for everyone on a 550 for one of three (PIPELINING %s)", async (pipelining) => {
    await double.close();
    double = await startEmailDouble({ pipelining });
    double.refuseRecipient("bob@example.com", 550, "5.1.1 <bob@example.com>: Recipient address rejected: User unknown");
    const d = destination({ to: ["anna@example.com", "bob@example.com"], cc: ["carol@example.com"] });
    const outcome = await channel().send(d, "for all three or none", reference(6));
    expect(outcome.kind).toBe("refused");
    const reason = outcome.kind === "refused" ? outcome.reason : "";
    expect(reason).toContain("bob@example.com");
    expect(reason).toContain("550 5.1.1 <bob@example.com>: Recipient address rejected: User unknown");
    expect(reason).toContain("nothing was sent to anyone");
    await double.idle();
    expect(double.state.messages).toHaveLength(0);
    expect(double.state.calls).toMatchObject({ mail: 1, rcpt: 3, data: 1, aborted: 1 });
  });

  it("is refused when every recipient is refused", async () => {
    double.refuseRecipient("anna@example.com");
    const outcome = await channel().send(destination(), "text", reference(7));
    expect(outcome.kind).toBe("refused");
    expect(outcome.kind === "refused" && outcome.reason).toContain("anna@example.com (550 5.1.1 Mailbox unavailable)");
    expect(double.state.messages).toHaveLength(0);
  });

  it("is not_sent on a 451 for one recipient while the others were accepted", async () => {
    double.refuseRecipient("bob@example.com", 451, "4.7.1 Greylisted, try again later");
    const outcome = await channel().send(destination({ to: ["anna@example.com", "bob@example.com"] }), "text", reference(8));
    expect(outcome.kind).toBe("not_sent");
    expect(outcome.kind === "not_sent" && outcome.reason).toContain("bob@example.com (451 4.7.1 Greylisted, try again later)");
    expect(double.state.messages).toHaveLength(0);
  });
});

describe("the server's other answers", () => {
  it("is not_sent on a 451 to MAIL FROM, after exactly one connection and one MAIL (no library retry)", async () => {
    double.failNext("MAIL", 451, "4.3.0 Try again later");
    const outcome = await channel().send(destination(), "text", reference(9));
    expect(outcome.kind).toBe("not_sent");
    expect(outcome.kind === "not_sent" && outcome.reason).toContain("451 4.3.0 Try again later");
    expect(double.state.calls).toMatchObject({ connect: 1, mail: 1, data: 0 });
    expect(double.state.messages).toHaveLength(0);
  });

  it("is not_sent when the server says 421 and closes during the envelope", async () => {
    double.failNext("RCPT", 421, "4.3.2 Service shutting down, closing transmission channel");
    const outcome = await channel().send(destination(), "text", reference(18));
    expect(outcome.kind).toBe("not_sent");
    expect(outcome.kind === "not_sent" && outcome.reason).toMatch(/nothing was sent$/);
    expect(double.state.messages).toHaveLength(0);
  });

  it.each(["MAIL", "RCPT"] as const)(
    "is not_sent when the connection drops at %s, after one connection (no library retry)",
    async (command) => {
      double.dropNext(command);
      const outcome = await channel().send(destination(), "text", reference(19));
      expect(outcome.kind).toBe("not_sent");
      expect(outcome.kind === "not_sent" && outcome.reason).toMatch(/failed before the message was handed over .*; nothing was sent$/);
      expect(double.state.calls).toMatchObject({ connect: 1, mail: 1, data: 0 });
    },
  );

  it("is not_sent when the server never greets in time", async () => {
    const held = double.holdNextGreeting();
    const ch = createEmailChannel({ config: configFor(double.url), now, connectTimeoutMs: 300 });
    const outcome = await ch.send(destination(), "text", reference(20));
    held.release();
    expect(outcome).toEqual({
      kind: "not_sent",
      reason: `could not reach the mail server 127.0.0.1:${double.port} (no answer in time); nothing was sent`,
    });
    expect(double.state.calls.mail).toBe(0);
  });

  it("is refused, saying it is too large, when the server's SIZE is smaller than the message (nodemailer checks before MAIL)", async () => {
    await double.close();
    double = await startEmailDouble({ size: 50_000 });
    const outcome = await channel().send(destination(), "é".repeat(100_000), reference(22));
    expect(outcome.kind).toBe("refused");
    expect(outcome.kind === "refused" && outcome.reason).toMatch(
      /^the mail server takes no message this large \(.*50000.*\); it was not sent$/,
    );
    expect(double.state.calls).toMatchObject({ mail: 0, data: 0 });
  });

  it("is refused, saying it is too large, on a 552 after the data", async () => {
    double.failNext("DATA", 552, "5.3.4 Message size exceeds fixed limit");
    const outcome = await channel().send(destination(), "text", reference(23));
    expect(outcome).toEqual({
      kind: "refused",
      reason: "the mail server takes no message this large (552 5.3.4 Message size exceeds fixed limit); it was not sent",
    });
  });

  it("is refused on a 553 to MAIL FROM", async () => {
    double.failNext("MAIL", 553, "5.7.1 Sender address rejected: not owned by user phill");
    const outcome = await channel().send(destination(), "text", reference(10));
    expect(outcome.kind).toBe("refused");
    expect(outcome.kind === "refused" && outcome.reason).toBe(
      "the mail server refused the sender phill@example.com (553 5.7.1 Sender address rejected: not owned by user phill): " +
        "check that this SMTP account may send as EMAIL_FROM; it was not sent",
    );
  });

  it("is refused, asking for a login, when SMTP_URL names no user and the server wants one (530)", async () => {
    const outcome = await channel(configFor(`smtp://127.0.0.1:${double.port}`)).send(destination(), "text", reference(21));
    expect(outcome.kind).toBe("refused");
    expect(outcome.kind === "refused" && outcome.reason).toMatch(
      /^the mail server wants a login \(530 .*\): put the user and password in SMTP_URL; it was not sent$/,
    );
    expect(double.state.calls.auth).toBe(0);
  });

  it("is refused on a 554 after the data, not_sent on a 451 after the data", async () => {
    double.failNext("DATA", 554, "5.7.1 Message rejected as spam");
    const refused = await channel().send(destination(), "text", reference(11));
    expect(refused.kind).toBe("refused");
    expect(refused.kind === "refused" && refused.reason).toContain("554 5.7.1 Message rejected as spam");
    double.failNext("DATA", 451, "4.3.0 Queue full");
    const deferred = await channel().send(destination(), "text", reference(12));
    expect(deferred.kind).toBe("not_sent");
    expect(double.state.messages).toHaveLength(0);
    expect(double.state.calls).toMatchObject({ connect: 2, data: 2 });
  });

  it("is refused, naming the credentials, on a 535 (and the password never shows)", async () => {
    const config = configFor(`smtp://phill:wrong-password-8812@127.0.0.1:${double.port}`);
    const outcome = await channel(config).send(destination(), "text", reference(13));
    expect(outcome.kind).toBe("refused");
    const reason = outcome.kind === "refused" ? outcome.reason : "";
    expect(reason).toMatch(/^the SMTP server refused the credentials \(535 5\.7\.8 Authentication credentials invalid\)/);
    expect(reason).not.toContain("wrong-password-8812");
    expect(double.state.calls).toMatchObject({ auth: 1, mail: 0 });
  });

  it("is not_sent when nothing listens on the port", async () => {
    const port = double.port;
    await double.close();
    const outcome = await channel(configFor(`smtp://phill:pw-1234@127.0.0.1:${port}`)).send(destination(), "text", reference(14));
    expect(outcome.kind).toBe("not_sent");
    expect(outcome.kind === "not_sent" && outcome.reason).toBe(
      `could not reach the mail server 127.0.0.1:${port} (connection refused); nothing was sent`,
    );
    double = await startEmailDouble();
  });
});
