/**
 * One SMTP conversation over nodemailer's SMTPConnection, as promises: open
 * (connect, EHLO, AUTH), send all-or-nothing, quit.
 *
 * At most once: one connection per send, no transport and no pool. What
 * guarantees it is that SMTPConnection has no queue and no retry at all
 * (nodemailer 10.6.1, dist/esm/smtp-connection); its send() writes the
 * message once and reports. nodemailer's SMTPPool (`pool: true`) re-queues a
 * message whose connection closed mid-send (`maxRequeues`, 5 by default; a
 * negative value re-queues without end), which after the data was written
 * sends it twice; were a pool ever used here, `maxRequeues: 0` is the option
 * that stops it. SMTPTransport (no pool) does not retry either, but it sends
 * to the accepted recipients when others are refused, see `send` below.
 */
import { Readable } from "node:stream";
import SMTPConnection, { type SMTPConnectionEnvelope, type SMTPEnvelope } from "nodemailer/lib/smtp-connection";
import type { SmtpServer } from "./config.js";
import type { OutgoingEmail } from "./message.js";

/** An error as nodemailer's SMTPConnection reports it (only the fields read here). */
export interface SmtpError {
  readonly message: string;
  /** nodemailer's kind: ECONNECTION, ETIMEDOUT, EAUTH, EENVELOPE, EMESSAGE, ESOCKET, EDNS, ETLS, EPROTOCOL… */
  readonly code?: string;
  /** The system error under it (ECONNREFUSED, ECONNRESET…). */
  readonly originalCode?: string;
  readonly responseCode?: number;
  /** The server's reply, as it said it. */
  readonly response?: string;
  /** The command the reply answered (MAIL FROM, RCPT TO, DATA, AUTH PLAIN, CONN…). */
  readonly command?: string;
  /** The recipient a RCPT TO reply refused. */
  readonly recipient?: string;
  readonly rejectedErrors?: readonly SmtpError[];
}

/** How long the conversation may wait. */
export interface SmtpTimeouts {
  /** For the TCP connection and the server's greeting. */
  readonly connectMs: number;
  /** For any one reply once connected (nodemailer's socketTimeout: silence this long ends the conversation). */
  readonly replyMs: number;
}

/** What a send came to, before it is put in the owner's words. */
export type SmtpSendResult =
  | { readonly kind: "accepted"; readonly response: string }
  /** One or more RCPT TO refused: nothing was sent to anyone (the data never started). */
  | { readonly kind: "recipients_refused"; readonly refused: readonly SmtpError[] }
  /** Anything else; `dataStarted`: the message bytes were handed to the connection. */
  | { readonly kind: "failed"; readonly error: SmtpError; readonly dataStarted: boolean };

/** How long a server may take to answer QUIT before the connection is closed anyway. */
const QUIT_GRACE_MS = 5_000;

type Step<T> = { ok: true; value: T } | { ok: false; error: SmtpError };

/** A conversation with the SMTP server; `close()` it in every case. */
export class SmtpSession {
  private readonly conn: SMTPConnection;
  /** Settles with the error that ended the connection (an 'error' event, or 'end' with none). */
  private readonly ended: Promise<SmtpError>;

  constructor(
    private readonly server: SmtpServer,
    timeouts: SmtpTimeouts,
  ) {
    this.conn = new SMTPConnection({
      host: server.host,
      port: server.port,
      secure: server.secure,
      connectionTimeout: timeouts.connectMs,
      greetingTimeout: timeouts.connectMs,
      socketTimeout: timeouts.replyMs,
      // Destroy the socket at close(): an abort must not leave the server a grace period.
      socketCloseTimeout: 0,
      logger: false,
    });
    this.ended = new Promise((resolve) => {
      this.conn.on("error", (err: SmtpError) => resolve(err));
      this.conn.once("end", () => resolve({ message: "Connection closed", code: "ECONNECTION" }));
    });
  }

  /** Runs one callback-style call, settling early when the connection ends first. */
  private step<T>(run: (done: (err: SmtpError | null | undefined, value?: T) => void) => void): Promise<Step<T>> {
    const called = new Promise<Step<T>>((resolve) => {
      try {
        run((err, value) => resolve(err ? { ok: false, error: err } : { ok: true, value: value as T }));
      } catch (err) {
        resolve({ ok: false, error: { message: String(err), code: "EAPI" } });
      }
    });
    return Promise.race([called, this.ended.then((error): Step<T> => ({ ok: false, error }))]);
  }

  /**
   * Connects, says EHLO and, when SMTP_URL names a user and the server offers
   * AUTH, logs in. A server that offers no AUTH (a relay that trusts the
   * network) is not sent the password, as nodemailer's own transport does.
   */
  async open(): Promise<Step<true>> {
    const connected = await this.step<true>((done) => this.conn.connect((err) => done(err, true)));
    if (!connected.ok || this.server.user === null || !this.conn.allowsAuth) return connected;
    const auth = { user: this.server.user, pass: this.server.pass ?? "" };
    return this.step<true>((done) => this.conn.login(auth, (err) => done(err, true)));
  }

  /**
   * Sends the message to every recipient or to none. nodemailer sends to the
   * recipients the server accepted and lists the refused ones, which would
   * send the owner's message to a subset of the audience he approved. The
   * envelope object handed to `send` is the one nodemailer fills in with its
   * RCPT bookkeeping (`SMTPConnectionEnvelope.rejectedErrors`), and the
   * message stream is read only after the server's 354 to DATA, when every
   * RCPT reply is in: unless every one was accepted, the connection is closed before a
   * single byte of the message is written. The server never sees the final
   * "." and so never takes the message (RFC 5321 4.1.1.4).
   */
  async send(email: OutgoingEmail): Promise<SmtpSendResult> {
    const envelope: SMTPEnvelope & Partial<SMTPConnectionEnvelope> = {
      from: email.envelopeFrom,
      to: [...email.envelopeTo],
      size: email.raw.length,
    };
    let dataStarted = false as boolean;
    let refused = null as readonly SmtpError[] | null;
    const body = new Readable({
      read: () => {
        if (dataStarted || refused !== null) return;
        // Go on only when nodemailer reports every recipient accepted; a refusal, or bookkeeping
        // that is not there (a later nodemailer copying the envelope), stops the message.
        const accepted = envelope.accepted ?? [];
        if (accepted.length !== email.envelopeTo.length) {
          refused = envelope.rejectedErrors ?? [];
          this.conn.close();
          return;
        }
        dataStarted = true;
        body.push(email.raw);
        body.push(null);
      },
    });
    const sent = await this.step<{ response: string }>((done) => this.conn.send(envelope, body, done));
    if (refused !== null && refused.length > 0) return { kind: "recipients_refused", refused };
    if (refused !== null) {
      const error = { message: "nodemailer did not report every recipient as accepted", code: "ENOTCONFIRMED" };
      return { kind: "failed", error, dataStarted: false };
    }
    if (sent.ok) return { kind: "accepted", response: sent.value.response };
    const all = sent.error.rejectedErrors;
    if (!dataStarted && sent.error.command === "RCPT TO" && all && all.length > 0) return { kind: "recipients_refused", refused: all };
    return { kind: "failed", error: sent.error, dataStarted };
  }

  /**
   * Says QUIT (the connection closes at the server's answer) when the
   * conversation went well, closing it anyway after `QUIT_GRACE_MS` so that a
   * server that never answers cannot hold the process; otherwise closes at once.
   */
  close(polite: boolean): void {
    if (!polite) {
      this.conn.close();
      return;
    }
    this.conn.quit();
    setTimeout(() => this.conn.close(), QUIT_GRACE_MS).unref();
  }
}
