/**
 * The email channel (contract v5): one plain-text email from EMAIL_FROM over
 * SMTP, its Message-ID chosen before the call, to every recipient the review
 * post showed or to none, never sent twice.
 */
export { type OutgoingAddress, outgoing, readAddress, showAddress, unsafeCharacterProblem } from "./address.js";
export { emailAudience, emailFingerprint } from "./audience.js";
export {
  emailConfigFromEnv,
  emailRatePerMinute,
  emailSecrets,
  type EmailConfig,
  type EmailConfigResult,
  type SmtpServer,
} from "./config.js";
export {
  describeEmailDestination,
  emailDestinationSchema,
  emailRecipientKeys,
  MAX_RECIPIENTS,
  MAX_REFERENCES,
  MAX_SUBJECT,
  type EmailDestination,
} from "./destination.js";
export { createEmailChannel, EMAIL_MAX_LENGTH, type EmailChannelOptions } from "./email-channel.js";
export { emailMessageId } from "./message.js";
