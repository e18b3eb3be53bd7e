/**
 * Shared pieces of the email channel's tests: a configuration pointed at the
 * SMTP double, a destination read through the real schema, a send reference.
 */
import type { SendReference } from "../../../src/channels/channel.js";
import { type EmailConfig, type EmailDestination, emailConfigFromEnv, emailDestinationSchema } from "../../../src/channels/email/index.js";

/** The channel's configuration from an environment, failing the test when it is not valid. */
export function configFrom(env: Record<string, string | undefined>): EmailConfig {
  const read = emailConfigFromEnv(env);
  if (read.kind !== "ok") throw new Error(`test configuration refused: ${JSON.stringify(read)}`);
  return read.config;
}

/** A configuration sending through `url` as Phill <phill@example.com>. */
export function configFor(url: string, extra: Record<string, string> = {}): EmailConfig {
  return configFrom({ SMTP_URL: url, EMAIL_FROM: "Phill <phill@example.com>", ...extra });
}

/** A destination through the real schema: to anna@example.com, subject "Hello", with `fields` over it. */
export function destination(fields: Record<string, unknown> = {}): EmailDestination {
  return emailDestinationSchema.parse({ channel: "email", to: ["anna@example.com"], subject: "Hello", ...fields });
}

/** A send reference for draft `n`. */
export function reference(n = 1): SendReference {
  return { draftId: `draft-${n}`, delivery: 1, reference: `f3c1e2a0-0000-4000-8000-${String(n).padStart(12, "0")}` };
}
