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
/**
 * How long after a send whose outcome is unknown a lookup waits before it
 * reads the conversation: a request Slack was still working on when the
 * answer was lost must have landed before "absent" may let it be sent again.
 */
export const SLACK_FIND_SENT_SETTLE_MS = 5000;
/** Unknown sends remembered for the settle wait (the oldest forgotten first). */
const UNSURE_KEPT = 1000;

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
  /**
   * The wait between a send that ended unknown (in this process, or begun at
   * `sendStartedAt` before a restart) and a lookup of it (default 5 s; 0 in tests).
   */
  readonly findSentSettleMs?: number;
  /** How the lookup waits (default a timer); tests pass one that moves their clock. */
  readonly sleep?: (ms: number) => Promise<void>;
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
  const unsure = new UnsureSends(options.findSentSettleMs ?? SLACK_FIND_SENT_SETTLE_MS, options.sleep ?? realSleep);
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
    send: async (d, text, reference) => {
      const outcome = await postSlackMessage(client, d, text, reference);
      if (outcome.kind === "unknown") unsure.remember(reference.reference, options.now());
      return outcome;
    },
    findSent: async (d, reference) => {
      await unsure.settle(reference.reference, options.sendStartedAt?.(reference) ?? null, options.now());
      const found = await findSlackSent(lookup, d, reference);
      if (found.kind !== "unknown") unsure.forget(reference.reference);
      return found;
    },
    rateKey: (d) => `slack:${d.channel_id}`,
  };
}

/** When each send of this process whose outcome is unknown ended, so that a lookup can let it land first. */
class UnsureSends {
  private readonly endedAt = new Map<string, number>();

  constructor(
    private readonly settleMs: number,
    private readonly sleep: (ms: number) => Promise<void>,
  ) {}

  remember(reference: string, nowMs: number): void {
    this.endedAt.delete(reference);
    this.endedAt.set(reference, nowMs);
    if (this.endedAt.size > UNSURE_KEPT) this.endedAt.delete(this.endedAt.keys().next().value!);
  }

  /**
   * Waits until the send of `reference` is `settleMs` old: from when it ended
   * unknown here, or (after a restart) from when the record says it began.
   */
  async settle(reference: string, startedAt: number | null, nowMs: number): Promise<void> {
    const from = Math.max(this.endedAt.get(reference) ?? Number.NEGATIVE_INFINITY, startedAt ?? Number.NEGATIVE_INFINITY);
    const wait = from + this.settleMs - nowMs;
    if (wait > 0) await this.sleep(wait);
  }

  forget(reference: string): void {
    this.endedAt.delete(reference);
  }
}

function realSleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
