/**
 * The Linear channel (contract v5): an approved draft becomes a comment on a
 * Linear issue, written as the owner of LINEAR_API_KEY.
 */
export { AUDIENCE_UNREADABLE } from "./audience.js";
export { createLinearChannel, type LinearChannelOptions } from "./channel.js";
export { LINEAR_DEFAULT_TIMEOUT_MS } from "./client.js";
export { LINEAR_DEFAULT_API_URL, type LinearConfig, type LinearConfigRead, linearConfigFromEnv } from "./config.js";
export { describeLinearDestination, type LinearDestination, linearDestinationSchema } from "./destination.js";
export { LINEAR_MAX_COMMENT_LENGTH } from "./send.js";
