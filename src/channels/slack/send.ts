/**
 * One chat.postMessage carrying the draft's reference in its metadata, then
 * its permalink. Never throws: every failure is an outcome kind.
 */
import type { WebClient } from "@slack/web-api";
import type { ChannelSendOutcome, SendReference } from "../channel.js";
import type { SlackDestination } from "./destination.js";
import { readSlackError } from "./errors.js";
import { sendOutcomeOf } from "./send-outcome.js";

import { SLACK_TEXT_LIMIT } from "./destination.js";

/** Slack's limit, defined beside the destination, which loads no client. */
export { SLACK_TEXT_LIMIT };
/** The metadata event type every message the daemon sends carries; findSent looks for it. */
export const SLACK_METADATA_EVENT_TYPE = "draft_review_send";

/** A lone surrogate cannot be form-encoded (the library would throw before the request) nor shown. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Posts `text` to the destination once. What arrives is the text as given:
 * `parse: "none"` (chat.postMessage's documented default) and `link_names:
 * false` (no linking of names) are set explicitly, so the request itself
 * says that Slack must not turn plain "#name", "@name" or "@channel" into
 * links or mentions, whatever the app's or a later API version's default;
 * markup written in the text (`<!channel>`, `<@U…>`, `<url|label>`, `*bold*`)
 * is Slack's own and arrives as written, which is why the review post names
 * every mention that notifies everyone. Unfurls are off: no preview the post
 * did not show.
 */
export async function postSlackMessage(
  client: WebClient,
  destination: SlackDestination,
  text: string,
  reference: SendReference,
): Promise<ChannelSendOutcome> {
  if (text.length > SLACK_TEXT_LIMIT) {
    return { kind: "refused", reason: `the text is ${text.length} characters long; Slack allows ${SLACK_TEXT_LIMIT}` };
  }
  if (LONE_SURROGATE.test(text)) return { kind: "refused", reason: "the text holds a broken character (a lone UTF-16 surrogate)" };
  let ts: string;
  try {
    const answer = await client.chat.postMessage({
      channel: destination.channel_id,
      text,
      ...(destination.thread_ts === null ? {} : { thread_ts: destination.thread_ts }),
      metadata: {
        event_type: SLACK_METADATA_EVENT_TYPE,
        event_payload: { draft_id: reference.draftId, delivery: reference.delivery, reference: reference.reference },
      },
      parse: "none",
      link_names: false,
      unfurl_links: false,
      unfurl_media: false,
    });
    if (typeof answer.ts !== "string")
      return { kind: "unknown", reason: "Slack said ok but gave no message ts: the daemon looks for the message" };
    ts = answer.ts;
  } catch (error) {
    return sendOutcomeOf(readSlackError(error));
  }
  return { kind: "ok", sentRef: { channel: destination.channel_id, ts, permalink: await permalinkOf(client, destination.channel_id, ts) } };
}

/** The message's permalink, or null when Slack does not give one (the message is sent all the same). */
export async function permalinkOf(client: WebClient, channel: string, ts: string): Promise<string | null> {
  try {
    const answer = await client.chat.getPermalink({ channel, message_ts: ts });
    return typeof answer.permalink === "string" ? answer.permalink : null;
  } catch {
    return null;
  }
}
