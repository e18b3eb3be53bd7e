/**
 * A test double of Slack's Web API: a real HTTP server on 127.0.0.1 (port 0)
 * that answers @slack/web-api (form-encoded bodies) and any JSON client as
 * Slack does, for the methods the Slack channel calls: auth.test,
 * chat.postMessage, chat.getPermalink, conversations.info / .history /
 * .replies / .members, users.info.
 *
 *   const slack = await startSlackDouble();
 *   const token = slack.addToken({ userId: "U0OWNER001", userName: "phill" }, "xoxp-…");
 *   slack.addConversation({ id: "C0DESIGN01", name: "design", kind: "public", members: ["U0OWNER001"] });
 *   // SLACK_TOKEN=token SLACK_API_URL=slack.url
 *
 * Seeding: `state` is plain data (tokens, users, conversations, messages);
 * tests may change it at any moment (archive a channel, add members). The
 * helpers below do the common cases.
 *
 * Fault hooks (each applies to the next call(s) of one method, in order):
 * - `failNext(method, error, {status?, retryAfter?, times?, extra?})`: answer
 *   `{"ok":false,"error":error, ...extra}` without handling; "ratelimited"
 *   defaults to HTTP 429 with Retry-After (1 s unless said).
 * - `httpErrorNext(method, status, {retryAfter?, times?})`: a non-JSON answer
 *   with that HTTP status (a 503 from a load balancer), unhandled.
 * - `dropAfterHandling(method, times?)`: the lost answer: the call is handled
 *   (chat.postMessage stores the message) and the socket is destroyed.
 * - `resetBeforeHandling(method, times?)`: the socket is destroyed first.
 * - `holdNext(method)`: handled at once, answered when the test calls
 *   `release()`; `handled` resolves once the call was handled.
 * - `callCount(method)`: every call counted, faulted ones too;
 *   `received`: each request's method, content type and arguments.
 * - `state.perConversationMs = 1000`: Slack's posting limit, enforced with
 *   429s and Retry-After (counted in `state.rateLimited`): a token bucket of
 *   `state.perConversationBurst` messages (default 3) refilled one per
 *   interval, so a sender at the limit never gets a 429 and a faster one does.
 */
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { FaultPlan } from "./faults.js";
import { listen, type ReceivedCall } from "./server.js";
import {
  type Conversation,
  emptyState,
  type SlackDoubleState,
  type SlackUser,
  type StoredMessage,
  type TokenIdentity,
  nextTs,
} from "./state.js";

export type { Conversation, ReceivedCall, SlackDoubleState, SlackUser, StoredMessage, TokenIdentity };

/** A running Slack double. */
export interface SlackDouble {
  /** The Web API root, with its trailing slash: what SLACK_API_URL is set to. */
  readonly url: string;
  readonly state: SlackDoubleState;
  readonly received: ReceivedCall[];
  /** Accepts `token` as `identity` (and adds the identity as a user); returns the token. */
  addToken(identity: TokenIdentity, token: string): string;
  addUser(user: SlackUser): void;
  addConversation(conversation: Conversation): void;
  /** Stores a message as if posted earlier (a thread's first message); returns its ts. */
  seedMessage(channel: string, message: Omit<StoredMessage, "type" | "ts"> & { ts?: string }): string;
  /** The messages in a conversation, oldest first. */
  messages(channel: string): readonly StoredMessage[];
  failNext(
    method: string,
    error: string,
    options?: { status?: number; retryAfter?: number | null; times?: number; extra?: Record<string, unknown> },
  ): void;
  httpErrorNext(method: string, status: number, options?: { retryAfter?: number | null; times?: number }): void;
  dropAfterHandling(method: string, times?: number): void;
  resetBeforeHandling(method: string, times?: number): void;
  holdNext(method: string): { readonly handled: Promise<void>; release(): void };
  callCount(method: string): number;
  clearFaults(): void;
  close(): Promise<void>;
}

/** Starts a Slack double; `now` is its clock for message ts (default the wall clock). */
export async function startSlackDouble(options: { now?: () => number } = {}): Promise<SlackDouble> {
  const state = emptyState();
  const faults = new FaultPlan();
  const received: ReceivedCall[] = [];
  const now = options.now ?? (() => Date.now());
  const server: Server = await listen({ state, faults, received, now });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/api/`,
    state,
    received,
    addToken(identity, token) {
      state.tokens.set(token, identity);
      if (!state.users.has(identity.userId)) state.users.set(identity.userId, { id: identity.userId, name: identity.userName });
      return token;
    },
    addUser: (user) => void state.users.set(user.id, user),
    addConversation: (c) => void state.conversations.set(c.id, c),
    seedMessage(channel, message) {
      const stored: StoredMessage = { type: "message", ...message, ts: message.ts ?? nextTs(now()) };
      state.messages.set(
        channel,
        [...(state.messages.get(channel) ?? []), stored].sort((a, b) => Number(a.ts) - Number(b.ts)),
      );
      return stored.ts;
    },
    messages: (channel) => state.messages.get(channel) ?? [],
    failNext(method, error, o = {}) {
      const limited = error === "ratelimited" || error === "rate_limited";
      const retryAfter = o.retryAfter === undefined ? (limited ? 1 : null) : o.retryAfter;
      const status = o.status ?? (limited ? 429 : 200);
      faults.add(method, { kind: "error", error, status, retryAfter, extra: o.extra ?? {} }, o.times);
    },
    httpErrorNext: (method, status, o = {}) => faults.add(method, { kind: "http", status, retryAfter: o.retryAfter ?? null }, o.times),
    dropAfterHandling: (method, times) => faults.add(method, { kind: "drop" }, times),
    resetBeforeHandling: (method, times) => faults.add(method, { kind: "reset" }, times),
    holdNext(method) {
      let release!: () => void;
      let handled!: () => void;
      const released = new Promise<void>((r) => (release = r));
      const wasHandled = new Promise<void>((r) => (handled = r));
      faults.add(method, { kind: "hold", release: released, handled });
      return { handled: wasHandled, release };
    },
    callCount: (method) => state.calls.get(method) ?? 0,
    clearFaults: () => faults.clear(),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
