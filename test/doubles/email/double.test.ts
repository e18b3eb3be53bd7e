/**
 * The SMTP double's own hooks, driven by a plain nodemailer transport (not
 * the channel): what it keeps, that faults are one-shot or lasting as
 * documented, and that it never prints credentials in its transcript.
 */
import nodemailer from "nodemailer";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { decodedBody, type EmailDouble, startEmailDouble } from "./email-double.js";

let double: EmailDouble;
beforeEach(async () => {
  double = await startEmailDouble();
});
afterEach(async () => {
  await double.close();
});

function transport() {
  return nodemailer.createTransport({
    host: "127.0.0.1",
    port: double.port,
    secure: false,
    auth: { user: double.user, pass: double.pass },
  });
}
const mail = (to: string[], text = "hello") => ({ from: "p@example.com", to, subject: "S", text });

describe("the SMTP double", () => {
  it("keeps a message with its envelope, user and decoded body; its transcript has no credentials", async () => {
    await transport().sendMail({ ...mail(["a@example.org"]), text: "ünï\n.dot" });
    await double.idle();
    const got = double.state.messages[0]!;
    expect(got.envelope).toEqual({ mailFrom: "p@example.com", rcptTo: ["a@example.org"] });
    expect(got.user).toBe(double.user);
    // nodemailer's own mailer writes line ends as CRLF and adds one at the end (the channel's base64 body keeps the text as given).
    expect(got.body.toString("utf8")).toBe("ünï\r\n.dot\r\n");
    expect(got.lostAnswer).toBe(false);
    expect(double.state.commands).toContain("AUTH PLAIN");
    expect(double.state.commands.join("\n")).not.toContain(Buffer.from(`\0${double.user}\0${double.pass}`).toString("base64"));
    expect(double.state.calls).toMatchObject({ connect: 1, auth: 1, mail: 1, rcpt: 1, data: 1, aborted: 0 });
  });

  it("refuses a recipient in any case until clearFaults(); failNext is one-shot", async () => {
    double.refuseRecipient("B@Example.org");
    await expect(transport().sendMail(mail(["b@example.org"]))).rejects.toMatchObject({ responseCode: 550 });
    double.clearFaults();
    await transport().sendMail(mail(["b@example.org"]));
    double.failNext("DATA", 452, "4.3.1 Insufficient storage");
    await expect(transport().sendMail(mail(["c@example.org"]))).rejects.toMatchObject({ responseCode: 452 });
    await transport().sendMail(mail(["c@example.org"]));
    expect(double.state.messages.map((m) => m.envelope.rcptTo[0])).toEqual(["b@example.org", "c@example.org"]);
  });

  it("holds an answer until released, and refuses every AUTH after refuseAuth()", async () => {
    const held = double.holdNext();
    const sending = transport().sendMail(mail(["a@example.org"]));
    await held.received;
    expect(double.state.messages).toHaveLength(1);
    held.release();
    await expect(sending).resolves.toMatchObject({ accepted: ["a@example.org"] });
    double.refuseAuth();
    await expect(transport().verify()).rejects.toMatchObject({ responseCode: 535 });
  });

  it("decodes base64 and quoted-printable bodies and leaves others as they are", () => {
    const raw = (cte: string, body: string) => Buffer.from(`Subject: x\r\nContent-Transfer-Encoding: ${cte}\r\n\r\n${body}`, "latin1");
    expect(decodedBody(raw("base64", "w7w=")).toString("utf8")).toBe("ü");
    expect(decodedBody(raw("quoted-printable", "a=C3=BC=\r\nb")).toString("utf8")).toBe("aüb");
    expect(decodedBody(raw("7bit", "plain")).toString()).toBe("plain");
  });
});
