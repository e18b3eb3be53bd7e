import { createHash } from "node:crypto";
import { z } from "zod";
import { replyBinding, type Replying } from "./reply-target.js";

/** What kind of chat a draft goes to, as Telegram says (`unknown`: not resolved, e.g. test mode). */
export const AUDIENCE_KINDS = ["private", "group", "supergroup", "channel", "unknown"] as const;

/**
 * Who will read a draft: the destination as Telegram described it when it was
 * last resolved (getChat, getChatMemberCount, getChatMember for the bot).
 * Stored with the draft so the send call can tell what changed since.
 */
export const audienceSchema = z.object({
  /** The numeric id Telegram gave (the destination may have been an @username). */
  chat_id: z.string(),
  kind: z.enum(AUDIENCE_KINDS),
  /** A group's or channel's title, or a person's name. */
  title: z.string().nullable(),
  /** The public @username (without @); a group or channel with one is public. */
  username: z.string().nullable(),
  member_count: z.number().int().nonnegative().nullable(),
  /** False when the bot may not post there; null when unknown. */
  can_post: z.boolean().nullable(),
  /** Why the bot cannot see or post to the destination, in words for the reviewer; null when it can. */
  problem: z.string().nullable(),
  checked_at: z.string(),
});
/** Who will read a draft. */
export type Audience = z.infer<typeof audienceSchema>;

/** A group or channel with a public @username (anyone can read it). */
export function isPublic(a: Audience): boolean {
  return a.username !== null && a.kind !== "private";
}

/**
 * True when Telegram could not tell who will read the draft: the chat could
 * not be resolved (kind `unknown` with the `problem` saying why), or a group
 * or channel came without its member count. Test mode's audience (`unknown`
 * with no problem) was never asked for, so it is not missing evidence.
 */
export function audienceUnknown(a: Audience): boolean {
  if (a.kind === "private") return false;
  if (a.kind === "unknown") return a.problem !== null;
  return a.member_count === null;
}

/**
 * True when a 👍 on a draft to this audience needs one more tap: a group or
 * channel with more than `confirmOver` members (AUDIENCE_CONFIRM_OVER), or an
 * audience Telegram did not tell (fails closed: it may be as large).
 */
export function needsConfirmation(a: Audience | null, confirmOver: number | null): boolean {
  if (a === null || confirmOver === null || a.kind === "private") return false;
  if (audienceUnknown(a)) return true;
  return a.member_count !== null && a.member_count > confirmOver;
}

/** A chat id Telegram gave (numeric), not an @username that an unresolved audience keeps. */
const NUMERIC_ID = /^-?\d+$/;

/** A confirmed audience may grow to this many times the member count its approving message showed. */
export const GROWTH_COVERED = 2;
/** Growth by fewer members than this never voids an approval (a small group that gained a few). */
export const GROWTH_FLOOR = 100;

/**
 * How the member count grew past what an approval covers, in words for the
 * reviewer; null when it did not. The approval was made on a message that
 * showed `approved` (with the extra tap exactly when that audience needed
 * one), so it does not cover `now` when `now` needs the tap and `approved`
 * did not (5 members → 5,000 over AUDIENCE_CONFIRM_OVER), nor a count more
 * than GROWTH_COVERED times the one shown (and by at least GROWTH_FLOOR). An
 * audience approved without a count (confirmed while unknown) is not held to it.
 */
export function memberGrowth(approved: Audience | null, now: Audience, confirmOver: number | null): string | null {
  const before = approved?.member_count ?? null;
  const after = now.member_count;
  if (approved === null || before === null || after === null || after <= before) return null;
  const crossed = needsConfirmation(now, confirmOver) && !needsConfirmation(approved, confirmOver);
  if (!crossed && !grewBeyond(before, after)) return null;
  const what = now.kind === "channel" ? "channel" : "group";
  return `the ${what} grew from ${before.toLocaleString("en-US")} to ${after.toLocaleString("en-US")} members`;
}

/** True when `after` readers are more than an approval for `before` covers by itself (GROWTH_COVERED times, and GROWTH_FLOOR more). */
export function grewBeyond(before: number, after: number): boolean {
  return after > before * GROWTH_COVERED && after - before >= GROWTH_FLOOR;
}

/**
 * How the reader count of a Linear team or a Slack conversation grew past what an approval covers, in
 * words, or null: the same rule as Telegram's (memberGrowth): past AUDIENCE_CONFIRM_OVER when the
 * approval was for fewer, or beyond GROWTH_COVERED times and GROWTH_FLOOR more. A few new members of a
 * busy channel do not void the owner's 👍.
 */
export function readerGrowth(before: number | null, after: number | null, confirmOver: number | null): string | null {
  if (before === null || after === null || after <= before) return null;
  const crossed = confirmOver !== null && after > confirmOver && before <= confirmOver;
  if (!crossed && !grewBeyond(before, after)) return null;
  return `it grew from ${before.toLocaleString("en-US")} to ${after.toLocaleString("en-US")} readers`;
}

/**
 * True when the send call could not read a member count that the approving
 * message showed: the evidence the approval binds to is missing (fails closed).
 */
export function memberCountLost(approved: Audience | null, now: Audience): boolean {
  const counted = now.kind === "group" || now.kind === "supergroup" || now.kind === "channel";
  return counted && now.member_count === null && approved?.member_count != null;
}

/**
 * What changed between the audience a reviewer approved and the one found at
 * the send call, in words for the reviewer; null when nothing that matters did.
 * Became public, another chat (a migration, or an @username that moved), the
 * bot lost the right to post, or the group grew past what the approval covers
 * (memberGrowth, with AUDIENCE_CONFIRM_OVER as `confirmOver`). An audience approved while
 * unknown is held to the same checks: a public chat was not what the reviewer saw.
 */
export function audienceChange(approved: Audience | null, now: Audience, confirmOver: number | null = null): string | null {
  if (approved !== null && NUMERIC_ID.test(approved.chat_id) && now.kind !== "unknown" && approved.chat_id !== now.chat_id) {
    return `the destination is now another chat (id ${approved.chat_id} → ${now.chat_id})`;
  }
  if (now.can_post === false || (now.problem !== null && approved?.problem == null)) {
    return `the bot can no longer post there: ${now.problem ?? "no permission to send messages"}`;
  }
  if (approved !== null && approved.kind === "unknown" && isPublic(now)) {
    return `the chat is public (@${now.username})`;
  }
  if (approved !== null && !isPublic(approved) && isPublic(now)) {
    return `the chat became public (@${now.username})`;
  }
  return memberGrowth(approved, now, confirmOver);
}

/** What a destination is, as a review message shows it: the draft's destination and its resolved audience. */
interface Destined {
  readonly destination_chat_id: string;
  readonly destination_thread_id: number | null;
  readonly audience: Audience | null;
  /** On Linear, email or Slack: what the post showed of who reads it (its fingerprint binds). */
  readonly channel_audience?: { readonly fingerprint: string } | null;
  /** The destinations the owner picks among (src/drafts/choices.ts): the post shows them all. */
  readonly choices?: readonly ShownChoice[] | null;
  /** `choose: "any"`: the destinations the post shows on; a toggle changes what it shows. */
  readonly chosen_set?: readonly number[] | null;
}

/** What the post shows of one choice (see choices.ts). */
interface ShownChoice {
  readonly index: number;
  readonly destination_chat_id: string;
  readonly destination_thread_id: number | null;
  readonly audience: Audience | null;
  readonly channel_audience: { readonly fingerprint: string } | null;
}

/**
 * A fingerprint of every choice as the post shows them (where, and who reads
 * each): a decision made on a post that showed other choices is outdated.
 * The same whichever choice the draft currently goes to.
 */
export function choicesFingerprint(choices: readonly ShownChoice[], on: readonly number[] | null = null): string {
  const each = choices.map((c) => [
    c.index,
    c.destination_chat_id,
    c.destination_thread_id,
    c.audience,
    c.channel_audience?.fingerprint ?? null,
  ]);
  // Only with toggles, so a choose-one draft keeps the fingerprint it always had.
  const shown = on === null ? each : [...each, ["on", ...on]];
  return createHash("sha256").update(JSON.stringify(shown)).digest("hex").slice(0, 16);
}

/**
 * A short fingerprint of who a draft goes to, as its review message shows it
 * (destination, kind, title, public or not, member count, whether the bot
 * can post there). A decision surface records it; a decision made on a
 * surface whose fingerprint is no longer the draft's is outdated.
 */
export function audienceFingerprint(d: Destined): string {
  if (d.choices) return choicesFingerprint(d.choices, d.chosen_set ?? null);
  const a = d.audience;
  const shown = [
    d.destination_chat_id,
    d.destination_thread_id,
    a?.chat_id ?? null,
    a?.kind ?? null,
    a?.title ?? null,
    a?.username ?? null,
    a === null ? null : isPublic(a),
    a?.member_count ?? null,
    a?.can_post ?? null,
    a?.problem ?? null,
    // Only when set, so Telegram drafts keep the fingerprint they always had.
    ...(d.channel_audience ? [d.channel_audience.fingerprint] : []),
  ];
  return createHash("sha256").update(JSON.stringify(shown)).digest("hex").slice(0, 16);
}

/**
 * Who sends a draft and what it answers, as a decision surface records it and
 * an approval binds to it: `bot`, or `owner:<user>:<business connection>:<chat>`
 * (the owner's own account, that user's, through that connection, in his
 * private chat with that person); then `>4711` when the send replies to
 * message 4711 (replyTarget: what the post shows is what the send does).
 * Records from before send_as existed go out as the bot.
 */
export function sendIdentity(
  draft: Replying & {
    readonly destination_chat_id: string;
    readonly destination?: object | null;
    readonly channel_audience?: { readonly fingerprint: string } | null;
  },
): string {
  // Linear, email, Slack: the destination as given and the audience its post showed (contract v5).
  if (draft.destination) {
    const where = createHash("sha256").update(JSON.stringify(draft.destination)).digest("hex").slice(0, 16);
    return `channel:${where}:${draft.channel_audience?.fingerprint ?? "unread"}`;
  }
  const s = draft.sender;
  const who = s?.kind === "owner" ? `owner:${s.owner_user_id}:${s.connection_id}:${draft.destination_chat_id}` : "bot";
  return who + replyBinding(draft);
}
