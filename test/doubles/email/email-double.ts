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
 * - `state.faults`: the fault plan (faults.ts) that the hooks below set.
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
import { type Answer, type FaultCommand, FaultPlan, smtpError } from "./faults.js";

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

/** What the double received. */
export interface EmailDoubleState {
  readonly messages: ReceivedEmail[];
  readonly commands: string[];
  readonly calls: { connect: number; auth: number; mail: number; rcpt: number; data: number; aborted: number };
  /** What it will answer, drop or hold next (set through the hooks below). */
  readonly faults: FaultPlan;
}

/** The running double. */
export interface EmailDouble {
  readonly url: string;
  readonly port: number;
  readonly user: string;
  readonly pass: string;
  readonly state: EmailDoubleState;
  refuseRecipient(address: string, code?: number, text?: string): void;
  failNext(command: FaultCommand, code?: number, text?: string): void;
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

/** The smtp-server options for these double options (credentials and faults are checked in the handlers). */
function serverOptions(options: EmailDoubleOptions) {
  return {
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
  };
}

/** Keeps one connection's command lines as they arrive; AUTH loses its credentials, other lines are skipped. */
function transcriber(commands: string[]): (chunk: Buffer) => void {
  let rest = "";
  return (chunk) => {
    const lines = (rest + chunk.toString("utf8")).split("\r\n");
    rest = lines.pop() ?? "";
    for (const line of lines) {
      if (/^(EHLO|HELO|STARTTLS|MAIL FROM|RCPT TO|DATA|QUIT|RSET)\b/i.test(line)) commands.push(line);
      else if (/^AUTH\b/i.test(line)) commands.push(line.split(" ").slice(0, 2).join(" "));
    }
  };
}

/** Destroys the connection of a session without a word. */
function drop(server: SMTPServer, session: SMTPServerSession): void {
  for (const c of server.connections) if (c.session === session) c._socket.destroy();
}

/** A message received in full: failed, kept and dropped, or kept and answered (after a hold). */
async function settle(server: SMTPServer, state: EmailDoubleState, session: SMTPServerSession, raw: Buffer, done: DataCallback) {
  const fault = state.faults.take("DATA");
  if (fault) return done(smtpError(fault));
  const lostAnswer = state.faults.takeDropAfterData();
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
  if (lostAnswer) return drop(server, session);
  const hold = state.faults.takeHold();
  if (hold) {
    hold.arrived();
    await hold.released;
  }
  done(null, `2.0.0 Ok: queued as ${state.messages.length}`);
}

type DataCallback = (err?: Error | null, message?: string) => void;

/** Reads the message data; a transaction the client cuts off before the final "." counts as aborted. */
function receive(
  server: SMTPServer,
  state: EmailDoubleState,
  stream: SMTPServerDataStream,
  session: SMTPServerSession,
  done: DataCallback,
) {
  const chunks: Buffer[] = [];
  stream.on("data", (chunk: Buffer) => chunks.push(chunk));
  stream.on("error", () => {
    state.calls.aborted++;
  });
  stream.on("end", () => void settle(server, state, session, Buffer.concat(chunks), done));
}

/** The SMTP server with the double's handlers: counts, the transcript, credentials and faults. */
function createServer(options: EmailDoubleOptions, state: EmailDoubleState, user: string, pass: string): SMTPServer {
  const { faults, calls } = state;
  const server: SMTPServer = new SMTPServer({
    ...serverOptions(options),
    onConnect(session, callback) {
      calls.connect++;
      for (const c of server.connections) if (c.session === session) c._socket.on("data", transcriber(state.commands));
      const hold = faults.takeGreeting();
      if (hold === undefined) return callback();
      void hold.then(() => callback());
    },
    onAuth(auth, _session, callback) {
      calls.auth++;
      const refusal = faults.authAnswer() ?? (auth.username !== user || auth.password !== pass ? WRONG_CREDENTIALS : null);
      if (refusal) return callback(smtpError(refusal));
      callback(null, { user });
    },
    onMailFrom(_address, session, callback) {
      calls.mail++;
      if (faults.takeDrop("MAIL")) return drop(server, session);
      const fault = faults.take("MAIL");
      callback(fault ? smtpError(fault) : null);
    },
    onRcptTo(address, session, callback) {
      calls.rcpt++;
      if (faults.takeDrop("RCPT")) return drop(server, session);
      const fault = faults.take("RCPT", address.address);
      callback(fault ? smtpError(fault) : null);
    },
    onData(stream, session, callback) {
      calls.data++;
      receive(server, state, stream, session, callback);
    },
  });
  // A client that gives up mid-handshake (a refused certificate) is an 'error' here, not a crash.
  server.on("error", () => {});
  return server;
}

const WRONG_CREDENTIALS: Answer = { code: 535, text: "5.7.8 Authentication credentials invalid" };

/** Starts the double on 127.0.0.1, port 0. */
export async function startEmailDouble(options: EmailDoubleOptions = {}): Promise<EmailDouble> {
  const user = options.user ?? "phill";
  const pass = options.pass ?? "double-smtp-pass-7261";
  const faults = new FaultPlan();
  const state: EmailDoubleState = {
    messages: [],
    commands: [],
    calls: { connect: 0, auth: 0, mail: 0, rcpt: 0, data: 0, aborted: 0 },
    faults,
  };
  const server = createServer(options, state, user, pass);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const port = (server.server.address() as AddressInfo).port;
  return {
    url: `${options.secure ? "smtps" : "smtp"}://${encodeURIComponent(user)}:${encodeURIComponent(pass)}@127.0.0.1:${port}`,
    port,
    user,
    pass,
    state,
    refuseRecipient: (address, code = 550, text = "5.1.1 Mailbox unavailable") => faults.refuseRecipient(address, { code, text }),
    failNext: (command, code = 451, text = "4.3.0 Temporary failure, try again later") => faults.failNext(command, { code, text }),
    refuseAuth: (code = 535, text = WRONG_CREDENTIALS.text) => faults.refuseAuth({ code, text }),
    dropNext: (command) => faults.dropNext(command),
    holdNextGreeting: () => faults.holdNextGreeting(),
    dropNextAfterData: () => faults.dropNextAfterData(),
    holdNext: () => faults.holdNext(),
    clearFaults: () => faults.clear(),
    async idle() {
      while (server.connections.size > 0) await new Promise((r) => setTimeout(r, 5));
    },
    close() {
      faults.releaseAll();
      for (const c of server.connections) c._socket.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
