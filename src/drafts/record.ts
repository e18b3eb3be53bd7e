import { z } from "zod";
import { audienceSchema } from "./audience.js";
import { channelAudienceSchema, sentRefSchema, storedDestinationSchema } from "./destination.js";
import { choiceSchema, CHOOSE_MODES, deliverySchema } from "./choices.js";
import { answeringSchema, SEND_AS, SENDER_KINDS, senderSchema } from "./sender.js";
import { STATUSES } from "./status.js";

/** The swarm roles allowed to draft. */
export const ROLES = ["Scribe", "CoS", "Margot"] as const;
/** One of `ROLES`. */
export type Role = (typeof ROLES)[number];

/** The three decisions a reviewer can make. */
export const DECISIONS = ["send", "revise", "defer"] as const;
/** One of `DECISIONS`. */
export type Decision = (typeof DECISIONS)[number];

/** How a decision reached the daemon. */
export const CHANNELS = ["reaction", "button", "reply", "test", "command"] as const;
/** One of `CHANNELS`. */
export type Channel = (typeof CHANNELS)[number];

/** Who decided, and how: kept with the draft and written to the audit log. */
export const actorSchema = z.object({
  user_id: z.number().int(),
  channel: z.enum(CHANNELS),
  emoji: z.string().nullable(),
  /** Telegram's update_id, or null when the decision did not come from an update. */
  update_id: z.number().int().nullable(),
});
/** Who decided, and how. */
export type Actor = z.infer<typeof actorSchema>;

/** A reviewer's recorded approval: the send path checks it again at the call. */
export const approvalSchema = z.object({
  actor: actorSchema,
  at: z.string(),
  /** sha256 (hex) of the exact text approved; the send path compares it with the text it sends. */
  text_sha256: z.string(),
  /** The text version approved (`text_version` of the draft then); older lines have none. */
  text_version: z.number().int().positive().optional(),
  /** The status before the approval: where an undo within UNDO_WINDOW returns the draft. */
  before: z.enum(["pending", "deferred", "halted"]).optional(),
  /** The identity approved (what the post showed); older lines have none: the bot. */
  sender: z.enum(SENDER_KINDS).optional(),
  /** sendIdentity when approved: the account, connection and reply the post showed; the send call compares it. Older lines have none. */
  identity: z.string().optional(),
});
/** A reviewer's recorded approval. */
export type Approval = z.infer<typeof approvalSchema>;

/** What redaction removed before the draft was stored (counts per kind). */
export const redactionSchema = z.object({
  /** `reviewer`: the text is a reviewer's own (an ✏️ edit), which is not redacted (contract v3). */
  mode: z.enum(["redact", "off", "reviewer"]),
  removed: z.record(z.string(), z.number().int().nonnegative()),
  /** What each removed piece was, recognisably but not shown ("phone ending 678"); absent on older lines. */
  hints: z.array(z.string()).optional(),
  /** True for a version made by "🔓 Keep the removed items": the text as submitted, with what redaction removed (`hints` name it). */
  restored: z.boolean().optional(),
});
/** What redaction removed. */
export type RedactionSummary = z.infer<typeof redactionSchema>;

/**
 * The whole record of one draft. Every change writes the whole record as one
 * line of `telegram_drafts.jsonl`; the last line of a `draft_id` is its state.
 * Times are ISO-8601 UTC strings.
 */
const draftRecordFields = z.object({
  draft_id: z.string().min(1),
  /** Increases by one with every change of this draft. */
  version: z.number().int().positive(),
  status: z.enum(STATUSES),
  draft_text: z.string(),
  text_sha256: z.string(),
  destination_chat_id: z.string(),
  destination_thread_id: z.number().int().nullable(),
  drafted_by_role: z.enum(ROLES),
  originating_intent_id: z.string(),
  idempotency_key: z.string().nullable(),
  /** sha256 of the submitted payload, to refuse a reused idempotency key with a different payload. */
  payload_sha256: z.string(),
  review_chat_id: z.string().nullable(),
  review_message_id: z.number().int().nullable(),
  /** The topic (message_thread_id) the review post is in; null: the chat's main thread (or REVIEW_THREAD_ID, on older lines). */
  review_thread_id: z.number().int().nullable().default(null),
  drafted_at: z.string(),
  expires_at: z.string(),
  updated_at: z.string(),
  approval: approvalSchema.nullable(),
  /** The last decision taken on this draft, whatever it was. */
  decided_by: actorSchema.nullable(),
  revision_note: z.string().nullable(),
  sent_message_id: z.number().int().nullable(),
  sent_at: z.string().nullable(),
  /** Telegram's reason for a failure, or why the outcome is unknown, or why a send halted. */
  reason: z.string().nullable(),
  redaction: redactionSchema.nullable(),
  /** Who will read it, as last resolved (older lines have none). */
  audience: audienceSchema.nullable().default(null),
  /** 1 as submitted; each reviewer's edit adds one. */
  text_version: z.number().int().positive().default(1),
  /** The text as submitted (after redaction), kept once a reviewer edited it; null while unedited. */
  original_text: z.string().nullable().default(null),
  /** The text this version replaced (the previous edit, or the draft named by `revises`): the post shows the diff. */
  previous_text: z.string().nullable().default(null),
  /**
   * While an approval waits out UNDO_WINDOW: when the send may start (ISO-8601 UTC). Null otherwise.
   * Provisional (the tap plus the window) until `undo_shown_at`; then at least that plus the window.
   */
  send_after: z.string().nullable().default(null),
  /**
   * When Telegram accepted the message or edit that shows the approval with its ↩️ Undo (ISO-8601 UTC):
   * the undo window counts from then (contract v4). Null until then, and without a window; older lines: null.
   */
  undo_shown_at: z.string().nullable().default(null),
  /**
   * True while the kill switch's halt that stopped this draft lasts, as far as the daemon has seen:
   * its post offers no 👍 (it could only halt again) until the halt ends. Older lines: false.
   */
  halt_lasts: z.boolean().default(false),
  /**
   * While a `revise` can still be undone (UNDO_WINDOW after it): until when, and the status an undo
   * returns the draft to. Null otherwise (older lines have none).
   */
  revise_undo: z
    .object({ until: z.string(), before: z.enum(["pending", "deferred", "halted"]) })
    .nullable()
    .default(null),
  /** When the last decision was undone (↩️): the post says so while the draft awaits a decision again. Null otherwise. */
  undone_at: z.string().nullable().default(null),
  /** The earlier draft this one replaces (payload `revises`). */
  revises: z.string().nullable().default(null),
  /** The review post of the draft named by `revises` (in the same review chat): this draft's post replies to it. */
  revises_post: z.number().int().nullable().default(null),
  /** The role that drafted the draft named by `revises` (older lines have none): the post says whose draft this revises. */
  revises_role: z.enum(ROLES).nullable().default(null),
  /** The revision note of the draft named by `revises`, quoted on this draft's review post. */
  revises_note: z.string().nullable().default(null),
  /** Where the draft named by `revises` was to go, when this one goes elsewhere: the post says so. */
  revises_destination: z
    .object({ chat_id: z.string(), thread_id: z.number().int().nullable(), title: z.string().nullable() })
    .nullable()
    .default(null),
  /** The later draft that replaced this one. */
  revised_by: z.string().nullable().default(null),
  /** Review posts of earlier text versions: decisions on them are refused with a pointer to the live post. */
  superseded_posts: z.array(z.number().int()).default([]),
  /**
   * Made in test mode (TAO_DRAFT_REVIEW_TEST=1; older lines have none: false). A live daemon never
   * posts, sends, lists, counts or matches a decision to such a draft; it lets it expire quietly.
   */
  test_mode: z.boolean().default(false),
  /** What the payload asked for (contract v3); older lines: the bot. */
  send_as: z.enum(SEND_AS).default("bot"),
  /** The message in the destination chat that the draft answers; the send replies to it. */
  reply_to_message_id: z.number().int().nullable().default(null),
  /** The identity it goes out as, decided when it is posted; null on older lines (the bot). */
  sender: senderSchema.nullable().default(null),
  /** The message it answers, as the daemon saw it, quoted on the review post; null when not seen. */
  answering: answeringSchema.nullable().default(null),
  /** Who it went out as, once sent. */
  sent_as: z.enum(SENDER_KINDS).nullable().default(null),
  /**
   * Expired while the daemon was down for longer than Telegram keeps a tap (24 h): from its last
   * poll to the start that expired it (ISO-8601 UTC). A decision made then may have been lost, so
   * its post says that, not "without a decision". Null otherwise.
   */
  expired_while_down: z.object({ since: z.string(), until: z.string() }).nullable().default(null),
  /**
   * Where it goes on a channel other than Telegram (contract v5: Linear, email, Slack), the payload's
   * `destination` as checked by its channel; null: Telegram (the destination_* fields). For such a
   * draft `destination_chat_id` is only a label of the destination ("email", "slack:C0…").
   */
  destination: storedDestinationSchema.nullable().default(null),
  /** Who will read it on that channel, as its post showed it; null for Telegram (see `audience`). */
  channel_audience: channelAudienceSchema.nullable().default(null),
  /**
   * The channel's own id chosen before the send call and written with the `sending` intent (a Linear
   * comment id, the email's Message-ID, Slack's metadata): after a lost answer or a crash the daemon
   * looks for it instead of sending again. Null until a send starts; Telegram: null.
   */
  send_reference: z.string().nullable().default(null),
  /** Where the sent message can be found (contract v5 `sent_ref`); null until sent. */
  sent_ref: sentRefSchema.nullable().default(null),
  /**
   * The destinations the owner picks among (payload `destinations`), numbered from 1, each with the
   * audience its post showed; null: one destination. The destination fields above are those of the
   * choice the draft goes to (the first, the role's recommendation, until the owner picks another).
   */
  choices: z.array(choiceSchema).nullable().default(null),
  /** How he picks: `one` (a send button per destination) or `any`; null without choices. */
  choose: z.enum(CHOOSE_MODES).nullable().default(null),
  /** The choice an approval picked (its index); null before, and without choices. */
  chosen: z.number().int().min(1).max(5).nullable().default(null),
  /**
   * `choose: "any"`: the destinations the post shows on (their indexes, ascending), all at first; each toggle
   * flips one, and a 👍 sends to those. Null otherwise.
   */
  chosen_set: z.array(z.number().int().min(1).max(5)).nullable().default(null),
  /**
   * When the last toggle changed `chosen_set` (ISO-8601 UTC): a 👍 reaction or reply dated before it was made on a post
   * that showed another set, and is refused as stale. Null: never toggled since posted (or since an ✏️ edit).
   */
  set_changed_at: z.string().nullable().default(null),
  /** One entry per chosen destination: its index, status, sent_ref and reason (contract v5); empty before a choice. */
  deliveries: z.array(deliverySchema).default([]),
});

/**
 * The whole record of one draft, read back. A draft sent before `sent_as`
 * existed went out as the bot: its old lines say so once read.
 */
export const draftRecordSchema = draftRecordFields.transform((r) =>
  r.status === "sent" && r.sent_as === null ? { ...r, sent_as: "bot" as const } : r,
);

/** The whole record of one draft, as stored. */
export type DraftRecord = z.infer<typeof draftRecordSchema>;
