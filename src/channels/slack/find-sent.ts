/**
 * After a lost answer or a crash: is the message that carries a reference in
 * the conversation (or thread)? Reads conversations.history (or .replies)
 * with `include_all_metadata`, from a little before the send, for the
 * message whose metadata names the reference. "absent" only after a
 * complete read; anything short of that is "unknown", because "absent" lets
 * the daemon send again.
 */
import type { WebClient } from "@slack/web-api";
import type { LostSendLookup, SendReference } from "../channel.js";
import type { SlackDestination } from "./destination.js";
import { describeFailure, readSlackError } from "./errors.js";
import { permalinkOf, SLACK_METADATA_EVENT_TYPE } from "./send.js";

/** How far back the lookup reads when the caller cannot say when the send began. */
export const SLACK_FIND_SENT_LOOKBACK_MS = 7 * 24 * 3_600_000;
/** Read from this long before the send began: clocks differ, Slack's ts is Slack's. */
export const SLACK_FIND_SENT_MARGIN_MS = 10 * 60_000;
/** Pages of 200 messages read at most before the answer is "unknown". */
export const SLACK_FIND_SENT_MAX_PAGES = 25;

/** What the lookup needs besides the client. */
export interface FindSentContext {
  readonly client: WebClient;
  readonly now: () => number;
  /** When the send of `reference` began (ms since the epoch), when the caller knows; null: read the lookback. */
  readonly sendStartedAt?: (reference: SendReference) => number | null;
  readonly lookbackMs?: number;
  readonly maxPages?: number;
}

interface HistoryMessage {
  ts?: string;
  metadata?: { event_type?: string; event_payload?: unknown };
}

/** Looks for the message that carries `reference` at `d`. */
export async function findSlackSent(ctx: FindSentContext, d: SlackDestination, reference: SendReference): Promise<LostSendLookup> {
  const startedAt = ctx.sendStartedAt?.(reference) ?? ctx.now() - (ctx.lookbackMs ?? SLACK_FIND_SENT_LOOKBACK_MS);
  const oldest = (Math.max(0, startedAt - SLACK_FIND_SENT_MARGIN_MS) / 1000).toFixed(6);
  let cursor: string | undefined;
  let payloadHidden = false;
  for (let page = 0; page < (ctx.maxPages ?? SLACK_FIND_SENT_MAX_PAGES); page += 1) {
    let read: { messages: HistoryMessage[]; next: string | undefined };
    try {
      read = await readPage(ctx.client, d, oldest, cursor);
    } catch (error) {
      return { kind: "unknown", reason: `${describeFailure(readSlackError(error))}: cannot tell whether the Slack message was posted` };
    }
    for (const message of read.messages) {
      const match = matchOf(message, reference);
      if (match === "found" && typeof message.ts === "string") {
        const permalink = await permalinkOf(ctx.client, d.channel_id, message.ts);
        return { kind: "found", sentRef: { channel: d.channel_id, ts: message.ts, permalink } };
      }
      if (match === "hidden") payloadHidden = true;
    }
    if (read.next === undefined) {
      return payloadHidden
        ? { kind: "unknown", reason: "Slack showed messages of ours without their metadata: cannot tell whether this one was posted" }
        : { kind: "absent" };
    }
    cursor = read.next;
  }
  return { kind: "unknown", reason: "too many Slack messages since the send to read them all: cannot tell whether it was posted" };
}

/**
 * Whether `message` is the one: "found" when its metadata names the
 * reference, "hidden" when it carries our event type but Slack returned no
 * payload (then no read can rule it out), "other" otherwise.
 */
function matchOf(message: HistoryMessage, reference: SendReference): "found" | "hidden" | "other" {
  if (message.metadata?.event_type !== SLACK_METADATA_EVENT_TYPE) return "other";
  const payload = message.metadata.event_payload;
  if (payload === null || typeof payload !== "object") return "hidden";
  return (payload as { reference?: unknown }).reference === reference.reference ? "found" : "other";
}

async function readPage(
  client: WebClient,
  d: SlackDestination,
  oldest: string,
  cursor: string | undefined,
): Promise<{ messages: HistoryMessage[]; next: string | undefined }> {
  // A page that says there is more but gives no cursor is not a complete read.
  const common = {
    channel: d.channel_id,
    oldest,
    inclusive: true,
    include_all_metadata: true,
    limit: 200,
    ...(cursor === undefined ? {} : { cursor }),
  };
  const answer =
    d.thread_ts === null ? await client.conversations.history(common) : await client.conversations.replies({ ...common, ts: d.thread_ts });
  const next = answer.response_metadata?.next_cursor;
  const messages = (answer.messages ?? []) as HistoryMessage[];
  if (next === undefined || next === "") {
    if (answer.has_more === true) throw new Error("Slack said there were more messages but gave no cursor");
    return { messages, next: undefined };
  }
  return { messages, next };
}
