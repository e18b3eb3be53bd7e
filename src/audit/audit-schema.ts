import { z } from "zod";
import { DECISIONS } from "../drafts/record.js";
import { SEND_AS, SENDER_KINDS } from "../drafts/sender.js";
import { STATUSES } from "../drafts/status.js";

/**
 * Every audit entry the daemon and its CLI write, as one zod discriminated
 * union on `kind`. The writer (`AuditLog.append`) takes `AuditEntry`, the
 * readers (the index, the feed, recovery, tests) parse lines back with
 * `parseAuditLine`: renaming a field here breaks them at compile time, not
 * silently at run time. Fields added later are optional, so old lines parse.
 */

const status = z.enum(STATUSES);
const int = z.number().int();

/** The machine events a transition line can name, plus `created` and `recovered` (a change a crash left out of the log). */
export const TRANSITION_EVENTS = [
  "created",
  "recovered",
  "posted",
  "decide",
  "expire",
  "halt",
  "send_intent",
  "send_retry",
  "send_ok",
  "send_failed",
  "send_unknown",
  "edit",
  "undo",
  "revised",
  "undo_shown",
  "halt_lifted",
  "toggle",
] as const;
/** One of `TRANSITION_EVENTS`. */
export type TransitionEvent = (typeof TRANSITION_EVENTS)[number];

/** A draft's status change (one line per durable change of the store). */
export const transitionEntrySchema = z.object({
  kind: z.literal("transition"),
  draft_id: z.string(),
  /** The record's version after the change. */
  version: int,
  from: status.nullable(),
  to: status,
  event: z.enum(TRANSITION_EVENTS),
  /** The draft's text after the change (optional on read: readers that keep lines drop it). */
  draft_text: z.string().optional(),
  /** An edit's text before the change. */
  previous_text: z.string().nullable().optional(),
  /** The record's text_version after the change, where the record has one. */
  text_version: int.optional(),
  drafted_by_role: z.string(),
  originating_intent_id: z.string().optional(),
  destination_chat_id: z.string(),
  destination_thread_id: int.nullable(),
  review_message_id: int.nullable(),
  decision: z.enum(DECISIONS).nullable(),
  emoji: z.string().nullable(),
  user_id: int.nullable(),
  channel: z.string().nullable(),
  update_id: int.nullable(),
  reason: z.string().nullable(),
  /** The revision note of a `revise` decision. */
  note: z.string().optional(),
  sent_message_id: int.optional(),
  /** Where the sent message can be found (contract v5): Telegram's chat and message, Linear's comment, the email's Message-ID, Slack's ts. */
  sent_ref: z.record(z.string(), z.union([z.string(), z.number(), z.null()])).optional(),
  /** While an approval waits out UNDO_WINDOW: when its send may start. */
  send_after: z.string().optional(),
  /** When Telegram accepted the message showing the approval's ↩️ Undo (the window counts from then). */
  undo_shown_at: z.string().optional(),
  /** Among several destinations sent to at once: the delivery (its index, from 1) a send event concerns, or a toggle flipped. */
  delivery: int.optional(),
  /** The later draft that replaces this one (event `revised`). */
  revised_by: z.string().optional(),
  /** What the payload asked for (contract v3); older lines have none: the bot. */
  send_as: z.enum(SEND_AS).optional(),
  /** The identity the draft goes out as (decided when posted). */
  sender: z.enum(SENDER_KINDS).optional(),
  /** Who it went out as, once sent. */
  sent_as: z.enum(SENDER_KINDS).optional(),
  /** An undo's time as Telegram dated it; null: not dated (a ↩️ tap that waited while the daemon was down). */
  acted_at: z.string().nullable().optional(),
  /**
   * The draft's whole store record after the change, without `draft_text` (the line's own): what a
   * start restores when the store lost the change (src/app/store-restore.ts). Lines written before it
   * existed have none.
   */
  record: z.record(z.string(), z.unknown()).optional(),
  /** An edit that only put back what redaction removed ("🔓 Keep the removed items"): the report does not count it as edited. */
  restored: z.boolean().optional(),
});

/** A change whose effects edit the review post; written with the change, so a crash before the edit is redone at start. */
export const statusDueEntrySchema = z.object({ kind: z.literal("status_due"), draft_id: z.string(), version: int });
/** The review post shows the draft at this version (the edit reached Telegram). */
export const statusShownEntrySchema = z.object({ kind: z.literal("status_shown"), draft_id: z.string(), version: int });
/** An earlier review post of an edited draft was marked replaced and lost its buttons. */
export const postSupersededEntrySchema = z.object({ kind: z.literal("post_superseded"), draft_id: z.string(), review_message_id: int });
/** The bot offered a draft's text for editing (✏️ Edit) in message `message_id`; a reply to it is the edit. */
export const editPromptEntrySchema = z.object({ kind: z.literal("edit_prompt"), draft_id: z.string(), message_id: int, text_version: int });

/** What a message with a decision control asks for (see src/desk/surfaces.ts). */
/**
 * `asbot`: "🤖 Send as the bot instead" under the notice of a draft the owner's identity could not send. `ask`: send or
 * revise, asked back for a reply that is only an approval word. `remind`: the ⏰ reminder, which stands for the draft's
 * post (`post`). `notice`: a message of the bot's about a draft that takes no decision (a notice, an answer).
 */
export const SURFACE_ASKS = ["decide", "confirm", "edit", "undo", "resume", "asbot", "ask", "remind", "notice"] as const;
/** One of `SURFACE_ASKS`. */
export type SurfaceAsks = (typeof SURFACE_ASKS)[number];

/** What a surface showed, besides where it is: the fields a decision made on it is judged by. */
const surfaceFields = {
  chat_id: z.string(),
  message_id: int,
  asks: z.enum(SURFACE_ASKS),
  /** The draft it is about (null: a /resume confirmation). */
  draft_id: z.string().nullable(),
  text_version: int.nullable(),
  /** The audience fingerprint it showed (see audienceFingerprint); null: it showed none (an old edit prompt). */
  audience: z.string().nullable(),
  /** Who the draft goes out as (sendIdentity: "bot", or the owner's account in one chat). */
  identity: z.string(),
  /** A /resume confirmation: the halt it was asked about, its button's token. */
  halt: z.string().nullable().optional(),
  token: z.string().optional(),
  /** Until when it counts (ms): a /resume confirmation's 5 minutes, a reminder's deadline. */
  until: z.number().optional(),
  /** The Telegram update that had the bot send it (the ✏️ Edit tap): a redelivery of that update is known as done. */
  update_id: int.optional(),
  /** An `ask` question: the reviewer's reply it asks about, the revision note its revise button gives. */
  note: z.string().optional(),
  /** A reminder: the review post it stands for (a decision on it counts only while that post is the live one). */
  post: int.optional(),
  /** A question: what it asked, kept for the edit that says what became of it once it is used or overtaken. */
  question: z.string().optional(),
};

/** A message that carries a decision control, and what it showed when it was sent or last edited. */
export const surfaceEntrySchema = z.object({ kind: z.literal("surface"), ...surfaceFields });
/** A one-time surface (a confirmation) was used: a later tap on it counts for nothing. */
export const surfaceUsedEntrySchema = z.object({ kind: z.literal("surface_used"), chat_id: z.string(), message_id: int });
/** A surface as the audit index keeps it. */
export const surfaceStateSchema = z.object({ ...surfaceFields, used: z.boolean() });
/** A surface as the audit index keeps it. */
export type SurfaceState = z.infer<typeof surfaceStateSchema>;

/** A line about what a review post shows (see AuditIndex). */
export type PostEntry =
  | z.infer<typeof statusDueEntrySchema>
  | z.infer<typeof statusShownEntrySchema>
  | z.infer<typeof postSupersededEntrySchema>
  | z.infer<typeof editPromptEntrySchema>
  | z.infer<typeof surfaceEntrySchema>
  | z.infer<typeof surfaceUsedEntrySchema>;

/** A reviewer's decision (reaction, button, reply) that did not count, with why. */
export const decisionRefusedEntrySchema = z.object({
  kind: z.literal("decision_refused"),
  draft_id: z.string().nullable(),
  status: status.nullable(),
  draft_text: z.string().nullable().optional(),
  decision: z.enum(DECISIONS).nullable(),
  emoji: z.string().nullable(),
  user_id: int.nullable(),
  channel: z.string(),
  update_id: int.nullable(),
  reason: z.string(),
  chat_id: z.string().nullable(),
  review_message_id: int.nullable(),
  actor_chat_id: int.optional(),
  username: z.string().optional(),
});

/** A notice that reached the review chat (written once it is out). */
export const noticeEntrySchema = z.object({
  kind: z.literal("notice"),
  draft_id: z.string(),
  /** The draft's status when the notice went out. */
  status,
  text: z.string(),
  /** A REMIND_BEFORE reminder: the deadline (`expires_at`) it reminded of. */
  reminder_for: z.string().optional(),
  /** The delivery of several the notice is about (an outcome unknown in a fan-out): `status` is then that delivery's. */
  delivery: z.number().int().positive().optional(),
  /**
   * Written before the notice is posted (a reminder): from then on it counts as out, so a crash after
   * Telegram took it never posts it twice (one a crash cut short is not posted again either). The line
   * without it follows once the post is out. Readers before it take it for the notice itself.
   */
  intent: z.literal(true).optional(),
});

/** An owner command in the review chat that did not count. */
export const commandRefusedEntrySchema = z.object({
  kind: z.literal("command_refused"),
  command: z.string(),
  reason: z.string(),
  user_id: int.nullable(),
  /** "button": a tap on a command's confirmation button (/resume). */
  channel: z.enum(["command", "button"]),
  chat_id: z.string(),
  update_id: int,
  actor_chat_id: int.optional(),
  username: z.string().optional(),
});

const ownerSwitchFields = {
  user_id: int.nullable(),
  /**
   * "command" (/halt, /resume), "cli" (`draft-review halt`, `resume`), or "file": HARNESS_DIR/HALT
   * was removed by hand, and the daemon audits the end of the halt it saw go (owner/halt-removed.ts).
   */
  channel: z.enum(["command", "cli", "file"]),
  /** False when sends already were (or were not) halted by the owner. */
  changed: z.boolean(),
  update_id: int.optional(),
  os_user: z.string().optional(),
};

/** The owner halted sends (/halt, `draft-review halt`). */
export const ownerHaltEntrySchema = z.object({ kind: z.literal("owner_halt"), ...ownerSwitchFields });
/** The owner lifted their halt (/resume, `draft-review resume`). */
export const ownerResumeEntrySchema = z.object({ kind: z.literal("owner_resume"), ...ownerSwitchFields });

/**
 * What the daemon did with a Telegram Business connection it heard of: kept
 * (a reviewer's, enabled), forgotten (disabled or removed), or ignored (not a
 * reviewer's: it never sends through it).
 */
export const businessConnectionEntrySchema = z.object({
  kind: z.literal("business_connection"),
  connection_id: z.string(),
  user_id: int,
  enabled: z.boolean(),
  can_reply: z.boolean(),
  outcome: z.enum(["kept", "forgotten", "ignored"]),
  reason: z.string(),
  /** The update that told it; null for getBusinessConnection at start or at a send. */
  update_id: int.nullable(),
});

/** A report picture reached the review chat: the weekly one (REPORT_DAY, at most once per week, also across restarts) or a /report. */
export const reportPostedEntrySchema = z.object({
  kind: z.literal("report_posted"),
  trigger: z.enum(["schedule", "command"]),
  /** The period shown (ISO-8601 UTC); a weekly report's `until` is the time it was due. */
  since: z.string(),
  until: z.string(),
  message_id: int,
  user_id: int.nullable(),
});

/** One chain head a key anchor vouches for: the last line of `source` written before the audit key existed. */
const anchoredHeadSchema = z.object({ source: z.string(), seq: int.nonnegative(), hash: z.string() });

/**
 * Written once, with the first proof, when the audit key is made (src/audit/audit-key.ts): the
 * lines of our sources written before it (each chain up to the head named here) count as ours;
 * a line of our sources without a valid proof after it is another writer's.
 */
export const keyAnchorEntrySchema = z.object({ kind: z.literal("key_anchor"), chains: z.array(anchoredHeadSchema), note: z.string() });

/**
 * A weekly report picture is about to be posted (written, fsync'd, before the
 * sendPhoto): a stop before `report_posted` leaves it unknown whether it
 * reached the chat, and it is never posted again.
 */
export const reportIntentEntrySchema = z.object({
  kind: z.literal("report_intent"),
  trigger: z.literal("schedule"),
  since: z.string(),
  until: z.string(),
});

/** A weekly picture whose post a stop or a failed call left unconfirmed; the reviewer was told (once) that it may be missing. */
export const reportUnconfirmedEntrySchema = z.object({
  kind: z.literal("report_unconfirmed"),
  since: z.string(),
  until: z.string(),
});

/** Every entry we write, by `kind`. */
export const auditEntrySchema = z.discriminatedUnion("kind", [
  transitionEntrySchema,
  decisionRefusedEntrySchema,
  noticeEntrySchema,
  commandRefusedEntrySchema,
  ownerHaltEntrySchema,
  ownerResumeEntrySchema,
  statusDueEntrySchema,
  statusShownEntrySchema,
  postSupersededEntrySchema,
  editPromptEntrySchema,
  businessConnectionEntrySchema,
  surfaceEntrySchema,
  surfaceUsedEntrySchema,
  reportPostedEntrySchema,
  keyAnchorEntrySchema,
  reportIntentEntrySchema,
  reportUnconfirmedEntrySchema,
]);

/** One entry as a caller writes it (the log adds ts, source, seq, prev_hash). */
export type AuditEntry = z.infer<typeof auditEntrySchema>;
/** The `kind` of an `AuditEntry`. */
export type AuditKind = AuditEntry["kind"];
/** The entry of one kind. */
export type AuditEntryOf<K extends AuditKind> = Extract<AuditEntry, { kind: K }>;
/** A transition line's entry. */
export type TransitionEntry = AuditEntryOf<"transition">;
/** A refused decision's entry. */
export type DecisionRefusedEntry = AuditEntryOf<"decision_refused">;

/** The fields the log itself writes on every line of ours. */
export const auditEnvelopeSchema = z.object({
  ts: z.string(),
  source: z.string(),
  seq: int.nonnegative(),
  prev_hash: z.string(),
});
/** The fields the log writes itself. */
export type AuditEnvelope = z.infer<typeof auditEnvelopeSchema>;

/** Names a caller may not set in an entry: the log writes them (`mac`: the line's proof, see line-proof.ts). */
export const RESERVED_FIELDS: readonly string[] = [...Object.keys(auditEnvelopeSchema.shape), "mac"];

/** One line of ours read back: the envelope plus the entry. */
export type AuditRecord = AuditEnvelope & AuditEntry;

/**
 * A line of ours read back. `entry` is null when the chain fields are there
 * but the entry is not one this version knows (another version wrote it, or
 * it was edited): the chain goes on through it, the readers skip it.
 */
export interface ParsedAuditLine {
  readonly envelope: AuditEnvelope;
  readonly entry: AuditEntry | null;
}

/**
 * Parses one line of the shared audit log. Returns null when it is not ours
 * (another writer, another source) or lacks the chain fields (a torn write).
 */
export function parseAuditLine(text: string, source: string): ParsedAuditLine | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  const envelope = auditEnvelopeSchema.safeParse(value);
  if (!envelope.success || envelope.data.source !== source || !Number.isSafeInteger(envelope.data.seq)) return null;
  if (typeof (value as { kind?: unknown }).kind !== "string") return null;
  const entry = auditEntrySchema.safeParse(value);
  return { envelope: envelope.data, entry: entry.success ? entry.data : null };
}
