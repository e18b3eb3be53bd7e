/**
 * The email channel: one plain-text email from EMAIL_FROM per approved
 * draft, submitted over SMTP with nodemailer, at most once, to every
 * recipient the post showed or to none.
 */
import type { Channel, ChannelAudience, ChannelIdentity, ChannelSendOutcome, LostSendLookup, SendReference } from "../channel.js";
import type { Logger } from "../../log/logger.js";
import { LONE_SURROGATE } from "./address.js";
import { emailAudience, fromLine } from "./audience.js";
import type { EmailConfig } from "./config.js";
import { emailDestinationSchema, type EmailDestination } from "./destination.js";
import { composeEmail, emailMessageId, type OutgoingEmail } from "./message.js";
import { openFailureOutcome, sendOutcome, serverWords, withoutSecret } from "./outcome.js";
import { SmtpSession, type SmtpTimeouts } from "./smtp-session.js";

/** The longest body an email may have, in characters (contract v5). */
export const EMAIL_MAX_LENGTH = 100_000;

/** What the email channel is made with. */
export interface EmailChannelOptions {
  readonly config: EmailConfig;
  /** The injected clock (ms since the epoch): the Date header and the audience's `checkedAt`. */
  readonly now: () => number;
  /**
   * Whether an approved email already went to this address (given in ASCII
   * form, lowercased), backed by the lead's records. Default: never, so every
   * address outside EMAIL_FROM's domain asks for one more tap.
   */
  readonly knownRecipient?: (address: string) => boolean;
  /** How long the TCP connection and the server's greeting may take, in ms (default 30 s). */
  readonly connectTimeoutMs?: number;
  /**
   * How long the server may stay silent once connected, in ms (default 120 s).
   * Silence after the message data was handed over makes the send `unknown`.
   */
  readonly replyTimeoutMs?: number;
  /** Where sends and failures are logged (never a secret); default: nowhere. */
  readonly log?: Logger;
}

/** The Message-ID a send with this reference carries, with EMAIL_FROM's domain. */
function messageIdOf(config: EmailConfig, reference: SendReference): string {
  return emailMessageId(reference.reference, config.from.ascii);
}

/** The email channel over SMTP. */
export function createEmailChannel(options: EmailChannelOptions): Channel<EmailDestination> {
  const { config } = options;
  const timeouts: SmtpTimeouts = { connectMs: options.connectTimeoutMs ?? 30_000, replyMs: options.replyTimeoutMs ?? 120_000 };
  const knownRecipient = options.knownRecipient ?? (() => false);

  async function send(destination: EmailDestination, text: string, reference: SendReference): Promise<ChannelSendOutcome> {
    const checked = emailDestinationSchema.safeParse(destination);
    if (!checked.success) {
      const issue = checked.error.issues[0];
      return {
        kind: "refused",
        reason: `the email destination is not valid (${issue?.path.join(".")}: ${issue?.message}); it was not sent`,
      };
    }
    if (LONE_SURROGATE.test(text)) {
      return {
        kind: "refused",
        reason: "the text holds a broken character (a lone UTF-16 surrogate) that would arrive as �; it was not sent",
      };
    }
    if (text.length > EMAIL_MAX_LENGTH) {
      return { kind: "refused", reason: `the email is ${text.length} characters; an email takes at most ${EMAIL_MAX_LENGTH}` };
    }
    const messageId = messageIdOf(config, reference);
    let email: OutgoingEmail;
    try {
      email = await composeEmail(config, checked.data, text, messageId, options.now());
    } catch (err) {
      return { kind: "refused", reason: `the email could not be composed (${String(err)}); it was not sent` };
    }
    const session = new SmtpSession(config.smtp, timeouts);
    try {
      const opened = await session.open();
      if (!opened.ok) {
        session.close(false);
        return openFailureOutcome(opened.error, config.smtp);
      }
      const result = await session.send(email);
      session.close(result.kind === "accepted");
      return sendOutcome(result, messageId, config.from.ascii, config.smtp);
    } catch (err) {
      session.close(false);
      throw err;
    }
  }

  return {
    name: "email",
    maxLength: EMAIL_MAX_LENGTH,
    destinationSchema: emailDestinationSchema,

    async whoAmI(): Promise<ChannelIdentity> {
      const session = new SmtpSession(config.smtp, timeouts);
      try {
        const opened = await session.open();
        session.close(opened.ok);
        if (opened.ok) return { ok: true, speaksAs: config.fromText };
        const outcome = openFailureOutcome(opened.error, config.smtp);
        const reason = withoutSecret(outcome.kind === "ok" ? serverWords(opened.error) : outcome.reason, config.smtp);
        return { ok: false, credentialsRefused: outcome.kind === "refused", reason };
      } catch (err) {
        session.close(false);
        return { ok: false, credentialsRefused: false, reason: withoutSecret(`the SMTP check failed: ${String(err)}`, config.smtp) };
      }
    },

    async readAudience(destination: EmailDestination): Promise<ChannelAudience> {
      const nowMs = options.now();
      const checked = emailDestinationSchema.safeParse(destination);
      if (checked.success) return emailAudience(checked.data, { config, knownRecipient, nowMs });
      const issue = checked.error.issues[0];
      return {
        channel: "email",
        readerCount: null,
        lines: [fromLine(config)],
        confirmReasons: ["the audience could not be read"],
        problem: `the email destination is not valid (${issue?.path.join(".")}: ${issue?.message})`,
        fingerprint: `invalid:${JSON.stringify(destination) ?? "undefined"}`,
        checkedAt: new Date(nowMs).toISOString(),
      };
    },

    async send(destination, text, reference) {
      let outcome: ChannelSendOutcome;
      try {
        outcome = await send(destination, text, reference);
      } catch (err) {
        // A bug, not an answer, somewhere in the conversation: the message may have been handed over, so unknown (never sent twice).
        outcome = {
          kind: "unknown",
          reason: `sending the email with Message-ID ${messageIdOf(config, reference)} failed unexpectedly (${String(err)}); it will not be sent again by itself`,
        };
      }
      if (outcome.kind !== "ok") outcome = { ...outcome, reason: withoutSecret(outcome.reason, config.smtp) };
      const messageId = messageIdOf(config, reference);
      if (outcome.kind === "ok") options.log?.info({ channel: "email", draftId: reference.draftId, messageId }, "email sent");
      else
        options.log?.warn(
          { channel: "email", draftId: reference.draftId, messageId, outcome: outcome.kind, reason: outcome.reason },
          "email not sent",
        );
      return outcome;
    },

    async findSent(_destination, reference): Promise<LostSendLookup> {
      return {
        kind: "unknown",
        reason:
          `email cannot be looked up: SMTP has no way to ask whether the email with Message-ID ${messageIdOf(config, reference)} ` +
          "was delivered. Ask a recipient whether it arrived; it will not be sent again by itself",
      };
    },

    rateKey(): string {
      return `email:${config.from.ascii.toLowerCase()}`;
    },
  };
}
