/**
 * Who the email channel speaks as (an SMTP connection, EHLO and AUTH against
 * the double), and the Message-ID chosen before a send.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createEmailChannel, emailMessageId } from "../../../src/channels/email/index.js";
import { type EmailDouble, startEmailDouble } from "../../doubles/email/email-double.js";
import { configFor } from "./fixtures.js";

let double: EmailDouble;
beforeEach(async () => {
  double = await startEmailDouble();
});
afterEach(async () => {
  await double.close();
});

const whoAmI = (url: string) => createEmailChannel({ config: configFor(url), now: () => Date.now() }).whoAmI();

describe("whoAmI", () => {
  it("is ok, speaking as EMAIL_FROM, once the server took the credentials; nothing is sent", async () => {
    expect(await whoAmI(double.url)).toEqual({ ok: true, speaksAs: "Phill <phill@example.com>" });
    await double.idle();
    expect(double.state.calls).toMatchObject({ connect: 1, auth: 1, mail: 0 });
    expect(double.state.commands.filter((c) => !c.startsWith("EHLO"))).toEqual(["AUTH PLAIN", "QUIT"]);
  });

  it("says the credentials were refused on a 535, without the password", async () => {
    const identity = await whoAmI(`smtp://phill:not-the-password-3391@127.0.0.1:${double.port}`);
    expect(identity).toMatchObject({ ok: false, credentialsRefused: true });
    const reason = identity.ok ? "" : identity.reason;
    expect(reason).toMatch(
      /^the SMTP server refused the credentials \(535 5\.7\.8 Authentication credentials invalid\): check the user and password in SMTP_URL/,
    );
    expect(reason).not.toContain("not-the-password-3391");
  });

  it("is not a credentials refusal when AUTH fails for a while (454) or the server cannot be reached", async () => {
    double.refuseAuth(454, "4.7.0 Temporary authentication failure");
    const later = await whoAmI(double.url);
    expect(later).toMatchObject({ ok: false, credentialsRefused: false });
    expect(later.ok ? "" : later.reason).toContain("454 4.7.0 Temporary authentication failure");
    const port = double.port;
    await double.close();
    const unreachable = await whoAmI(`smtp://phill:pw-5555@127.0.0.1:${port}`);
    expect(unreachable).toEqual({
      ok: false,
      credentialsRefused: false,
      reason: `could not reach the mail server 127.0.0.1:${port} (connection refused); nothing was sent`,
    });
    double = await startEmailDouble();
  });

  it("upgrades smtp:// with STARTTLS when offered, checking the certificate before it logs in", async () => {
    const tls = await startEmailDouble({ starttls: true });
    try {
      const identity = await whoAmI(tls.url);
      expect(identity).toMatchObject({ ok: false, credentialsRefused: false });
      expect(identity.ok ? "" : identity.reason).toMatch(/\(its TLS certificate was not accepted: [A-Z_]+\); nothing was sent$/);
      await tls.idle();
      expect(tls.state.commands.filter((c) => !c.startsWith("EHLO"))).toEqual(["STARTTLS"]);
      expect(tls.state.calls.auth).toBe(0);
    } finally {
      await tls.close();
    }
  });

  it("sends no password to a relay that offers no AUTH (as nodemailer's transport does), and is ok", async () => {
    const relay = await startEmailDouble({ auth: false });
    try {
      const url = `smtp://phill:relay-pass-4471@127.0.0.1:${relay.port}`;
      expect(await whoAmI(url)).toEqual({ ok: true, speaksAs: "Phill <phill@example.com>" });
      await relay.idle();
      expect(relay.state.calls.auth).toBe(0);
      expect(relay.state.commands.some((c) => c.startsWith("AUTH"))).toBe(false);
    } finally {
      await relay.close();
    }
  });

  it("speaks TLS from the first byte on smtps:// and checks the certificate (smtp-server's own test certificate is refused)", async () => {
    const tls = await startEmailDouble({ secure: true });
    try {
      const identity = await whoAmI(tls.url);
      expect(identity).toMatchObject({ ok: false, credentialsRefused: false });
      expect(identity.ok ? "" : identity.reason).toMatch(
        /^could not reach the mail server 127\.0\.0\.1:\d+ \(its TLS certificate was not accepted: [A-Z_]+\); nothing was sent$/,
      );
      expect(tls.state.calls.auth).toBe(0);
    } finally {
      await tls.close();
    }
  });
});

describe("emailMessageId", () => {
  it("is <reference@EMAIL_FROM's domain>, the same every time, from a named or bare From", () => {
    const ref = "0b6f2c1e-8d7a-4c3b-9e5f-1a2b3c4d5e6f";
    expect(emailMessageId(ref, "Phill <phill@example.com>")).toBe(`<${ref}@example.com>`);
    expect(emailMessageId(ref, "phill@example.com")).toBe(`<${ref}@example.com>`);
    expect(emailMessageId(ref, "Phill <phill@Bücher.example>")).toBe(`<${ref}@xn--bcher-kva.example>`);
  });

  it("keeps a reference that could not stand in a Message-ID one valid id", () => {
    const id = emailMessageId("draft 7/2 <x>@", "phill@example.com");
    expect(id).toBe("<draft=207/2=20=3Cx=3E=40@example.com>");
    expect(id).toMatch(/^<[^<>@\s]+@[^<>@\s]+>$/);
  });
});
