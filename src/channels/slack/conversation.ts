/**
 * The facts about a conversation the review post shows and the approval
 * binds to, read from conversations.info (and users.info for a DM's other
 * person, conversations.members when Slack gives no count, and
 * conversations.replies for a thread's first message).
 */
import type { WebClient } from "@slack/web-api";
import type { SlackDestination } from "./destination.js";
import { readSlackError, type SlackFailure } from "./errors.js";

/** What kind of conversation it is. */
export type ConversationKind = "public channel" | "private channel" | "DM" | "group DM";

/** One conversation, as read. */
export interface ConversationFacts {
  readonly id: string;
  /** Slack's name ("design", "mpdm-anna--bob-1"), or the DM's person; null when Slack gave none. */
  readonly name: string | null;
  /** How the post names it: "#design", "DM with Anna Smith", "group DM with anna, bob". */
  readonly label: string;
  readonly kind: ConversationKind;
  /** Slack Connect: people of other organizations read it. */
  readonly extShared: boolean;
  /** Shared with other workspaces of the same organization (Enterprise Grid). */
  readonly shared: boolean;
  readonly archived: boolean;
  /** false when the token's user or bot is known not to be a member (a post would be refused). */
  readonly member: boolean;
  /** How many can read it; null when Slack did not say. */
  readonly members: number | null;
  /** A DM's other person (user id), else null. */
  readonly dmUser: string | null;
}

type Read<T> = { ok: true; value: T } | { ok: false; failure: SlackFailure };

interface SlackChannelObject {
  id?: string;
  name?: string;
  user?: string;
  is_im?: boolean;
  is_mpim?: boolean;
  is_private?: boolean;
  is_archived?: boolean;
  is_member?: boolean;
  is_ext_shared?: boolean;
  is_pending_ext_shared?: boolean;
  is_shared?: boolean;
  num_members?: number;
}

/** Reads the conversation's facts. */
export async function readConversation(client: WebClient, d: SlackDestination): Promise<Read<ConversationFacts>> {
  let channel: SlackChannelObject;
  try {
    const answer = await client.conversations.info({ channel: d.channel_id, include_num_members: true });
    channel = (answer.channel ?? {}) as SlackChannelObject;
  } catch (error) {
    return { ok: false, failure: readSlackError(error) };
  }
  const kind: ConversationKind = channel.is_im
    ? "DM"
    : channel.is_mpim
      ? "group DM"
      : channel.is_private
        ? "private channel"
        : "public channel";
  const dmUser = channel.is_im ? (channel.user ?? null) : null;
  const name = dmUser === null ? (channel.name ?? null) : await personName(client, dmUser);
  const members = kind === "DM" ? 2 : (channel.num_members ?? (await countMembers(client, d.channel_id)));
  return {
    ok: true,
    value: {
      id: d.channel_id,
      name,
      label: labelOf(kind, name, d.channel_id),
      kind,
      extShared: channel.is_ext_shared === true || channel.is_pending_ext_shared === true,
      shared: channel.is_shared === true,
      archived: channel.is_archived === true,
      member: channel.is_member !== false,
      members,
      dmUser,
    },
  };
}

function labelOf(kind: ConversationKind, name: string | null, id: string): string {
  if (kind === "DM") return `DM with ${name ?? "an unknown person"}`;
  if (kind === "group DM") {
    // Slack names a group DM "mpdm-anna--bob--carol-1".
    const people = name?.match(/^mpdm-(.+)-\d+$/)?.[1]?.split("--");
    return people === undefined ? `group DM ${name ?? id}` : `group DM with ${people.join(", ")}`;
  }
  return name === null ? id : `#${name}`;
}

/** A DM's other person as people know them: real name, else display name, else handle, else the id. */
export async function personName(client: WebClient, user: string): Promise<string> {
  try {
    const answer = await client.users.info({ user });
    const u = answer.user;
    return [u?.real_name, u?.profile?.display_name, u?.name].find((n) => typeof n === "string" && n.trim() !== "") ?? user;
  } catch {
    return user;
  }
}

/** The member count from conversations.members when conversations.info gave none: one page, else unknown. */
async function countMembers(client: WebClient, channel: string): Promise<number | null> {
  try {
    const answer = await client.conversations.members({ channel, limit: 1000 });
    const more = answer.response_metadata?.next_cursor;
    return more !== undefined && more !== "" ? null : (answer.members?.length ?? null);
  } catch {
    return null;
  }
}

/** The thread's first message, on one line and at most `max` characters ("" when it has no text). */
export async function readThreadStart(client: WebClient, channel: string, ts: string, max = 200): Promise<Read<string>> {
  try {
    const answer = await client.conversations.replies({ channel, ts, limit: 1 });
    const first = answer.messages?.[0];
    if (first === undefined || first.ts !== ts)
      return { ok: false, failure: { kind: "platform", code: "thread_not_found", retryAfterSeconds: null } };
    const chars = Array.from((first.text ?? "").replace(/\s+/g, " ").trim());
    return { ok: true, value: chars.length > max ? `${chars.slice(0, max - 1).join("")}…` : chars.join("") };
  } catch (error) {
    return { ok: false, failure: readSlackError(error) };
  }
}
