/**
 * The email channel's configuration from the environment (contract v5,
 * "Configuration"): SMTP_URL, EMAIL_FROM, EMAIL_RATE, EMAIL_CONFIRM_OVER.
 * A problem names the variable and what to set, never the password.
 */
import { readAddress, unsafeCharacterProblem, type OutgoingAddress } from "./address.js";

/** The SMTP server the channel submits to. */
export interface SmtpServer {
  readonly host: string;
  readonly port: number;
  /** `smtps://`: TLS from the first byte (465); `smtp://` upgrades with STARTTLS when the server offers it. */
  readonly secure: boolean;
  /** From SMTP_URL's user part; null: the server takes mail without AUTH. */
  readonly user: string | null;
  /** A secret: never in a reason, an error or a log line. */
  readonly pass: string | null;
}

/** The email channel's settings. */
export interface EmailConfig {
  readonly smtp: SmtpServer;
  /** EMAIL_FROM as written (`Phill <phill@example.com>`): the From line the review post shows. */
  readonly fromText: string;
  /** EMAIL_FROM's display name; null when it is a bare address. */
  readonly fromName: string | null;
  /** EMAIL_FROM's address as it goes out (ASCII domain). */
  readonly from: OutgoingAddress;
  /** EMAIL_RATE: at most this many messages a minute (default 20). */
  readonly ratePerMinute: number;
  /** EMAIL_CONFIRM_OVER: more recipients than this asks for one more tap (default 10). */
  readonly confirmOver: number;
}

/** What the environment says about the email channel. */
export type EmailConfigResult =
  | { readonly kind: "absent" }
  | { readonly kind: "ok"; readonly config: EmailConfig }
  | { readonly kind: "invalid"; readonly error: string };

const NAMES = ["SMTP_URL", "EMAIL_FROM", "EMAIL_RATE", "EMAIL_CONFIRM_OVER"] as const;

/** A value that is unset or only blanks counts as unset. */
function read(env: Record<string, string | undefined>, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === undefined || value === "" ? undefined : value;
}

/** SMTP_URL read into a server; the problem never repeats the URL (it holds the password). */
function readSmtpUrl(text: string): SmtpServer | string {
  const shape = "SMTP_URL must look like smtp://user:pass@host:587 or smtps://user:pass@host:465";
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return `${shape} (it is not a URL)`;
  }
  if (url.protocol !== "smtp:" && url.protocol !== "smtps:") return `${shape} (it starts with ${url.protocol}//)`;
  if (url.hostname === "") return `${shape} (it names no host)`;
  if ((url.pathname !== "" && url.pathname !== "/") || url.search !== "" || url.hash !== "") {
    return `${shape} (nothing may follow the port)`;
  }
  const secure = url.protocol === "smtps:";
  let user: string;
  let pass: string;
  try {
    user = decodeURIComponent(url.username);
    pass = decodeURIComponent(url.password);
  } catch {
    return `${shape} (the user or password has a broken %-escape; write special characters as %XX)`;
  }
  if (user === "" && pass !== "") return `${shape} (it has a password but no user)`;
  const host = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
  return { host, port: url.port === "" ? (secure ? 465 : 587) : Number(url.port), secure, user: user || null, pass: user ? pass : null };
}

/** EMAIL_FROM read as `Name <address>` or a bare address. */
function readFrom(text: string): { name: string | null; address: OutgoingAddress } | string {
  const shape = "EMAIL_FROM must be an address like phill@example.com or Phill <phill@example.com>";
  const unsafe = unsafeCharacterProblem(text);
  if (unsafe) return `EMAIL_FROM ${unsafe}`;
  const named = /^(.*?)\s*<([^<>]+)>$/.exec(text);
  const name = named ? (named[1] ?? "").replace(/^"(.*)"$/, "$1").trim() : null;
  const read = readAddress(named ? (named[2] ?? "") : text);
  if (!read.ok) return `${shape}: the address ${read.problem}`;
  return { name: name === "" ? null : name, address: read.address };
}

/** A whole number from `min` to `max`, or the problem naming the variable. */
function wholeNumber(env: Record<string, string | undefined>, name: string, min: number, max: number, unset: number): number | string {
  const text = read(env, name);
  if (text === undefined) return unset;
  const n = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!(n >= min && n <= max)) return `${name} must be a whole number from ${min} to ${max} (got "${text}"); leave it unset for ${unset}`;
  return n;
}

/**
 * The email channel's configuration: absent when none of its variables is
 * set; invalid, naming the variable and what to set, when one is wrong or
 * SMTP_URL / EMAIL_FROM is missing while another is set.
 */
export function emailConfigFromEnv(env: Record<string, string | undefined>): EmailConfigResult {
  if (NAMES.every((n) => read(env, n) === undefined)) return { kind: "absent" };
  const urlText = read(env, "SMTP_URL");
  const fromText = read(env, "EMAIL_FROM");
  if (urlText === undefined) return { kind: "invalid", error: "SMTP_URL is not set: set it to smtp://user:pass@host:587 to send email" };
  if (fromText === undefined)
    return { kind: "invalid", error: "EMAIL_FROM is not set: set it to the From address, like Phill <phill@example.com>" };
  const smtp = readSmtpUrl(urlText);
  if (typeof smtp === "string") return { kind: "invalid", error: smtp };
  const from = readFrom(fromText);
  if (typeof from === "string") return { kind: "invalid", error: from };
  const ratePerMinute = wholeNumber(env, "EMAIL_RATE", 1, 10_000, 20);
  if (typeof ratePerMinute === "string") return { kind: "invalid", error: ratePerMinute };
  const confirmOver = wholeNumber(env, "EMAIL_CONFIRM_OVER", 0, 100_000, 10);
  if (typeof confirmOver === "string") return { kind: "invalid", error: confirmOver };
  return { kind: "ok", config: { smtp, fromText, fromName: from.name, from: from.address, ratePerMinute, confirmOver } };
}

/** EMAIL_RATE: how many messages a minute the mailbox may send, for the send path's limiter. */
export function emailRatePerMinute(config: EmailConfig): number {
  return config.ratePerMinute;
}

/** The strings that must never be logged (the SMTP password), for the logger's secrets list. */
export function emailSecrets(config: EmailConfig): string[] {
  return config.smtp.pass ? [config.smtp.pass] : [];
}
