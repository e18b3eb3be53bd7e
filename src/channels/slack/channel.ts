/**
 * The Slack channel: one WebClient, the token's identity read once and kept,
 * and the Channel shape's five calls wired to the files that do each.
 */
import type { Channel, SendReference } from "../channel.js";
import type { Logger } from "../../log/logger.js";
import { readSlackAudience } from "./audience.js";
import { createSlackClient, SLACK_DEFAULT_TIMEOUT_MS } from "./client.js";
import type { SlackConfig } from "./config.js";
import { type SlackDestination, slackDestinationSchema } from "./destination.js";
import { findSlackSent } from "./find-sent.js";
import { readSpeaker, type SlackSpeaker, slackWhoAmI } from "./identity.js";
import { postSlackMessage, SLACK_TEXT_LIMIT } from "./send.js";

/** Slack's posting limit: one message a second per conversation (the send path's limiter reads it). */
export const SLACK_PER_CONVERSATION_MS = 1000;

/** What the Slack channel is made with. */
export interface SlackChannelOptions {
  readonly config: SlackConfig;
  /** The injected clock (ms since the epoch): `checkedAt` and the lookup's window. */
  readonly now: () => number;
  /** AUDIENCE_CONFIRM_OVER: a conversation with more members than this asks for one more tap; null: never. */
  readonly confirmOver: number | null;
  /** How long one Web API call may take before its outcome counts as lost (default 30 s). */
  readonly timeoutMs?: number;
  /** Where the library's own warnings go (it never logs the token); absent: nowhere. */
  readonly log?: Logger;
  /**
   * When the send of a reference began, as the draft's record has it: the
   * lookup after a lost answer reads the conversation from a little before
   * then. Absent or null: it reads the last `findSentLookbackMs`.
   */
  readonly sendStartedAt?: (reference: SendReference) => number | null;
  /** How far back a lookup reads when the send's start is not known (default 7 days). */
  readonly findSentLookbackMs?: number;
  /** Pages of 200 messages a lookup reads at most before it answers "unknown" (default 25). */
  readonly findSentMaxPages?: number;
}

/** The Slack channel for the send path, the desk and the machine. */
export function createSlackChannel(options: SlackChannelOptions): Channel<SlackDestination> {
  const client = createSlackClient(options.config, options.timeoutMs ?? SLACK_DEFAULT_TIMEOUT_MS, options.log);
  // The token's identity cannot change while the process lives: read once, then kept.
  let known: SlackSpeaker | null = null;
  const speaker = async () => {
    if (known !== null) return { ok: true as const, speaker: known };
    const read = await readSpeaker(client, options.config);
    if (read.ok) known = read.speaker;
    return read;
  };
  const lookup = {
    client,
    now: options.now,
    ...(options.sendStartedAt === undefined ? {} : { sendStartedAt: options.sendStartedAt }),
    ...(options.findSentLookbackMs === undefined ? {} : { lookbackMs: options.findSentLookbackMs }),
    ...(options.findSentMaxPages === undefined ? {} : { maxPages: options.findSentMaxPages }),
  };
  return {
    name: "slack",
    maxLength: SLACK_TEXT_LIMIT,
    destinationSchema: slackDestinationSchema,
    whoAmI: () => slackWhoAmI(client, options.config),
    readAudience: (d, text) => readSlackAudience({ client, speaker, now: options.now, confirmOver: options.confirmOver }, d, text),
    send: (d, text, reference) => postSlackMessage(client, d, text, reference),
    findSent: (d, reference) => findSlackSent(lookup, d, reference),
    rateKey: (d) => `slack:${d.channel_id}`,
  };
}
