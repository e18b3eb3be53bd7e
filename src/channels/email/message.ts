/**
 * The email itself: one text/plain part, its Message-ID chosen before the
 * call from the send's reference (so the record can show it before the send
 * and after a lost answer), composed by nodemailer's MIME builder.
 */
import { encodeWord } from "nodemailer/lib/mime-funcs";
import MimeNode from "nodemailer/lib/mime-node";
import { domainToASCII } from "node:url";
import { outgoing } from "./address.js";
import type { EmailConfig } from "./config.js";
import type { EmailDestination } from "./destination.js";

/** RFC 5322 atext: what a Message-ID's left part may hold between dots. */
const DOT_ATOM = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/;

/**
 * The Message-ID of the email that carries `reference`: `<{reference}@{domain}>`,
 * the domain being EMAIL_FROM's (in ASCII form). `from` is EMAIL_FROM as
 * written (`Phill <phill@example.com>`) or a bare address. The same inputs
 * always give the same Message-ID; a reference that is not a valid left part
 * (spaces, @, brackets) has each such character written as =XX, so it still
 * is one.
 */
export function emailMessageId(reference: string, from: string): string {
  const address = /<([^<>]+)>\s*$/.exec(from)?.[1] ?? from.trim();
  const domain = domainToASCII(address.slice(address.lastIndexOf("@") + 1)) || "localhost";
  const left = DOT_ATOM.test(reference)
    ? reference
    : Array.from(Buffer.from(reference, "utf8"))
        .map((b) => {
          const ch = String.fromCharCode(b);
          return /[A-Za-z0-9!#$%&'*+/?^_`{|}~-]/.test(ch) ? ch : `=${b.toString(16).toUpperCase().padStart(2, "0")}`;
        })
        .join("");
  return `<${left || "=00"}@${domain}>`;
}

/** The Date header for a moment: RFC 5322's form, in UTC. */
export function emailDate(ms: number): string {
  return new Date(ms).toUTCString().replace(/GMT$/, "+0000");
}

/** What one email is made of, everything already checked by the destination schema. */
export interface OutgoingEmail {
  readonly messageId: string;
  /** Envelope sender: EMAIL_FROM's address, ASCII domain. */
  readonly envelopeFrom: string;
  /** Envelope recipients: to, cc and bcc, ASCII domains (bcc appears here only, never in a header). */
  readonly envelopeTo: readonly string[];
  /** The whole message, headers and body, CRLF line ends. */
  readonly raw: Buffer;
}

/**
 * Builds the email: From, To, Cc (never Bcc), Subject, Message-ID, Date,
 * In-Reply-To and References, and the text as one text/plain; charset=utf-8
 * part. The subject is always written as base64 encoded-words: left as
 * plain ASCII, nodemailer passes text that looks like an encoded-word
 * through (a subject "x =?utf-8?Q?a?= y" would read "x a y" in the mail
 * client, not what the post showed), and a long subject folded at a run of
 * spaces loses spaces when the reader unfolds it. The body is always base64: it carries the text's bytes exactly (no
 * line is wrapped, no trailing space trimmed, no line end rewritten, a line
 * starting with "." stays as it is), which 7bit or quoted-printable would not
 * promise for every text.
 */
export async function composeEmail(config: EmailConfig, d: EmailDestination, text: string, messageId: string, nowMs: number) {
  const node = new MimeNode("text/plain; charset=utf-8");
  const list = (values: readonly string[]) => values.map((v) => outgoing(v).ascii);
  node.setHeader("From", config.fromName ? { name: config.fromName, address: config.from.ascii } : config.from.ascii);
  node.setHeader("To", list(d.to));
  if (d.cc.length > 0) node.setHeader("Cc", list(d.cc));
  node.setHeader("Subject", { prepared: true, foldLines: true, value: encodeWord(d.subject, "B", 52) });
  node.setHeader("Message-ID", messageId);
  node.setHeader("Date", emailDate(nowMs));
  if (d.in_reply_to !== null) node.setHeader("In-Reply-To", d.in_reply_to);
  if (d.references.length > 0) node.setHeader("References", d.references.join(" "));
  node.setHeader("Content-Transfer-Encoding", "base64");
  node.setContent(text);
  const raw = await node.build();
  const email: OutgoingEmail = {
    messageId,
    envelopeFrom: config.from.ascii,
    envelopeTo: [...list(d.to), ...list(d.cc), ...list(d.bcc)],
    raw,
  };
  return email;
}
