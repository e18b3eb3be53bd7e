import type { OtherChannelName } from "../drafts/destination.js";
import type { Logger } from "../log/logger.js";
import type { Channel } from "./channel.js";
import { type AnyChannel, ChannelSet } from "./channel-set.js";
import { emailConfigFromEnv, emailSecrets } from "./email/config.js";
import { EMAIL_MAX_LENGTH, emailDestinationSchema } from "./email/destination.js";
import { linearConfigFromEnv } from "./linear/config.js";
import { LINEAR_MAX_COMMENT_LENGTH, linearDestinationSchema } from "./linear/destination.js";
import { offlineChannelAudience } from "./offline-audience.js";
import { slackConfigFromEnv } from "./slack/config.js";
import { SLACK_TEXT_LIMIT, slackDestinationSchema } from "./slack/destination.js";

// The clients (@linear/sdk, @slack/web-api, nodemailer) are loaded only for a channel that is
// configured: a daemon that speaks on Telegram alone, and test mode, start without them.

/** One rate window: at most `max` sends per `lengthMs` (the send path's limiter takes these). */
export interface RateWindow {
  readonly max: number;
  readonly lengthMs: number;
}

/** What the channels are built with besides the environment. */
export interface ChannelOptions {
  /** The injected clock (ms). */
  readonly now: () => number;
  /** AUDIENCE_CONFIRM_OVER: a Linear team or Slack conversation over this many members asks for the extra tap. */
  readonly confirmOver: number | null;
  /** Whether an approved email went to this address before (an external address never written to asks for the extra tap). */
  readonly knownRecipient?: (address: string) => boolean;
  /** When a send began, for Slack's lookup after a lost answer (the record's `updated_at` of its `sending` line). */
  readonly sendStartedAt?: (reference: string) => number | null;
  readonly log?: Logger;
}

/** The channels the environment configures, with their secrets and limits; or every variable at fault, in words. */
export type ConfiguredChannels =
  | {
      readonly ok: true;
      /** Null when none is configured: the daemon speaks on Telegram only. */
      readonly channels: ChannelSet | null;
      /** Values the logger must never print (the SMTP password, the tokens). */
      readonly secrets: readonly string[];
      /** The rate windows of a draft's destination label (`email`, `slack:C…`, `linear:ENG-1`). */
      readonly windowsFor: (label: string) => readonly RateWindow[];
    }
  | { readonly ok: false; readonly errors: readonly string[] };

/**
 * Reads LINEAR_*, SMTP_URL / EMAIL_*, SLACK_* (contract v5) and builds the
 * configured channels. A channel none of whose variables is set is simply
 * absent (its drafts are refused at intake, naming what to set); one set
 * wrongly refuses the start, naming the variable.
 */
export async function channelsFromEnv(env: Record<string, string | undefined>, options: ChannelOptions): Promise<ConfiguredChannels> {
  const map = new Map<OtherChannelName, AnyChannel>();
  const errors: string[] = [];
  const secrets: string[] = [];
  let emailRate = 20;
  let slackGapMs = 1000;
  const linear = linearConfigFromEnv(env);
  if (linear.kind === "invalid") errors.push(linear.error);
  if (linear.kind === "ok") {
    secrets.push(linear.config.apiKey);
    const { createLinearChannel } = await import("./linear/channel.js");
    map.set("linear", createLinearChannel({ config: linear.config, now: options.now, confirmOver: options.confirmOver }));
  }
  const email = emailConfigFromEnv(env);
  if (email.kind === "invalid") errors.push(email.error);
  if (email.kind === "ok") {
    secrets.push(...emailSecrets(email.config));
    emailRate = email.config.ratePerMinute;
    const { createEmailChannel } = await import("./email/email-channel.js");
    map.set(
      "email",
      createEmailChannel({
        config: email.config,
        now: options.now,
        ...(options.knownRecipient ? { knownRecipient: options.knownRecipient } : {}),
      }),
    );
  }
  const slack = slackConfigFromEnv(env);
  if (slack.kind === "invalid") errors.push(slack.error);
  if (slack.kind === "ok") {
    secrets.push(slack.config.token);
    const started = options.sendStartedAt;
    const { createSlackChannel, SLACK_PER_CONVERSATION_MS } = await import("./slack/channel.js");
    slackGapMs = SLACK_PER_CONVERSATION_MS;
    map.set(
      "slack",
      createSlackChannel({
        config: slack.config,
        now: options.now,
        confirmOver: options.confirmOver,
        ...(started ? { sendStartedAt: (ref) => started(ref.reference) } : {}),
        ...(options.log ? { log: options.log } : {}),
      }),
    );
  }
  if (errors.length > 0) return { ok: false, errors };
  return { ok: true, channels: map.size === 0 ? null : new ChannelSet(map), secrets, windowsFor: windowsOf(emailRate, slackGapMs) };
}

/** Each channel's own limits: Slack one message a second per conversation, email EMAIL_RATE a minute; Linear its answers only. */
function windowsOf(emailRatePerMinute: number, slackGapMs: number): (label: string) => readonly RateWindow[] {
  return (label) => {
    if (label === "email") return [{ max: emailRatePerMinute, lengthMs: 60_000 }];
    if (label.startsWith("slack:")) return [{ max: 1, lengthMs: slackGapMs }];
    return [];
  };
}

/**
 * Every channel as test mode has it (contract v5: offline): the real
 * destination schemas and limits, an audience made up from the destination,
 * and a send that reaches nobody and says so in its `sent_ref`.
 */
export function offlineChannels(now: () => number): ChannelSet {
  const offline = <D extends object>(name: OtherChannelName, schema: Channel<D>["destinationSchema"], maxLength: number): Channel<D> => ({
    name,
    maxLength,
    destinationSchema: schema,
    whoAmI: async () => ({ ok: true, speaksAs: "test mode (offline)" }),
    readAudience: async (d) => {
      const a = offlineChannelAudience({ ...(d as object), channel: name } as never, now());
      return {
        channel: name,
        readerCount: a.reader_count,
        lines: a.lines,
        confirmReasons: [],
        problem: null,
        fingerprint: a.fingerprint,
        checkedAt: a.checked_at,
      };
    },
    send: async (_d, _text, ref) => ({
      kind: "ok",
      sentRef: { reference: ref.reference, test_mode: "offline: nothing left this machine" },
    }),
    findSent: async () => ({ kind: "absent" }),
    rateKey: () => name,
  });
  return new ChannelSet(
    new Map<OtherChannelName, AnyChannel>([
      ["linear", offline("linear", linearDestinationSchema, LINEAR_MAX_COMMENT_LENGTH)],
      ["email", offline("email", emailDestinationSchema, EMAIL_MAX_LENGTH)],
      ["slack", offline("slack", slackDestinationSchema, SLACK_TEXT_LIMIT)],
    ]),
  );
}

/**
 * Asks each configured channel who the daemon speaks as there (contract v5),
 * logs the answer, and halts a channel whose service refused the
 * credentials; `tell` says so in the review chat, once per start. A service
 * that cannot be reached is a warning: its sends fail or wait as they come.
 */
export async function proveChannels(channels: ChannelSet, log: Logger, tell: (text: string) => Promise<unknown>): Promise<void> {
  await Promise.all(
    channels.names().map(async (name) => {
      const identity = await channels
        .get(name)!
        .whoAmI()
        .catch((err: unknown) => ({ ok: false as const, credentialsRefused: false, reason: (err as Error).message }));
      if (identity.ok)
        return log.info({ channel: name, speaks_as: identity.speaksAs }, `${name}: the daemon speaks as ${identity.speaksAs}`);
      if (!identity.credentialsRefused)
        return log.warn(
          { channel: name, reason: identity.reason },
          `${name} could not be reached to prove the credentials; its sends are tried as they come`,
        );
      channels.halt(name, identity.reason);
      log.error(
        { channel: name, reason: identity.reason },
        `${name} refused the daemon's credentials: its drafts are posted for review, none is sent`,
      );
      await tell(
        `⛔ ${name} refused the daemon's credentials (${identity.reason}). Drafts to ${name} are still posted for review, but none is sent until the credentials are fixed and the daemon restarted.`,
      ).catch(() => undefined);
    }),
  );
}
