/**
 * SLACK_TOKEN and SLACK_API_URL (contract v5, "Configuration"), read apart
 * from the daemon's own configuration so that the channel can be absent
 * without the daemon knowing its variables. The token never appears in an
 * error: only its shape is described.
 */

/** Slack's Web API root when SLACK_API_URL is not set. */
export const SLACK_DEFAULT_API_URL = "https://slack.com/api/";

/** A user token (`xoxp-…`: messages appear as the owner) or a bot token (`xoxb-…`: as the app). */
const TOKEN_SHAPE = /^xox([pb])-[A-Za-z0-9-]{10,}$/;
const LOOPBACK_HOSTS = new Set(["127.0.0.1", "localhost", "[::1]"]);

/** The Slack channel's configuration, parsed. */
export interface SlackConfig {
  readonly token: string;
  /** Who the messages appear from: the token's owner (`user`, xoxp) or the app (`bot`, xoxb). */
  readonly tokenKind: "user" | "bot";
  /** The Web API root, ending in "/". */
  readonly apiUrl: string;
}

/** What the environment says about Slack: nothing, a usable configuration, or what to fix. */
export type SlackConfigResult =
  | { readonly kind: "absent" }
  | { readonly kind: "ok"; readonly config: SlackConfig }
  | { readonly kind: "invalid"; readonly error: string };

/**
 * Reads the Slack variables. Absent when neither is set; invalid (naming the
 * variable and what to set) when the token is missing or not a Slack user or
 * bot token, or the URL is not https (plain http only to this machine, for a
 * test double: a token must not cross a network in clear).
 */
export function slackConfigFromEnv(env: Record<string, string | undefined>): SlackConfigResult {
  const token = blankToUndefined(env.SLACK_TOKEN);
  const url = blankToUndefined(env.SLACK_API_URL);
  if (token === undefined && url === undefined) return { kind: "absent" };
  if (token === undefined) {
    return {
      kind: "invalid",
      error: "SLACK_TOKEN is not set: set it to a Slack user token (xoxp-…) or bot token (xoxb-…), or unset SLACK_API_URL",
    };
  }
  if (token.startsWith("xoxe.")) {
    return {
      kind: "invalid",
      error:
        "SLACK_TOKEN is a rotating token (xoxe.…) that expires within 12 hours: turn token rotation off for the app and use its long-lived xoxp- or xoxb- token",
    };
  }
  const shape = TOKEN_SHAPE.exec(token);
  if (shape === null) {
    return {
      kind: "invalid",
      error: "SLACK_TOKEN is not a Slack user token (xoxp-…) or bot token (xoxb-…); copy it from the app's OAuth & Permissions page",
    };
  }
  const apiUrl = url === undefined ? SLACK_DEFAULT_API_URL : checkApiUrl(url);
  if (apiUrl === null) {
    return {
      kind: "invalid",
      error: `SLACK_API_URL must be an https URL such as ${SLACK_DEFAULT_API_URL} (http only for 127.0.0.1 or localhost); unset it to use Slack's`,
    };
  }
  return { kind: "ok", config: { token, tokenKind: shape[1] === "p" ? "user" : "bot", apiUrl } };
}

/** The URL with a trailing "/", or null when it is not one we may send a token to. */
function checkApiUrl(raw: string): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return null;
  }
  if (url.username !== "" || url.password !== "" || url.search !== "" || url.hash !== "") return null;
  const secure = url.protocol === "https:";
  const local = url.protocol === "http:" && LOOPBACK_HOSTS.has(url.hostname);
  if (!secure && !local) return null;
  return url.href.endsWith("/") ? url.href : `${url.href}/`;
}

function blankToUndefined(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed === undefined || trimmed === "" ? undefined : trimmed;
}
