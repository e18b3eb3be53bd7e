/**
 * The Slack channel (contract v5): a message in a conversation, in a thread
 * when `thread_ts` is set, through @slack/web-api with its own retries off.
 */
export { AUDIENCE_UNREADABLE } from "./audience.js";
export { createSlackChannel, SLACK_FIND_SENT_SETTLE_MS, SLACK_PER_CONVERSATION_MS, type SlackChannelOptions } from "./channel.js";
export { SLACK_DEFAULT_API_URL, type SlackConfig, type SlackConfigResult, slackConfigFromEnv } from "./config.js";
export { describeSlackDestination, type SlackDestination, slackDestinationSchema } from "./destination.js";
export { SLACK_SCOPES } from "./identity.js";
export { everyoneMentions, type EveryoneMention } from "./mentions.js";
export { SLACK_DEFAULT_RETRY_AFTER_SECONDS } from "./send-outcome.js";
export { SLACK_METADATA_EVENT_TYPE, SLACK_TEXT_LIMIT } from "./send.js";
