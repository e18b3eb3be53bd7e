/**
 * The Linear channel: comments on issues, as the owner of a personal API key.
 * Composes the pieces of this folder into the one Channel shape
 * (src/channels/channel.ts).
 */
import type { Channel, ChannelAudience } from "../channel.js";
import { readAudienceFacts } from "./audience-read.js";
import { linearAudience, unreachableAudience, unreadAudience } from "./audience.js";
import { LINEAR_DEFAULT_TIMEOUT_MS, linearClientFactory, scrubber } from "./client.js";
import type { LinearConfig } from "./config.js";
import { failureOf, type LinearContext } from "./context.js";
import { type LinearDestination, linearDestinationSchema } from "./destination.js";
import { findComment, LINEAR_MAX_COMMENT_LENGTH, notFoundWords, sendComment } from "./send.js";
import { linearWhoAmI } from "./who-am-i.js";

/** What the Linear channel is made from. */
export interface LinearChannelOptions {
  /** LINEAR_API_KEY and LINEAR_API_URL, as `linearConfigFromEnv` read them. */
  readonly config: LinearConfig;
  /** The injected clock, ms since the epoch: `checkedAt`, rate-limit waits. */
  readonly now: () => number;
  /** AUDIENCE_CONFIRM_OVER: a 👍 for a team of more members than this needs one more tap; null: never. */
  readonly confirmOver: number | null;
  /** How long one call to Linear may take, its answer included, before it ends (a send: `unknown`). Default 30 s. */
  readonly requestTimeoutMs?: number;
}

/** Why a destination cannot be reached, in words; null when the failure is not about the destination. */
function problemOf(ctx: LinearContext, error: unknown, d: LinearDestination): { problem: string | null; why: string } {
  const f = failureOf(ctx, error);
  if (f.notFound !== null) {
    const entity = f.notFound.path === "comment" ? "Comment" : f.notFound.entity;
    return { problem: notFoundWords(entity, d), why: f.reason };
  }
  if (f.kind === "refused" && !f.credentials) return { problem: f.reason, why: f.reason };
  return { problem: null, why: f.reason };
}

/** Reads the audience; never throws (a failure is a problem or an unread audience). */
async function readAudience(ctx: LinearContext, confirmOver: number | null, d: LinearDestination, text: string): Promise<ChannelAudience> {
  const checkedAt = new Date(ctx.now()).toISOString();
  try {
    const facts = await readAudienceFacts(ctx.client, d.issue, d.parent_comment_id);
    if (facts.parent !== null && facts.parent.issueId !== facts.issue.id) {
      return unreachableAudience(
        d,
        `the comment it answers is on another issue, not ${facts.issue.identifier}: check parent_comment_id`,
        checkedAt,
      );
    }
    return linearAudience(facts, text, confirmOver, checkedAt);
  } catch (error) {
    const { problem, why } = problemOf(ctx, error, d);
    return problem === null ? unreadAudience(d, why, checkedAt) : unreachableAudience(d, problem, checkedAt);
  }
}

/** The Linear channel for one configuration. */
export function createLinearChannel(options: LinearChannelOptions): Channel<LinearDestination> {
  const timeoutMs = options.requestTimeoutMs ?? LINEAR_DEFAULT_TIMEOUT_MS;
  const ctx: LinearContext = {
    client: linearClientFactory(options.config, timeoutMs),
    now: options.now,
    timeoutMs,
    scrub: scrubber(options.config),
  };
  return {
    name: "linear",
    maxLength: LINEAR_MAX_COMMENT_LENGTH,
    destinationSchema: linearDestinationSchema,
    whoAmI: () => linearWhoAmI(ctx),
    readAudience: (d, text) => readAudience(ctx, options.confirmOver, d, text),
    send: (d, text, ref) => sendComment(ctx, d, text, ref),
    findSent: (_d, ref) => findComment(ctx, ref.reference),
    // One API key, one budget: every destination counts against the same limit.
    rateKey: () => "linear",
  };
}
