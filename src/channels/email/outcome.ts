/**
 * What an SMTP conversation came to, in the channel's outcome kinds and the
 * owner's words: a 5xx is `refused`, a 4xx before the message was taken is
 * `not_sent`, a connection that failed before the message data is
 * `not_sent`, and silence or a dropped connection after the data was handed
 * over is `unknown` (it may have been delivered; SMTP cannot be asked).
 */
import type { ChannelSendOutcome } from "../channel.js";
import type { SmtpServer } from "./config.js";
import type { SmtpError, SmtpSendResult } from "./smtp-session.js";

/** The server's reply, one line, short enough for a phone. */
export function serverWords(error: SmtpError): string {
  const said = (error.response ?? "").replace(/[\u0000-\u001f\u007f]+/g, " ").trim();
  const text = said !== "" ? said : error.message.replace(/[\u0000-\u001f\u007f]+/g, " ").trim();
  return text.length > 200 ? `${text.slice(0, 199)}…` : text;
}

/** Why the connection failed, in a few words (a system code when there is one). */
function connectionWords(error: SmtpError): string {
  if (error.code === "ETIMEDOUT") return "no answer in time";
  if (error.originalCode === "ECONNREFUSED") return "connection refused";
  if (error.code === "EDNS") return "the host name does not resolve";
  if (/CERT|SELF_SIGNED|UNABLE_TO_VERIFY|ALTNAME/.test(error.originalCode ?? "")) {
    return `its TLS certificate was not accepted: ${error.originalCode}`;
  }
  return error.originalCode ?? serverWords(error);
}

const permanent = (e: SmtpError) => (e.responseCode ?? 0) >= 500;
const transient = (e: SmtpError) => (e.responseCode ?? 0) >= 400 && (e.responseCode ?? 0) < 500;

/** Connecting or logging in failed: nothing was sent. */
export function openFailureOutcome(error: SmtpError, server: SmtpServer): ChannelSendOutcome {
  if (error.code === "EAUTH" && permanent(error)) {
    return {
      kind: "refused",
      reason: `the SMTP server refused the credentials (${serverWords(error)}): check the user and password in SMTP_URL; nothing was sent`,
    };
  }
  if (error.code === "EAUTH") {
    return { kind: "not_sent", reason: `the SMTP server could not log us in just now (${serverWords(error)}); nothing was sent` };
  }
  return {
    kind: "not_sent",
    reason: `could not reach the mail server ${server.host}:${server.port} (${connectionWords(error)}); nothing was sent`,
  };
}

/** One or more recipients refused at RCPT TO: the message went to nobody. */
function recipientsOutcome(refused: readonly SmtpError[]): ChannelSendOutcome {
  const named = (e: SmtpError) => `${e.recipient ?? "a recipient"} (${serverWords(e)})`;
  const hard = refused.filter(permanent);
  if (hard.length > 0) {
    return {
      kind: "refused",
      reason: `the mail server refused ${hard.map(named).join(", ")}; nothing was sent to anyone: correct the address and submit the draft again`,
    };
  }
  return { kind: "not_sent", reason: `the mail server deferred ${refused.map(named).join(", ")}; nothing was sent to anyone` };
}

/** The server answered a command with a refusal: the message was not taken. */
function answeredOutcome(error: SmtpError, from: string): ChannelSendOutcome {
  const words = serverWords(error);
  if (error.command === "MAIL FROM" && error.responseCode === 530) {
    return { kind: "refused", reason: `the mail server wants a login (${words}): put the user and password in SMTP_URL; it was not sent` };
  }
  if (error.responseCode === 552) {
    return { kind: "refused", reason: `the mail server takes no message this large (${words}); it was not sent` };
  }
  if (error.command === "MAIL FROM" && permanent(error)) {
    return {
      kind: "refused",
      reason: `the mail server refused the sender ${from} (${words}): check that this SMTP account may send as EMAIL_FROM; it was not sent`,
    };
  }
  const what =
    error.command === "MAIL FROM"
      ? `the sender ${from}`
      : error.code === "EMESSAGE"
        ? "the message after reading it"
        : `the message at ${error.command ?? "the start"}`;
  if (permanent(error)) return { kind: "refused", reason: `the mail server refused ${what} (${words}); it was not sent` };
  return { kind: "not_sent", reason: `the mail server deferred ${what} (${words}); it was not sent` };
}

/** What a send came to, for the send path. */
export function sendOutcome(result: SmtpSendResult, messageId: string, from: string, server: SmtpServer): ChannelSendOutcome {
  if (result.kind === "accepted") return { kind: "ok", sentRef: { message_id: messageId } };
  if (result.kind === "recipients_refused") return recipientsOutcome(result.refused);
  const { error, dataStarted } = result;
  // A definite answer to a command (not a connection that just ended): the server said no.
  const answered = (permanent(error) || transient(error)) && error.code !== "ECONNECTION" && error.code !== "ETIMEDOUT";
  if (answered) return answeredOutcome(error, from);
  if (error.code === "EMESSAGE" && error.command === "MAIL FROM") {
    return { kind: "refused", reason: `the mail server takes no message this large (${serverWords(error)}); it was not sent` };
  }
  if (!dataStarted) {
    return {
      kind: "not_sent",
      reason: `the connection to the mail server ${server.host}:${server.port} failed before the message was handed over (${connectionWords(error)}); nothing was sent`,
    };
  }
  return {
    kind: "unknown",
    reason:
      `the mail server did not confirm the email with Message-ID ${messageId} (${connectionWords(error)}) after it was handed over: ` +
      "it may have been delivered. Look for it in the sent mail (some providers file SMTP mail there) or ask a recipient; it will not be sent again by itself",
  };
}

/** Removes the SMTP password from a text, should a server ever echo it. */
export function withoutSecret(text: string, server: SmtpServer): string {
  return server.pass && server.pass.length >= 4 ? text.split(server.pass).join("[redacted]") : text;
}
