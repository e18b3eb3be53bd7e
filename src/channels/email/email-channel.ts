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
import { openFailureOutcome, sendOutcome, withoutSecret } from "./outcome.js";
import { SmtpSession, type SmtpTimeouts } from "./smtp-session.js";

import { EMAIL_MAX_LENGTH } from "./destination.js";

/** The longest body an email may have, in characters (contract v5); defined beside the destination, which loads no client. */
export { EMAIL_MAX_LENGTH };

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

/** What every part of the channel works with. */
interface Context {
  readonly options: EmailChannelOptions;
  readonly config: EmailConfig;
  readonly timeouts: SmtpTimeouts;
}

/** The Message-ID a send with this reference carries, with EMAIL_FROM's domain. */
function messageIdOf(config: EmailConfig, reference: SendReference): string {
  return emailMessageId(reference.reference, config.from.ascii);
}

/** Why a send is refused before any connection: a destination or a text that must not go out; null when it may. */
function refusalBeforeSend(destination: EmailDestination, text: string): ChannelSendOutcome | null {
  const checked = emailDestinationSchema.safeParse(destination);
  if (!checked.success) {
    const issue = checked.error.issues[0];
    return { kind: "refused", reason: `the email destination is not valid (${issue?.path.join(".")}: ${issue?.message}); it was not sent` };
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
  return null;
}

/** One SMTP conversation for one composed email; throws only on a bug (the caller makes that unknown). */
async function submit(ctx: Context, email: OutgoingEmail): Promise<ChannelSendOutcome> {
  const session = new SmtpSession(ctx.config.smtp, ctx.timeouts);
  try {
    const opened = await session.open();
    if (!opened.ok) {
      session.close(false);
      return openFailureOutcome(opened.error, ctx.config.smtp);
    }
    const result = await session.send(email);
    session.close(result.kind === "accepted");
    return sendOutcome(result, email.messageId, ctx.config.from.ascii, ctx.config.smtp);
  } catch (err) {
    session.close(false);
    throw err;
  }
}

/** Checks, composes and submits; throws only on a bug. */
async function deliver(ctx: Context, destination: EmailDestination, text: string, reference: SendReference): Promise<ChannelSendOutcome> {
  const refusal = refusalBeforeSend(destination, text);
  if (refusal) return refusal;
  let email: OutgoingEmail;
  try {
    const d = emailDestinationSchema.parse(destination);
    email = await composeEmail(ctx.config, d, text, messageIdOf(ctx.config, reference), ctx.options.now());
  } catch (err) {
    return { kind: "refused", reason: `the email could not be composed (${String(err)}); it was not sent` };
  }
  return submit(ctx, email);
}

/** A send that never throws, its reason free of the password, logged. */
async function send(ctx: Context, destination: EmailDestination, text: string, reference: SendReference): Promise<ChannelSendOutcome> {
  const messageId = messageIdOf(ctx.config, reference);
  let outcome: ChannelSendOutcome;
  try {
    outcome = await deliver(ctx, destination, text, reference);
  } catch (err) {
    // A bug, not an answer, somewhere in the conversation: the message may have been handed over, so unknown (never sent twice).
    outcome = {
      kind: "unknown",
      reason: `sending the email with Message-ID ${messageId} failed unexpectedly (${String(err)}); it will not be sent again by itself`,
    };
  }
  const log = ctx.options.log;
  if (outcome.kind === "ok") {
    log?.info({ channel: "email", draftId: reference.draftId, messageId }, "email sent");
    return outcome;
  }
  const reason = withoutSecret(outcome.reason, ctx.config.smtp);
  log?.warn({ channel: "email", draftId: reference.draftId, messageId, outcome: outcome.kind, reason }, "email not sent");
  return { ...outcome, reason };
}

/** Connects, says EHLO and logs in: who the daemon speaks as, or why it cannot. */
async function identify(ctx: Context): Promise<ChannelIdentity> {
  const session = new SmtpSession(ctx.config.smtp, ctx.timeouts);
  try {
    const opened = await session.open();
    session.close(opened.ok);
    if (opened.ok) return { ok: true, speaksAs: ctx.config.fromText };
    const outcome = openFailureOutcome(opened.error, ctx.config.smtp);
    const reason = withoutSecret(outcome.kind === "ok" ? "the SMTP check failed" : outcome.reason, ctx.config.smtp);
    return { ok: false, credentialsRefused: outcome.kind === "refused", reason };
  } catch (err) {
    session.close(false);
    return { ok: false, credentialsRefused: false, reason: withoutSecret(`the SMTP check failed: ${String(err)}`, ctx.config.smtp) };
  }
}

/** The audience, or for a destination the schema refuses a problem with an unknown reader count. */
function audienceOf(ctx: Context, destination: EmailDestination): ChannelAudience {
  const nowMs = ctx.options.now();
  const checked = emailDestinationSchema.safeParse(destination);
  const knownRecipient = ctx.options.knownRecipient ?? (() => false);
  if (checked.success) return emailAudience(checked.data, { config: ctx.config, knownRecipient, nowMs });
  const issue = checked.error.issues[0];
  return {
    channel: "email",
    readerCount: null,
    lines: [fromLine(ctx.config)],
    confirmReasons: ["the audience could not be read"],
    problem: `the email destination is not valid (${issue?.path.join(".")}: ${issue?.message})`,
    fingerprint: `invalid:${JSON.stringify(destination) ?? "undefined"}`,
    checkedAt: new Date(nowMs).toISOString(),
  };
}

/** The email channel over SMTP. */
export function createEmailChannel(options: EmailChannelOptions): Channel<EmailDestination> {
  const { config } = options;
  const timeouts: SmtpTimeouts = { connectMs: options.connectTimeoutMs ?? 30_000, replyMs: options.replyTimeoutMs ?? 120_000 };
  const ctx: Context = { options, config, timeouts };
  return {
    name: "email",
    maxLength: EMAIL_MAX_LENGTH,
    destinationSchema: emailDestinationSchema,
    whoAmI: () => identify(ctx),
    readAudience: async (destination) => audienceOf(ctx, destination),
    send: (destination, text, reference) => send(ctx, destination, text, reference),
    async findSent(_destination, reference): Promise<LostSendLookup> {
      return {
        kind: "unknown",
        reason:
          `email cannot be looked up: SMTP has no way to ask whether the email with Message-ID ${messageIdOf(config, reference)} ` +
          "was delivered. Look for it in the sent mail (some providers file SMTP mail there) or ask a recipient; it will not be sent again by itself",
      };
    },
    rateKey: () => `email:${config.from.ascii.toLowerCase()}`,
  };
}
