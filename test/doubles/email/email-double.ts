/**
 * An SMTP submission server for tests: smtp-server on 127.0.0.1, port 0, with
 * AUTH (PLAIN, LOGIN) on a plain connection by default, that keeps every
 * message it received in full with its envelope, parsed by mailparser, and
 * answers faults on demand. Options: `pipelining: false`, `secure` (smtps),
 * `starttls`, `auth: false` (an open relay), `size` (SIZE limit), `user`/`pass`.
 * smtp-server waits 100 ms before its greeting (it refuses early talkers), so
 * each send takes at least that: the server's own time, not the client's.
 *
 * Hooks for the channel's tests and the lead's end-to-end tests:
 * - `url`: an SMTP_URL with the double's credentials (`smtp://user:pass@127.0.0.1:port`).
 * - `state.messages`: each message received in full: `envelope` (mailFrom, rcptTo),
 *   `raw` bytes as the server got them (dot-stuffing undone), `parsed` (mailparser),
 *   `body` (the text/plain part's bytes decoded, byte for byte), `lostAnswer` (the
 *   double dropped the connection instead of answering).
 * - `state.commands`: the client's command lines as they came over the wire (STARTTLS, MAIL FROM:<…>,
 *   RCPT TO:<…>, DATA…; AUTH without its credentials): smtp-server itself turns an xn--
 *   domain back into Unicode, this shows what was actually sent.
 * - `state.calls`: how many times each command arrived: connect, auth, mail, rcpt,
 *   data (DATA commands), and `aborted`: DATA transactions cut off before the final ".".
 * - `refuseRecipient(address, code = 550, text)`: every RCPT TO for that address gets
 *   this answer (case-insensitive), until `clearFaults()`.
 * - `failNext(command, code = 451, text)`: the next MAIL, RCPT or DATA gets this answer
 *   (DATA: the final answer after the data arrived; the message is not kept).
 * - `dropNext(command)`: the next MAIL or RCPT is not answered: the socket is destroyed
 *   (a connection lost before the data).
 * - `holdNextGreeting()`: the next connection is accepted and never greeted until
 *   `release()` (a server that hangs before the conversation starts).
 * - `refuseAuth(code = 535, text)`: every AUTH is refused, until `clearFaults()`.
 * - `dropNextAfterData()`: the next message is received in full (and kept, as it may
 *   well be delivered) and the socket is destroyed without an answer: a lost answer.
 * - `holdNext()`: the next message is received in full and its answer waits until
 *   `release()`; `received` settles when it has arrived.
 * - `idle()`: settles once no connection is open (the server has seen the client go).
 * - `close()`: ends every connection and stops the server.
 */
import type { AddressInfo } from "node:net";
import { type ParsedMail, simpleParser } from "mailparser";
import { SMTPServer, type SMTPServerDataStream, type SMTPServerSession } from "smtp-server";

/** One message the double received in full. */
export interface ReceivedEmail {
  readonly envelope: { readonly mailFrom: string; readonly rcptTo: readonly string[] };
  readonly raw: Buffer;
  readonly parsed: ParsedMail;
  /** The body's bytes after undoing the transfer encoding: what the recipient's client shows. */
  readonly body: Buffer;
  /** The double dropped the connection instead of answering (the client never heard 250). */
  readonly lostAnswer: boolean;
  /** The user that logged in; null without AUTH. */
  readonly user: string | null;
}

type Command = "MAIL" | "RCPT" | "DATA";
type Answer = { readonly code: number; readonly text: string };

/** What the double received and what it will do next. */
export interface EmailDoubleState {
  readonly messages: ReceivedEmail[];
  readonly commands: string[];
  readonly calls: { connect: number; auth: number; mail: number; rcpt: number; data: number; aborted: number };
  readonly refusedRecipients: Map<string, Answer>;
  readonly nextFault: Map<Command, Answer[]>;
  authRefusal: Answer | null;
  readonly drops: Set<"MAIL" | "RCPT">;
  readonly greetingHolds: Promise<void>[];
  dropNext: number;
  holds: { release: Promise<void>; arrived: () => void; releaseNow: () => void }[];
}

/** The running double. */
export interface EmailDouble {
  readonly url: string;
  readonly port: number;
  readonly user: string;
  readonly pass: string;
  readonly state: EmailDoubleState;
  refuseRecipient(address: string, code?: number, text?: string): void;
  failNext(command: Command, code?: number, text?: string): void;
  refuseAuth(code?: number, text?: string): void;
  dropNext(command: "MAIL" | "RCPT"): void;
  holdNextGreeting(): { release(): void };
  dropNextAfterData(): void;
  holdNext(): { readonly received: Promise<void>; release(): void };
  clearFaults(): void;
  idle(): Promise<void>;
  close(): Promise<void>;
}

/** Options: the credentials it takes, whether it offers PIPELINING (default true, as most servers do). */
export interface EmailDoubleOptions {
  readonly user?: string;
  readonly pass?: string;
  readonly pipelining?: boolean;
  /** TLS from the first byte (an smtps:// URL) with smtp-server's own self-signed localhost certificate. */
  readonly secure?: boolean;
  /** The largest message it takes, in bytes, advertised as SIZE (default: no limit). */
  readonly size?: number;
  /** Offer STARTTLS on the plain port with smtp-server's own localhost certificate (default false). */
  readonly starttls?: boolean;
  /** false: a relay that offers no AUTH and takes mail from anyone (default true: AUTH required). */
  readonly auth?: boolean;
}

function smtpError(answer: Answer): Error {
  return Object.assign(new Error(answer.text), { responseCode: answer.code });
}

/** The text/plain body's bytes, the transfer encoding undone (base64, quoted-printable, or as is). */
export function decodedBody(raw: Buffer): Buffer {
  const split = raw.indexOf("\r\n\r\n");
  const head = raw
    .subarray(0, split)
    .toString("latin1")
    .replace(/\r\n[ \t]+/g, " ");
  const body = raw.subarray(split + 4);
  const encoding = /^content-transfer-encoding:\s*(\S+)/im.exec(head)?.[1]?.toLowerCase() ?? "7bit";
  if (encoding === "base64") return Buffer.from(body.toString("latin1"), "base64");
  if (encoding === "quoted-printable") {
    const text = body.toString("latin1").replace(/=\r\n/g, "");
    return Buffer.from(
      text.replace(/=([0-9A-F]{2})/gi, (_m, h: string) => String.fromCharCode(Number.parseInt(h, 16))),
      "latin1",
    );
  }
  return body;
}

/** Starts the double on 127.0.0.1, port 0. */
export async function startEmailDouble(options: EmailDoubleOptions = {}): Promise<EmailDouble> {
  const user = options.user ?? "phill";
  const pass = options.pass ?? "double-smtp-pass-7261";
  const state: EmailDoubleState = {
    messages: [],
    commands: [],
    calls: { connect: 0, auth: 0, mail: 0, rcpt: 0, data: 0, aborted: 0 },
    refusedRecipients: new Map(),
    nextFault: new Map(),
    authRefusal: null,
    drops: new Set(),
    greetingHolds: [],
    dropNext: 0,
    holds: [],
  };
  const everyHold: EmailDoubleState["holds"] = [];
  const releases: (() => void)[] = [];
  const takeFault = (command: Command): Answer | undefined => state.nextFault.get(command)?.shift();

  const server: SMTPServer = new SMTPServer({
    logger: false,
    // No reverse DNS of 127.0.0.1: a machine without a resolver would stall every connection.
    disableReverseLookup: true,
    secure: options.secure === true,
    ...(options.size !== undefined ? { size: options.size } : {}),
    disabledCommands: [...(options.starttls ? [] : ["STARTTLS"]), ...(options.auth === false ? ["AUTH"] : [])],
    authOptional: options.auth === false,
    allowInsecureAuth: true,
    authMethods: ["PLAIN", "LOGIN"],
    hidePIPELINING: options.pipelining === false,
    onConnect(session, callback) {
      state.calls.connect++;
      for (const c of server.connections) if (c.session === session) c._socket.on("data", transcriber());
      const hold = state.greetingHolds.shift();
      if (hold === undefined) return callback();
      void hold.then(() => callback());
    },
    onAuth(auth, _session, callback) {
      state.calls.auth++;
      if (state.authRefusal) return callback(smtpError(state.authRefusal));
      if (auth.username !== user || auth.password !== pass)
        return callback(smtpError({ code: 535, text: "5.7.8 Authentication credentials invalid" }));
      callback(null, { user });
    },
    onMailFrom(_address, session, callback) {
      state.calls.mail++;
      if (state.drops.delete("MAIL")) return drop(session);
      const fault = takeFault("MAIL");
      callback(fault ? smtpError(fault) : null);
    },
    onRcptTo(address, session, callback) {
      state.calls.rcpt++;
      if (state.drops.delete("RCPT")) return drop(session);
      const fault = state.refusedRecipients.get(address.address.toLowerCase()) ?? takeFault("RCPT");
      callback(fault ? smtpError(fault) : null);
    },
    onData(stream, session, callback) {
      state.calls.data++;
      receive(stream, session, callback);
    },
  });

  /** Destroys the connection of a session without a word. */
  function drop(session: SMTPServerSession) {
    for (const c of server.connections) if (c.session === session) c._socket.destroy();
  }

  /** Keeps one connection's command lines as they arrive; AUTH loses its credentials, other lines are skipped. */
  function transcriber() {
    let rest = "";
    return (chunk: Buffer) => {
      const lines = (rest + chunk.toString("utf8")).split("\r\n");
      rest = lines.pop() ?? "";
      for (const line of lines) {
        if (/^(EHLO|HELO|STARTTLS|MAIL FROM|RCPT TO|DATA|QUIT|RSET)\b/i.test(line)) state.commands.push(line);
        else if (/^AUTH\b/i.test(line)) state.commands.push(line.split(" ").slice(0, 2).join(" "));
      }
    };
  }

  function receive(stream: SMTPServerDataStream, session: SMTPServerSession, callback: (err?: Error | null, message?: string) => void) {
    const chunks: Buffer[] = [];
    stream.on("data", (chunk: Buffer) => chunks.push(chunk));
    stream.on("error", () => {
      state.calls.aborted++;
    });
    stream.on("end", () => {
      void (async () => {
        const raw = Buffer.concat(chunks);
        const fault = takeFault("DATA");
        if (fault) return callback(smtpError(fault));
        const lostAnswer = state.dropNext > 0;
        if (lostAnswer) state.dropNext--;
        state.messages.push({
          envelope: {
            mailFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
            rcptTo: session.envelope.rcptTo.map((r) => r.address),
          },
          raw,
          parsed: await simpleParser(raw),
          body: decodedBody(raw),
          lostAnswer,
          user: typeof session.user === "string" ? session.user : null,
        });
        if (lostAnswer) return drop(session);
        const hold = state.holds.shift();
        if (hold) {
          hold.arrived();
          await hold.release;
        }
        callback(null, `2.0.0 Ok: queued as ${state.messages.length}`);
      })();
    });
  }

  // A client that gives up mid-handshake (a refused certificate) is an 'error' here, not a crash.
  server.on("error", () => {});
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const port = (server.server.address() as AddressInfo).port;
  return {
    url: `${options.secure ? "smtps" : "smtp"}://${encodeURIComponent(user)}:${encodeURIComponent(pass)}@127.0.0.1:${port}`,
    port,
    user,
    pass,
    state,
    refuseRecipient(address, code = 550, text = "5.1.1 Mailbox unavailable") {
      state.refusedRecipients.set(address.toLowerCase(), { code, text });
    },
    failNext(command, code = 451, text = "4.3.0 Temporary failure, try again later") {
      const list = state.nextFault.get(command) ?? [];
      list.push({ code, text });
      state.nextFault.set(command, list);
    },
    refuseAuth(code = 535, text = "5.7.8 Authentication credentials invalid") {
      state.authRefusal = { code, text };
    },
    dropNext(command) {
      state.drops.add(command);
    },
    holdNextGreeting() {
      let release!: () => void;
      state.greetingHolds.push(new Promise<void>((r) => (release = r)));
      releases.push(() => release());
      return { release: () => release() };
    },
    dropNextAfterData() {
      state.dropNext++;
    },
    holdNext() {
      let release!: () => void;
      let arrived!: () => void;
      const received = new Promise<void>((r) => (arrived = r));
      const hold = { release: new Promise<void>((r) => (release = r)), arrived, releaseNow: () => release() };
      state.holds.push(hold);
      everyHold.push(hold);
      return { received, release: () => release() };
    },
    clearFaults() {
      state.refusedRecipients.clear();
      state.nextFault.clear();
      state.authRefusal = null;
      state.dropNext = 0;
      state.drops.clear();
    },
    async idle() {
      while (server.connections.size > 0) await new Promise((r) => setTimeout(r, 5));
    },
    close() {
      for (const release of releases) release();
      for (const h of everyHold) {
        h.arrived();
        h.releaseNow();
      }
      for (const c of server.connections) c._socket.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
