import { z } from "zod";

/** What the payload may ask for: the bot, the owner's own account (Telegram Business), or the owner where Telegram allows it. */
export const SEND_AS = ["bot", "owner", "auto"] as const;
/** One of `SEND_AS`. */
export type SendAs = (typeof SEND_AS)[number];

/** Who a message actually goes out as. */
export const SENDER_KINDS = ["bot", "owner"] as const;
/** One of `SENDER_KINDS`. */
export type SenderKind = (typeof SENDER_KINDS)[number];

/**
 * The identity a draft goes out as, decided when it is posted for review
 * (so the reviewer sees it) and bound into the approval: a 👍 counts for
 * this identity only. `owner`: through the owner's business connection, in
 * his private chat with the person; `bot`: as the bot.
 */
export const senderSchema = z.discriminatedUnion("kind", [
  z.object({
    kind: z.literal("bot"),
    /** The bot's @username (without @), as the post names it; null when not known (test mode). */
    username: z.string().nullable(),
    /** Why not the owner, when the payload asked for `auto` (shown on the post); null otherwise. */
    why_not_owner: z.string().nullable().default(null),
  }),
  z.object({
    kind: z.literal("owner"),
    /** The business connection the send goes through. */
    connection_id: z.string(),
    /** The owner's Telegram user id (OWNER_USER_ID): the connection's user. */
    owner_user_id: z.number().int(),
    /** The account's name and @username as the post names it ("As you (Anna Owner, @anna_o)"); null on older records. */
    owner_name: z.string().nullable().default(null),
    owner_username: z.string().nullable().default(null),
    /** The person's name, as their messages gave it; null when the daemon has not seen them write. */
    person_name: z.string().nullable(),
    /** When the person last wrote (ISO-8601 UTC), as seen when the draft was posted; null: never seen. */
    last_incoming_at: z.string().nullable(),
  }),
]);
/** The identity a draft goes out as. */
export type Sender = z.infer<typeof senderSchema>;

/**
 * The message a draft answers, as the daemon saw it arrive (a business
 * message): shown to the reviewer as a quote. The text is data: it is never
 * parsed, only placed inside a blockquote entity.
 */
export const answeringSchema = z.object({
  message_id: z.number().int(),
  /** The author's name as Telegram gave it. */
  author: z.string(),
  /** When Telegram dated it (ISO-8601 UTC). */
  at: z.string(),
  text: z.string(),
});
/** The message a draft answers. */
export type Answering = z.infer<typeof answeringSchema>;

/** The identity a draft goes out as; records from before send_as existed go out as the bot. */
export function senderKindOf(draft: { readonly sender: Sender | null }): SenderKind {
  return draft.sender?.kind ?? "bot";
}
