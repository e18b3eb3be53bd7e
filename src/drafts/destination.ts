import { z } from "zod";

/**
 * Where a draft goes when it is not Telegram (contract v5), as the record
 * keeps it. The draft layer only needs to know that a draft has such a
 * destination and what its post showed of the audience; each channel's own
 * strict schema (src/channels/<name>) checks the object when the draft is
 * made and again whenever it is used.
 */

/** The channels a destination may name (contract v5, `destination.channel`). */
export const CHANNEL_NAMES = ["telegram", "linear", "email", "slack"] as const;
/** A channel's name as the payload spells it. */
export type ChannelName = (typeof CHANNEL_NAMES)[number];
/** The channels that are not Telegram: their drafts carry `destination`. */
export type OtherChannelName = Exclude<ChannelName, "telegram">;

/** A non-Telegram destination as stored: its channel, and the channel's own fields (checked by the channel). */
export const storedDestinationSchema = z.looseObject({ channel: z.enum(["linear", "email", "slack"]) });
/** A non-Telegram destination as stored. */
export type StoredDestination = z.infer<typeof storedDestinationSchema>;

/**
 * Who will read a message on a non-Telegram channel, as the review post
 * showed it (read when the draft is posted, again at the send call). The
 * approval binds to `fingerprint` through the draft's audience fingerprint.
 */
export const channelAudienceSchema = z.object({
  channel: z.enum(["linear", "email", "slack"]),
  /** How many people can read it; null: not known. */
  reader_count: z.number().int().nonnegative().nullable(),
  /** The lines the post shows: where, as whom, to whom. */
  lines: z.array(z.string()),
  /** Why a 👍 needs the extra tap; empty: it does not. */
  confirm_reasons: z.array(z.string()),
  /** Why the destination cannot be reached, in words; null when it can. */
  problem: z.string().nullable(),
  /** Everything the approval binds to, canonical. */
  fingerprint: z.string(),
  checked_at: z.string(),
});
/** Who will read a message on a non-Telegram channel, as its post showed it. */
export type ChannelAudienceRecord = z.infer<typeof channelAudienceSchema>;

/**
 * Where a sent message can be found again (`sent_ref`, contract v5): Telegram
 * `{chat_id, message_id}`, Linear `{comment_id, url}`, email `{message_id}`,
 * Slack `{channel, ts, permalink}`.
 */
export const sentRefSchema = z.record(z.string(), z.union([z.string(), z.number(), z.null()]));
/** Where a sent message can be found again. */
export type SentRefRecord = z.infer<typeof sentRefSchema>;

/** True when a draft goes to a channel other than Telegram. */
export function onOtherChannel(d: { readonly destination: StoredDestination | null }): boolean {
  return d.destination !== null;
}

/** The channel a draft goes to. */
export function channelOf(d: { readonly destination: StoredDestination | null }): ChannelName {
  return d.destination?.channel ?? "telegram";
}
