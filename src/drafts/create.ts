import type { Effect } from "./effects.js";
import type { Audience } from "./audience.js";
import type { ChannelAudienceRecord } from "./destination.js";
import type { Choice } from "./choices.js";
import type { DraftPayload } from "./payload.js";
import type { DraftRecord, RedactionSummary, Role } from "./record.js";
import type { Answering, Sender } from "./sender.js";

/** What `createDraft` needs besides the payload: the ids and hashes computed at the edge. */
export interface NewDraftFacts {
  readonly draftId: string;
  /** The text as it will be reviewed and sent (after redaction). */
  readonly text: string;
  readonly textSha256: string;
  readonly payloadSha256: string;
  readonly ttlMs: number;
  readonly redaction: RedactionSummary | null;
  /** Who will read it, resolved at intake; null when not known. */
  readonly audience?: Audience | null;
  /** The earlier draft this one replaces (payload `revises`), with its text for the diff. */
  readonly revises?: {
    readonly draftId: string;
    readonly text: string;
    readonly note: string | null;
    /** The earlier draft's review post, which this one's post replies to; null when it had none. */
    readonly post?: number | null;
    /** The role that drafted the earlier draft (any role may revise any role's draft; the post says whose). */
    readonly role?: Role;
    /** Where the earlier draft was to go, when that differs from this payload's destination. */
    readonly destination?: { readonly chat_id: string; readonly thread_id: number | null; readonly title: string | null } | null;
  } | null;
  /** True in test mode: the record says so, and a live daemon leaves it alone. */
  readonly testMode?: boolean;
  /** The identity it goes out as (send_as resolved); null or absent: the bot, unnamed. */
  readonly sender?: Sender | null;
  /** The message it answers, when the daemon saw it. */
  readonly answering?: Answering | null;
  /** Who will read it on a channel other than Telegram, read at intake; null or absent: Telegram, or not read. */
  readonly channelAudience?: ChannelAudienceRecord | null;
  /** The destinations the owner picks among, each with its audience read at intake; the first is the draft's own. */
  readonly choices?: readonly Choice[] | null;
}

/**
 * The first record of a draft: `queued` until the review post goes out. Pure:
 * the caller supplies the time, the ids and the hashes.
 */
export function createDraft(payload: DraftPayload, facts: NewDraftFacts, now: number): { draft: DraftRecord; effects: readonly Effect[] } {
  const at = new Date(now).toISOString();
  const draft: DraftRecord = {
    draft_id: facts.draftId,
    version: 1,
    status: "queued",
    draft_text: facts.text,
    text_sha256: facts.textSha256,
    destination_chat_id: payload.destination_chat_id,
    destination_thread_id: payload.destination_thread_id,
    drafted_by_role: payload.drafted_by_role,
    originating_intent_id: payload.originating_intent_id,
    idempotency_key: payload.idempotency_key,
    payload_sha256: facts.payloadSha256,
    review_chat_id: null,
    review_message_id: null,
    review_thread_id: null,
    drafted_at: at,
    expires_at: new Date(now + facts.ttlMs).toISOString(),
    updated_at: at,
    approval: null,
    decided_by: null,
    revision_note: null,
    sent_message_id: null,
    sent_at: null,
    reason: null,
    redaction: facts.redaction,
    audience: facts.audience ?? null,
    text_version: 1,
    original_text: null,
    previous_text: facts.revises?.text ?? null,
    send_after: null,
    undo_shown_at: null,
    halt_lasts: false,
    revise_undo: null,
    undone_at: null,
    ...revisesFields(facts),
    revised_by: null,
    superseded_posts: [],
    test_mode: facts.testMode === true,
    send_as: payload.send_as,
    reply_to_message_id: payload.reply_to_message_id,
    sender: facts.sender ?? null,
    answering: facts.answering ?? null,
    sent_as: null,
    expired_while_down: null,
    ...whereItGoes(payload, facts),
  };
  return {
    draft,
    effects: [
      { type: "arm_expiry", draftId: facts.draftId, at: now + facts.ttlMs },
      { type: "post_review", draftId: facts.draftId },
    ],
  };
}

/** What a new version carries of the draft it replaces (a sent-back draft's note, post, role, destination), or nulls. */
function revisesFields(
  facts: NewDraftFacts,
): Pick<DraftRecord, "revises" | "revises_note" | "revises_post" | "revises_role" | "revises_destination"> {
  const r = facts.revises;
  return {
    revises: r?.draftId ?? null,
    revises_note: r?.note ?? null,
    revises_post: r?.post ?? null,
    revises_role: r?.role ?? null,
    revises_destination: r?.destination ?? null,
  };
}

/** Where a draft goes on a channel other than Telegram's v1-v4 fields, and the destinations the owner picks among (contract v5). */
function whereItGoes(payload: DraftPayload, facts: NewDraftFacts): Pick<DraftRecord, WhereItGoes> {
  const choices = facts.choices ?? null;
  return {
    destination: payload.destination ?? null,
    channel_audience: facts.channelAudience ?? null,
    send_reference: null,
    sent_ref: null,
    choices: choices ? [...choices] : null,
    choose: choices ? (payload.choose ?? "one") : null,
    chosen: null,
    chosen_set: choices && payload.choose === "any" ? choices.map((c) => c.index) : null,
    set_changed_at: null,
    deliveries: [],
  };
}

/** The record's fields of contract v5's channels and choices. */
type WhereItGoes =
  | "destination"
  | "channel_audience"
  | "send_reference"
  | "sent_ref"
  | "choices"
  | "choose"
  | "chosen"
  | "chosen_set"
  | "set_changed_at"
  | "deliveries";
