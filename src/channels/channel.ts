/**
 * The one shape every outbound channel implements (Telegram, Linear, email,
 * Slack), as nodemailer's transports share one small interface: the send path,
 * the desk and the machine never ask which channel they run on. A new channel
 * is a folder beside this file (src/channels/<name>/) and one line where the
 * channels are listed.
 *
 * Everything here is data in, data out: a channel turns its service's answers
 * into these values, and the send path's policy (retry, wait, halt, mark
 * outcome unknown) lives in one place above it.
 */
import type { z } from "zod";

export { CHANNEL_NAMES, type ChannelName } from "../drafts/destination.js";
import type { ChannelName } from "../drafts/destination.js";

/**
 * Where a sent message can be found again, as the record and the events carry
 * it (`sent_ref`): Telegram `{chat_id, message_id}`, Linear `{comment_id, url}`,
 * email `{message_id}` (with its angle brackets), Slack `{channel, ts, permalink}`.
 */
export type SentRef = Readonly<Record<string, string | number | null>>;

/**
 * What a send will carry that lets it be found again after a lost answer or a
 * crash, chosen and made durable BEFORE the call: Linear's comment id (a
 * UUID), the email's Message-ID, Slack's metadata naming the draft.
 */
export interface SendReference {
  /** The draft this send delivers. */
  readonly draftId: string;
  /** The delivery's index (1 for a single destination). */
  readonly delivery: number;
  /** The channel's own id chosen before the call (a UUID, a Message-ID, a nonce in Slack's metadata). */
  readonly reference: string;
}

/**
 * The confirm reason of an audience that could not be read, the same words on
 * every channel: the send path reads it as "no evidence" and does not send.
 */
export const AUDIENCE_UNREADABLE = "the audience could not be read";

/** What one send call came to, on any channel; the send path's retry policy reads only this. */
export type ChannelSendOutcome =
  /** The service accepted the message. */
  | { readonly kind: "ok"; readonly sentRef: SentRef }
  /** Refused for good (not found, forbidden, archived, a 5xx SMTP reply for a recipient): it was not sent. */
  | { readonly kind: "refused"; readonly reason: string }
  /** Rate limited: not sent; the service asks us to wait this many seconds. */
  | { readonly kind: "retry_after"; readonly seconds: number; readonly reason: string }
  /** The request cannot have reached the service (connection refused, DNS, a 4xx SMTP reply before the data): not sent. */
  | { readonly kind: "not_sent"; readonly reason: string }
  /** The request may have reached the service (timeout, reset after the data was sent): nobody knows yet. */
  | { readonly kind: "unknown"; readonly reason: string };

/** What a look for a send whose answer was lost found. */
export type LostSendLookup =
  /** The message is there: the send happened. */
  | { readonly kind: "found"; readonly sentRef: SentRef }
  /** The service says it is not there (Linear: no comment with that id): safe to send again. */
  | { readonly kind: "absent" }
  /** The service cannot tell (email has no way to ask): never send again by itself. */
  | { readonly kind: "unknown"; readonly reason: string };

/**
 * Who will read a message on a channel, and what the review post shows of it:
 * read when the draft is posted, bound to the approval, read again at the send
 * call. `fingerprint` is what the send compares: a change refuses the send.
 */
export interface ChannelAudience {
  readonly channel: ChannelName;
  /** How many people can read it (a team's members, a conversation's members, the recipients); null: unknown. */
  readonly readerCount: number | null;
  /** The lines the review post shows: where, as whom, to whom (plain text; the post quotes them as data). */
  readonly lines: readonly string[];
  /** Why a 👍 needs one more tap (over a threshold, an external address, unknown audience); empty: none. */
  readonly confirmReasons: readonly string[];
  /** Why the destination cannot be reached (not found, no access), in words; null when it can. */
  readonly problem: string | null;
  /** Everything the approval binds to, canonical, so that any change shows. */
  readonly fingerprint: string;
  /** When it was read (ISO-8601 UTC). */
  readonly checkedAt: string;
}

/** Who the daemon speaks as on a channel, proven at start and by `draft-review setup`. */
export type ChannelIdentity =
  | { readonly ok: true; readonly speaksAs: string }
  /** `credentialsRefused`: the service refused the key (the channel is halted); otherwise it could not be reached. */
  | { readonly ok: false; readonly credentialsRefused: boolean; readonly reason: string };

/**
 * One outbound channel. `Destination` is the parsed `destination` object of
 * the payload for this channel (contract v5).
 */
export interface Channel<Destination> {
  readonly name: ChannelName;
  /** The longest text the channel takes, in characters (the refusal names it). */
  readonly maxLength: number;
  /** The `destination` object's schema for this channel (strict: unknown fields are refused). */
  readonly destinationSchema: z.ZodType<Destination>;
  /** Proves the credentials: who the daemon speaks as there. */
  whoAmI(): Promise<ChannelIdentity>;
  /** Reads who will read `text` at `destination` (mentions in the text count). */
  readAudience(destination: Destination, text: string): Promise<ChannelAudience>;
  /** Sends `text` once; never retried by the client library itself. */
  send(destination: Destination, text: string, reference: SendReference): Promise<ChannelSendOutcome>;
  /** After a lost answer or a crash: is the message that carries `reference` there? */
  findSent(destination: Destination, reference: SendReference): Promise<LostSendLookup>;
  /** The key of the rate limit a send to `destination` counts against (a conversation, the mailbox, the API key). */
  rateKey(destination: Destination): string;
}
