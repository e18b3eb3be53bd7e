/**
 * Who will read a Slack message: the conversation, its privacy, DM or
 * sharing with other organizations, its member count, the thread it answers,
 * the mentions that notify everyone, and who it appears from. Read when the
 * draft is posted and again at the send; never throws.
 */
import type { WebClient } from "@slack/web-api";
import type { ChannelAudience } from "../channel.js";
import { type ConversationFacts, personName, readConversation, readThreadStart } from "./conversation.js";
import type { SlackDestination } from "./destination.js";
import { describeFailure, type SlackFailure } from "./errors.js";
import { fingerprintOf } from "./fingerprint.js";
import { isTokenRefused, type SlackSpeaker } from "./identity.js";
import { everyoneMentions, groupMentions, personMentions } from "./mentions.js";

/** The confirm reason when Slack could not tell who reads the conversation. */
export const AUDIENCE_UNREADABLE = "the audience could not be read";

/** People named in a line before "+N more". */
const NAMED_PEOPLE_MAX = 10;

/** The mentions of a text: everyone-mentions by kind, people by id, user groups by id and handle. */
interface Mentions {
  readonly everyone: string[];
  readonly people: string[];
  readonly groups: { id: string; label: string }[];
}

/** What the audience read needs besides the client. */
export interface SlackAudienceContext {
  readonly client: WebClient;
  /** The token's identity (auth.test), cached by the caller once read. */
  readonly speaker: () => Promise<{ ok: true; speaker: SlackSpeaker } | { ok: false; failure: SlackFailure }>;
  /** The injected clock, for `checkedAt`. */
  readonly now: () => number;
  /** AUDIENCE_CONFIRM_OVER: more members than this asks for one more tap; null: never. */
  readonly confirmOver: number | null;
}

/** Reads the audience of `text` at `d`. */
export async function readSlackAudience(ctx: SlackAudienceContext, d: SlackDestination, text: string): Promise<ChannelAudience> {
  const mentions: Mentions = { everyone: everyoneMentions(text), people: personMentions(text), groups: groupMentions(text) };
  const speaker = await ctx.speaker();
  if (!speaker.ok) return failedAudience(ctx, d, mentions, speaker.failure);
  const conversation = await readConversation(ctx.client, d);
  if (!conversation.ok) return failedAudience(ctx, d, mentions, conversation.failure);
  const facts = conversation.value;
  const blocked = facts.archived
    ? `Slack ${facts.label} is archived: unarchive it or pick another conversation`
    : facts.member
      ? null
      : `the Slack user or app is not a member of ${facts.label}: invite it, then submit again`;
  if (blocked !== null) return unreachedAudience(ctx, d, mentions, blocked);
  let quote: string | null = null;
  if (d.thread_ts !== null) {
    const start = await readThreadStart(ctx.client, d.channel_id, d.thread_ts);
    if (!start.ok) return failedAudience(ctx, d, mentions, start.failure);
    quote = start.value;
  }
  return {
    channel: "slack",
    readerCount: facts.members,
    lines: [...linesOf(facts, speaker.speaker, quote, mentions.everyone), ...(await notifiedLines(ctx.client, mentions))],
    confirmReasons: confirmReasonsOf(facts, ctx.confirmOver),
    problem: null,
    // The member count binds by the growth rule at the send (readerGrowth), not exactly: whether it is known binds here.
    fingerprint: fingerprintOf({
      facts: { ...facts, members: facts.members === null ? null : "counted" },
      thread_ts: d.thread_ts,
      mentions: mentionFacts(mentions),
      speaker: speaker.speaker.userId,
    }),
    checkedAt: new Date(ctx.now()).toISOString(),
  };
}

function linesOf(facts: ConversationFacts, speaker: SlackSpeaker, quote: string | null, mentions: readonly string[]): string[] {
  const count = facts.members === null ? "members unknown" : `${facts.members.toLocaleString("en-US")} members`;
  const where = facts.kind === "DM" ? "" : facts.kind === "group DM" ? `: ${count}` : `: ${facts.kind}, ${count}`;
  const lines = [`Slack ${facts.label}${where}`];
  if (facts.extShared) lines.push("shared with other organizations (Slack Connect)");
  else if (facts.shared) lines.push("shared with other workspaces");
  lines.push(`as ${speaker.speaksAs}`);
  if (quote !== null) lines.push(`in the thread of: "${quote === "" ? "(a message without text)" : quote}"`);
  const n = facts.members === null ? "?" : facts.members.toLocaleString("en-US");
  for (const m of mentions) lines.push(`${m} notifies everyone in ${facts.label} (${n})`);
  return lines;
}

/** The people and user groups the text mentions, by name (users.info; the id when it cannot be read). */
async function notifiedLines(client: WebClient, mentions: Mentions): Promise<string[]> {
  const lines: string[] = [];
  if (mentions.people.length > 0) {
    const shown = mentions.people.slice(0, NAMED_PEOPLE_MAX);
    const names = await Promise.all(shown.map((id) => personName(client, id)));
    const more = mentions.people.length - shown.length;
    lines.push(`notifies ${names.join(", ")}${more > 0 ? ` +${more} more` : ""} (mentioned)`);
  }
  if (mentions.groups.length > 0) lines.push(groupLine(mentions.groups));
  return lines;
}

function groupLine(groups: readonly { label: string }[]): string {
  return `notifies the user group${groups.length === 1 ? "" : "s"} ${groups.map((g) => g.label).join(", ")}`;
}

/** What of the mentions an approval binds to: kinds, people and group ids. */
function mentionFacts(m: Mentions): Record<string, string[]> {
  return { everyone: m.everyone, people: m.people, groups: m.groups.map((g) => g.id) };
}

function confirmReasonsOf(facts: ConversationFacts, confirmOver: number | null): string[] {
  if (facts.members === null) return [AUDIENCE_UNREADABLE];
  if (confirmOver !== null && facts.members > confirmOver) {
    return [`${facts.members.toLocaleString("en-US")} members in ${facts.label}, over ${confirmOver.toLocaleString("en-US")}`];
  }
  return [];
}

/** Slack error codes that mean the destination cannot be reached at all, in words. */
function problemOf(d: SlackDestination, failure: SlackFailure): string | null {
  if (isTokenRefused(failure)) return `${describeFailure(failure)}: set a valid SLACK_TOKEN and restart`;
  if (failure.kind !== "platform") return null;
  switch (failure.code) {
    case "channel_not_found":
      return `Slack has no conversation ${d.channel_id}, or the token cannot see it: check channel_id`;
    case "not_in_channel":
      return `the Slack user or app is not a member of ${d.channel_id}: invite it, then submit again`;
    case "thread_not_found":
      return `the Slack thread ${d.thread_ts ?? ""} was not found in ${d.channel_id}: check thread_ts`;
    default:
      return null;
  }
}

/**
 * The audience when it could not be read: a `problem` when Slack said the
 * destination cannot be reached, otherwise no count and a confirm reason
 * (fails closed: it may be as large as any).
 */
function failedAudience(ctx: SlackAudienceContext, d: SlackDestination, mentions: Mentions, failure: SlackFailure): ChannelAudience {
  const problem = problemOf(d, failure);
  if (problem !== null) return unreachedAudience(ctx, d, mentions, problem);
  const where = `Slack ${d.channel_id}${d.thread_ts === null ? "" : `, thread ${d.thread_ts}`}`;
  return {
    ...unreachedAudience(ctx, d, mentions, null),
    lines: [`${where}: ${AUDIENCE_UNREADABLE} (${describeFailure(failure)})`, ...mentionLines(d, mentions)],
  };
}

/** No count, a confirm reason, and `problem` (null: only unread, worth a retry). */
function unreachedAudience(ctx: SlackAudienceContext, d: SlackDestination, mentions: Mentions, problem: string | null): ChannelAudience {
  return {
    channel: "slack",
    readerCount: null,
    lines: [problem ?? `Slack ${d.channel_id}: ${AUDIENCE_UNREADABLE}`, ...mentionLines(d, mentions)],
    confirmReasons: [AUDIENCE_UNREADABLE],
    problem,
    fingerprint: fingerprintOf({
      id: d.channel_id,
      thread_ts: d.thread_ts,
      mentions: mentionFacts(mentions),
      unread: problem ?? AUDIENCE_UNREADABLE,
    }),
    checkedAt: new Date(ctx.now()).toISOString(),
  };
}

function mentionLines(d: SlackDestination, mentions: Mentions): string[] {
  const lines = mentions.everyone.map((m) => `${m} notifies everyone in ${d.channel_id}`);
  if (mentions.people.length > 0) lines.push(`notifies ${mentions.people.join(", ")} (mentioned)`);
  if (mentions.groups.length > 0) lines.push(groupLine(mentions.groups));
  return lines;
}
