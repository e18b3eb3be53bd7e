import type { OtherChannelName } from "../../drafts/destination.js";
import { channelsFromEnv } from "../../channels/configured.js";
import type { ChannelIdentity } from "../../channels/channel.js";
import { SLACK_SCOPES } from "../../channels/slack/index.js";

/** One variable setup asks for, and how it asks. */
export interface ChannelAsk {
  readonly variable: string;
  readonly question: string;
  /** A secret (a key, a token, a URL with a password): typed without echo on a terminal. */
  readonly hidden: boolean;
}

/** A channel as `draft-review setup` asks for it (contract v5 "Configuration"). */
export interface SetupChannel {
  readonly name: OtherChannelName;
  /** How a person names it ("Linear", "Email", "Slack"). */
  readonly title: string;
  /** Every variable of the channel: the proof reads these and no others. */
  readonly variables: readonly string[];
  /** What setup asks, in order; an empty first answer skips the channel. */
  readonly asks: readonly ChannelAsk[];
  /** Where the key or token comes from, shown before the first question. */
  readonly where: string;
}

/** The channels setup offers, in the contract's order. */
export const SETUP_CHANNELS: readonly SetupChannel[] = [
  {
    name: "linear",
    title: "Linear",
    variables: ["LINEAR_API_KEY", "LINEAR_API_URL"],
    asks: [
      {
        variable: "LINEAR_API_KEY",
        question: "Linear personal API key (lin_api_…, not shown as you type); Enter skips Linear: ",
        hidden: true,
      },
    ],
    where: "Linear: a personal API key (Settings → Security & access → Personal API keys); comments appear as its owner.",
  },
  {
    name: "email",
    title: "Email",
    variables: ["SMTP_URL", "EMAIL_FROM", "EMAIL_RATE", "EMAIL_CONFIRM_OVER"],
    asks: [
      {
        variable: "SMTP_URL",
        question: "SMTP_URL (smtp://user:pass@host:587 or smtps://user:pass@host:465, not shown as you type); Enter skips email: ",
        hidden: true,
      },
      { variable: "EMAIL_FROM", question: "EMAIL_FROM (Phill <phill@example.com>): ", hidden: false },
    ],
    where: "Email: your provider's submission server as a URL, with your login (special characters in the password as %XX).",
  },
  {
    name: "slack",
    title: "Slack",
    variables: ["SLACK_TOKEN", "SLACK_API_URL"],
    asks: [
      {
        variable: "SLACK_TOKEN",
        question: "Slack token (xoxp-… as you, or xoxb-… as the app; not shown as you type); Enter skips Slack: ",
        hidden: true,
      },
    ],
    where: `Slack: a user token (xoxp-…, messages appear as you) or a bot token (xoxb-…, as the app), from the app's OAuth & Permissions page, with the scopes ${SLACK_SCOPES.join(", ")}.`,
  },
];

/** What proving a channel's variables came to. */
export type ChannelProof =
  /** None of the channel's variables is set. */
  | { readonly kind: "absent" }
  /** The variables are wrong (each problem names the variable and the fix). */
  | { readonly kind: "invalid"; readonly problems: readonly string[] }
  /** The service answered (or refused, or could not be reached). */
  | { readonly kind: "asked"; readonly identity: ChannelIdentity };

/**
 * Proves a channel the way the daemon does at start (src/channels/configured.ts):
 * the channel's variables alone go through `channelsFromEnv`, which builds it
 * with its createXChannel, and the channel is asked who the daemon speaks as
 * there (`whoAmI`). Never throws; a secret never appears in what it returns.
 */
export async function proveChannel(channel: SetupChannel, env: Readonly<Record<string, string | undefined>>): Promise<ChannelProof> {
  const own: Record<string, string | undefined> = {};
  for (const name of channel.variables) own[name] = env[name];
  const built = await channelsFromEnv(own, { now: Date.now, confirmOver: null });
  if (!built.ok) return { kind: "invalid", problems: built.errors };
  const configured = built.channels?.get(channel.name);
  if (configured === undefined) return { kind: "absent" };
  const identity = await configured
    .whoAmI()
    .catch((err: unknown): ChannelIdentity => ({ ok: false, credentialsRefused: false, reason: (err as Error).message }));
  return { kind: "asked", identity };
}

/** One line for a person: who the daemon speaks as, or what is wrong and what the daemon would do. */
export function describeProof(channel: SetupChannel, proof: ChannelProof): string {
  if (proof.kind === "absent") return `${channel.title}: not configured.`;
  if (proof.kind === "invalid") return `✗ ${channel.title}: ${proof.problems.join("; ")}.`;
  const id = proof.identity;
  if (id.ok) return `✓ ${channel.title}: the daemon speaks as ${id.speaksAs}.`;
  if (id.credentialsRefused)
    return `✗ ${channel.title} refused the credentials (${id.reason}); the daemon would post drafts to ${channel.name} for review and send none.`;
  return `⚠️ ${channel.title} could not be reached (${id.reason}); the daemon would try its sends as they come.`;
}
