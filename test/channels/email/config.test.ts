/**
 * The email channel's configuration: absent, read with its defaults, or
 * refused naming the variable and what to set, never repeating the password.
 */
import { describe, expect, it } from "vitest";
import { emailConfigFromEnv, emailRatePerMinute, emailSecrets } from "../../../src/channels/email/index.js";

const FROM = "Phill <phill@example.com>";

describe("emailConfigFromEnv", () => {
  it("is absent when none of its variables is set (blank counts as unset)", () => {
    expect(emailConfigFromEnv({})).toEqual({ kind: "absent" });
    expect(emailConfigFromEnv({ SMTP_URL: " ", EMAIL_FROM: "", OTHER: "x" })).toEqual({ kind: "absent" });
  });

  it("reads smtp:// with its defaults: port 587, EMAIL_RATE 20, EMAIL_CONFIRM_OVER 10", () => {
    const read = emailConfigFromEnv({ SMTP_URL: "smtp://phill%40example.com:p%3Ass%2Fw@mail.example.com", EMAIL_FROM: FROM });
    expect(read).toEqual({
      kind: "ok",
      config: {
        smtp: { host: "mail.example.com", port: 587, secure: false, user: "phill@example.com", pass: "p:ss/w" },
        fromText: FROM,
        fromName: "Phill",
        from: { ascii: "phill@example.com", unicode: "phill@example.com", domain: "example.com" },
        ratePerMinute: 20,
        confirmOver: 10,
      },
    });
    if (read.kind !== "ok") return;
    expect(emailRatePerMinute(read.config)).toBe(20);
    expect(emailSecrets(read.config)).toEqual(["p:ss/w"]);
  });

  it("reads smtps:// on 465 by default, a bare From address, an IDN From domain, and the numbers", () => {
    const read = emailConfigFromEnv({
      SMTP_URL: "smtps://u:p@smtp.example.com",
      EMAIL_FROM: "phill@bücher.example",
      EMAIL_RATE: "60",
      EMAIL_CONFIRM_OVER: "0",
    });
    expect(read.kind === "ok" && read.config).toMatchObject({
      smtp: { port: 465, secure: true },
      fromName: null,
      from: { ascii: "phill@xn--bcher-kva.example", domain: "xn--bcher-kva.example" },
      ratePerMinute: 60,
      confirmOver: 0,
    });
  });

  it("takes a server without AUTH (no user in SMTP_URL)", () => {
    const read = emailConfigFromEnv({ SMTP_URL: "smtp://127.0.0.1:2525", EMAIL_FROM: FROM });
    expect(read.kind === "ok" && read.config.smtp).toEqual({ host: "127.0.0.1", port: 2525, secure: false, user: null, pass: null });
    expect(read.kind === "ok" && emailSecrets(read.config)).toEqual([]);
  });

  it.each([
    [{ EMAIL_FROM: FROM }, /^SMTP_URL is not set: set it to smtp:\/\/user:pass@host:587/],
    [{ EMAIL_RATE: "30" }, /^SMTP_URL is not set/],
    [{ SMTP_URL: "smtp://u:p@h:587" }, /^EMAIL_FROM is not set: set it to the From address, like Phill <phill@example.com>/],
    [
      { SMTP_URL: "https://u:topsecret99@h", EMAIL_FROM: FROM },
      /^SMTP_URL must look like smtp:\/\/user:pass@host:587 .* \(it starts with https:\/\/\)/,
    ],
    [{ SMTP_URL: "mail.example.com:587", EMAIL_FROM: FROM }, /^SMTP_URL must look like/],
    [{ SMTP_URL: "smtp://u:topsecret99@h:587/inbox", EMAIL_FROM: FROM }, /^SMTP_URL .* \(nothing may follow the port\)/],
    [{ SMTP_URL: "smtp://u:top%ZZsecret99@h:587", EMAIL_FROM: FROM }, /^SMTP_URL .* broken %-escape/],
    [
      { SMTP_URL: "smtp://u:p@h", EMAIL_FROM: "Phill <phill>" },
      /^EMAIL_FROM must be an address like phill@example\.com or Phill <phill@example\.com>: the address must be a plain address/,
    ],
    [{ SMTP_URL: "smtp://u:p@h", EMAIL_FROM: "Phill\r\nBcc: x@y.org <phill@example.com>" }, /^EMAIL_FROM contains a control character/],
    [
      { SMTP_URL: "smtp://u:p@h", EMAIL_FROM: FROM, EMAIL_RATE: "0" },
      /^EMAIL_RATE must be a whole number from 1 to 10000 \(got "0"\); leave it unset for 20/,
    ],
    [{ SMTP_URL: "smtp://u:p@h", EMAIL_FROM: FROM, EMAIL_RATE: "2.5" }, /^EMAIL_RATE must be a whole number/],
    [
      { SMTP_URL: "smtp://u:p@h", EMAIL_FROM: FROM, EMAIL_CONFIRM_OVER: "-1" },
      /^EMAIL_CONFIRM_OVER must be a whole number from 0 to 100000 \(got "-1"\); leave it unset for 10/,
    ],
  ])("refuses %j naming the variable", (env, expected) => {
    const read = emailConfigFromEnv(env);
    expect(read.kind).toBe("invalid");
    const error = read.kind === "invalid" ? read.error : "";
    expect(error).toMatch(expected);
    expect(error).not.toContain("topsecret99");
  });
});
