/**
 * The one @slack/web-api client the channel calls Slack through, with the
 * options that make a call happen at most once and come back to us whatever
 * Slack answers.
 */
import { LogLevel, type Logger as SlackLogger, WebClient } from "@slack/web-api";
import type { Logger } from "../../log/logger.js";
import type { SlackConfig } from "./config.js";

/** How long one call may take before its outcome counts as lost, when the options do not say. */
export const SLACK_DEFAULT_TIMEOUT_MS = 30_000;

/** Builds the client for `config`; `log` receives the library's own warnings (it never logs the token). */
export function createSlackClient(config: SlackConfig, timeoutMs: number, log?: Logger): WebClient {
  return new WebClient(config.token, {
    slackApiUrl: config.apiUrl,
    // No retries at all: the library's default (ten in about thirty minutes) would send a
    // chat.postMessage again after a timeout or a 5xx, when Slack may already have posted it:
    // a message twice. Whether and when to try again is the send path's decision alone.
    retryConfig: { retries: 0 },
    // A 429 comes back to us as an error with its Retry-After instead of the library
    // sleeping and resending on its own: our send path waits (and its limiter learns).
    rejectRateLimitedCalls: true,
    // A call with no answer must end, so that the send can be called unknown and looked for.
    timeout: timeoutMs,
    // Only Slack's API root may ever receive the token: never an absolute URL passed as a method.
    allowAbsoluteUrls: false,
    logger: quietLogger(log),
  });
}

/** The library's log lines, at most warnings, into our logger (or nowhere). */
function quietLogger(log: Logger | undefined): SlackLogger {
  let level = LogLevel.WARN;
  return {
    debug: () => {},
    info: () => {},
    warn: (...msg: unknown[]) => log?.warn({ slack: msg.map(String).join(" ") }, "Slack client warning"),
    error: (...msg: unknown[]) => log?.error({ slack: msg.map(String).join(" ") }, "Slack client error"),
    setLevel: (l: LogLevel) => {
      level = l;
    },
    getLevel: () => level,
    setName: () => {},
  };
}
