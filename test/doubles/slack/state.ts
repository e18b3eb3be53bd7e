/**
 * The Slack double's world: workspaces' tokens, people, conversations and
 * the messages posted to them. Tests seed it directly (it is plain data) and
 * read what arrived from it.
 */

/** A token the double accepts, and who it speaks as. */
export interface TokenIdentity {
  readonly userId: string;
  readonly userName: string;
  /** Set for a bot token (xoxb-…): its messages carry this bot_id. */
  readonly botId?: string;
  /** The token's scopes: sent as X-OAuth-Scopes on every answer to it, as Slack does; absent: no header. */
  readonly scopes?: readonly string[];
}

/** A person of the workspace. */
export interface SlackUser {
  readonly id: string;
  readonly name: string;
  readonly real_name?: string;
  readonly display_name?: string;
}

/** A conversation as the test sets it up. */
export interface Conversation {
  readonly id: string;
  /** Slack's name: "design" for #design, "mpdm-anna--bob-1" for a group DM; absent for a DM. */
  name?: string;
  kind: "public" | "private" | "im" | "mpim";
  /** User ids of its members (a DM: the two people). */
  members: string[];
  archived?: boolean;
  /** Slack Connect (other organizations). */
  extShared?: boolean;
  /** Shared with other workspaces. */
  shared?: boolean;
  /** Leave num_members out of conversations.info (as Slack does for some kinds). */
  hideMemberCount?: boolean;
}

/** A message as stored (and as conversations.history answers it, metadata aside). */
export interface StoredMessage {
  readonly type: "message";
  readonly ts: string;
  readonly text: string;
  readonly user: string;
  readonly bot_id?: string;
  readonly thread_ts?: string;
  readonly metadata?: { event_type: string; event_payload: Record<string, unknown> };
  /** Every argument of the chat.postMessage that made it, as the double parsed it (tests check flags). */
  readonly postedWith?: Readonly<Record<string, unknown>>;
}

/** Everything the double knows; mutable by the test at any moment. */
export interface SlackDoubleState {
  teamId: string;
  teamName: string;
  /** Slack's team domain, for permalinks ("acme" → https://acme.slack.com/…). */
  teamDomain: string;
  readonly tokens: Map<string, TokenIdentity>;
  /** Tokens Slack revoked: answered token_revoked. */
  readonly revokedTokens: Set<string>;
  readonly users: Map<string, SlackUser>;
  readonly conversations: Map<string, Conversation>;
  /** Messages per conversation id, oldest first (thread replies included, with thread_ts). */
  readonly messages: Map<string, StoredMessage[]>;
  /** Calls per method name, every call counted (faulted ones too). */
  readonly calls: Map<string, number>;
  /** HTTP 429 answers given, per method. */
  readonly rateLimited: Map<string, number>;
  /** Per-conversation posting limit enforced with 429s, in ms between messages; null: none. */
  perConversationMs: number | null;
  /** How many messages may come at once before the limit bites (Slack allows short bursts); default 3. */
  perConversationBurst: number;
}

/** A fresh world: the workspace "Acme", no tokens, people or conversations. */
export function emptyState(): SlackDoubleState {
  return {
    teamId: "T0ACME0001",
    teamName: "Acme",
    teamDomain: "acme",
    tokens: new Map(),
    revokedTokens: new Set(),
    users: new Map(),
    conversations: new Map(),
    messages: new Map(),
    calls: new Map(),
    rateLimited: new Map(),
    perConversationMs: null,
    perConversationBurst: 3,
  };
}

let lastTs = 0;

/**
 * A new message ts from the wall clock, in microseconds, strictly after the
 * last one given (two posts in one microsecond still differ).
 */
export function nextTs(nowMs: number): string {
  const micros = Math.max(Math.round(nowMs * 1000), lastTs + 1);
  lastTs = micros;
  return `${Math.floor(micros / 1_000_000)}.${String(micros % 1_000_000).padStart(6, "0")}`;
}
