/**
 * Who the daemon speaks as on Slack, from auth.test: the token's user and
 * workspace, and whether messages appear as the owner (user token) or as the
 * app (bot token). Proven at start, and named on every review post.
 */
import type { WebClient } from "@slack/web-api";
import type { ChannelIdentity } from "../channel.js";
import type { SlackConfig } from "./config.js";
import { describeFailure, readSlackError, type SlackFailure, TOKEN_REFUSED_CODES } from "./errors.js";

/**
 * The scopes the channel uses: chat:write to post; the *:read scopes and
 * users:read for the audience; the *:history scopes to look for a send whose
 * answer was lost. Without chat:write nothing can be sent (whoAmI refuses);
 * without the others the audience is unread (a confirm tap) or a lost send
 * stays unknown.
 */
export const SLACK_SCOPES = [
  "chat:write",
  "channels:read",
  "groups:read",
  "im:read",
  "mpim:read",
  "users:read",
  "channels:history",
  "groups:history",
  "im:history",
  "mpim:history",
] as const;

/** The token's identity as auth.test gives it. */
export interface SlackSpeaker {
  /** "phill in Acme (as you)" / "draftbot in Acme (as the app)". */
  readonly speaksAs: string;
  /** The token's user id (a bot token's bot user); part of what an approval binds to. */
  readonly userId: string;
  /** The token's scopes, when Slack said them (the X-OAuth-Scopes header). */
  readonly scopes?: readonly string[];
}

/** auth.test, as a speaker or the failure. */
export async function readSpeaker(
  client: WebClient,
  config: SlackConfig,
): Promise<{ ok: true; speaker: SlackSpeaker } | { ok: false; failure: SlackFailure }> {
  try {
    const answer = await client.auth.test();
    const user = answer.user ?? answer.user_id ?? "an unnamed user";
    const team = answer.team ?? answer.team_id ?? "an unnamed workspace";
    const how = config.tokenKind === "user" ? "as you" : "as the app";
    const scopes = answer.response_metadata?.scopes;
    return {
      ok: true,
      speaker: { speaksAs: `${user} in ${team} (${how})`, userId: answer.user_id ?? "", ...(scopes === undefined ? {} : { scopes }) },
    };
  } catch (error) {
    return { ok: false, failure: readSlackError(error) };
  }
}

/** Whether a failure means Slack refused the token itself (the channel is halted until it is replaced). */
export function isTokenRefused(failure: SlackFailure): boolean {
  return failure.kind === "platform" && TOKEN_REFUSED_CODES.has(failure.code);
}

/** `whoAmI` for the channel: the speaker, or why not (credentials refused, or Slack unreachable). */
export async function slackWhoAmI(client: WebClient, config: SlackConfig): Promise<ChannelIdentity> {
  const read = await readSpeaker(client, config);
  if (read.ok && read.speaker.scopes !== undefined && !read.speaker.scopes.includes("chat:write")) {
    // Slack said which scopes the token has, and posting is not one of them: nothing could ever be sent.
    return {
      ok: false,
      credentialsRefused: true,
      reason: "the Slack token lacks the chat:write scope: add it to the app and reinstall, then restart",
    };
  }
  if (read.ok) return { ok: true, speaksAs: read.speaker.speaksAs };
  const refused = isTokenRefused(read.failure);
  const what = refused ? ": set a valid SLACK_TOKEN and restart" : "";
  return { ok: false, credentialsRefused: refused, reason: `${describeFailure(read.failure)}${what}` };
}
