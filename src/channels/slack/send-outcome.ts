/**
 * A failed chat.postMessage as the send path's outcome kinds, honestly: only
 * what Slack's documentation says was not posted is `refused` or `not_sent`;
 * an error Slack documents as "it's possible some aspect of the operation
 * succeeded" is `unknown`, and the daemon looks for the message before it
 * ever sends again.
 */
import type { ChannelSendOutcome } from "../channel.js";
import { describeFailure, type SlackFailure, TOKEN_REFUSED_CODES } from "./errors.js";

/**
 * Used when Slack rate-limits without a usable Retry-After (it documents one
 * on every 429): a minute, Slack's own rate-limit window, rather than a
 * guess that could loop.
 */
export const SLACK_DEFAULT_RETRY_AFTER_SECONDS = 60;

/** What the owner reads for a permanent refusal, by Slack's error code. */
const REFUSALS: Readonly<Record<string, string>> = {
  channel_not_found: "Slack has no such conversation, or the token cannot see it: check channel_id",
  not_in_channel: "the Slack user or app is not a member of that conversation: invite it, then submit again",
  is_archived: "the Slack conversation is archived: unarchive it or pick another",
  msg_too_long: "the text is too long for Slack (40,000 characters at most)",
  restricted_action: "a workspace setting forbids this Slack user or app to post there",
  restricted_action_read_only_channel: "the Slack channel is read-only for this user or app",
  restricted_action_thread_only_channel: "the Slack channel takes replies in threads only: set thread_ts",
  restricted_action_non_threadable_channel: "the Slack channel does not take thread replies: remove thread_ts",
  thread_not_found: "the Slack thread (thread_ts) was not found",
  cannot_reply_to_message: "Slack does not allow a reply to that thread's message",
  missing_scope: "the Slack token lacks the chat:write scope: add it and reinstall the app",
  not_allowed_token_type: "Slack does not take this kind of token for posting: use a user (xoxp-) or bot (xoxb-) token",
  no_permission: "the Slack token has no permission to post there",
  ekm_access_denied: "Slack administrators have suspended posting",
  team_access_not_granted: "the Slack token has no access to that conversation's workspace",
  no_text: "Slack received no text",
};

/**
 * Errors Slack answers after the request arrived whose documentation allows
 * that the message was posted anyway (internal_error, fatal_error: "it's
 * possible some aspect of the operation succeeded"), or says nothing either
 * way (service_unavailable).
 */
const MAYBE_POSTED = new Set(["internal_error", "fatal_error", "service_unavailable"]);

/** The send outcome for one failed chat.postMessage. */
export function sendOutcomeOf(failure: SlackFailure): ChannelSendOutcome {
  switch (failure.kind) {
    case "platform":
      return platformOutcome(failure.code, failure.retryAfterSeconds, failure.needed);
    case "rate_limited":
      return rateLimited(failure.retryAfterSeconds);
    case "http":
      // Slack's Web API answers 200 or 429; a 5xx came from its servers after the request
      // arrived (maybe posted); a 4xx is a wrong address or method and posted nothing.
      return failure.status >= 500
        ? { kind: "unknown", reason: `${describeFailure(failure)}: the message may be there; the daemon looks before sending again` }
        : { kind: "refused", reason: `${describeFailure(failure)}: check SLACK_API_URL` };
    case "unreached":
      return { kind: "not_sent", reason: `${describeFailure(failure)}: not sent, it will be tried again` };
    case "lost":
      return { kind: "unknown", reason: `${describeFailure(failure)}: the message may be there; the daemon looks before sending again` };
    case "other":
      return { kind: "unknown", reason: `${describeFailure(failure)}: the message may be there; the daemon looks before sending again` };
  }
}

function platformOutcome(code: string, retryAfterSeconds: number | null, needed: string | undefined): ChannelSendOutcome {
  if (code === "ratelimited" || code === "rate_limited") return rateLimited(retryAfterSeconds);
  if (MAYBE_POSTED.has(code)) {
    return { kind: "unknown", reason: `Slack answered ${code}: the message may be there; the daemon looks before sending again` };
  }
  // Documented as "the POST data was either missing or truncated": nothing was posted.
  if (code === "request_timeout") {
    return { kind: "not_sent", reason: "Slack received the request cut short (request_timeout): not sent, it will be tried again" };
  }
  if (TOKEN_REFUSED_CODES.has(code)) {
    return { kind: "refused", reason: `Slack refused the token (${code}): set a valid SLACK_TOKEN and restart` };
  }
  if (code === "missing_scope" && needed !== undefined) {
    return { kind: "refused", reason: `the Slack token lacks the ${needed} scope: add it and reinstall the app (missing_scope)` };
  }
  const words = REFUSALS[code];
  return { kind: "refused", reason: words === undefined ? `Slack refused the message (${code})` : `${words} (${code})` };
}

function rateLimited(seconds: number | null): ChannelSendOutcome {
  if (seconds === null) {
    const wait = SLACK_DEFAULT_RETRY_AFTER_SECONDS;
    return { kind: "retry_after", seconds: wait, reason: `Slack rate-limited the message without saying for how long: waiting ${wait} s` };
  }
  const wait = Math.max(1, seconds);
  return { kind: "retry_after", seconds: wait, reason: `Slack asked to wait ${wait} s before the next message` };
}
