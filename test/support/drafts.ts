import type { DraftEvent } from "../../src/drafts/events.js";
import type { DraftRecord } from "../../src/drafts/record.js";
import type { Sender } from "../../src/drafts/sender.js";
import type { DraftStatus } from "../../src/drafts/status.js";
import { textSha256 } from "../../src/send/approval.js";

/**
 * A fixed instant, for tests that run wholly on a simulated clock (the state
 * machine, formatted times). Never write it into files that a process on the
 * real clock reads: once the calendar passes T0 + DRAFT_TTL its drafts expire.
 */
export const T0 = Date.parse("2026-11-30T10:00:00.000Z");
export const HOUR = 3_600_000;

/** A draft's sender when it goes as the owner: his business connection `bc1`, to Anna, who wrote at T0. */
export const OWNER_SENDER: Sender = {
  kind: "owner",
  connection_id: "bc1",
  owner_user_id: 100000001,
  owner_name: "Owen Owner",
  owner_username: "owen",
  person_name: "Anna",
  last_incoming_at: new Date(T0).toISOString(),
};

/**
 * The real time now, to the second: where a test's in-process core writes
 * files that a real daemon, on the real clock, reads afterwards. Fixtures so
 * dated pass on any day the suite runs.
 */
export function wallClockNow(): number {
  return Math.floor(Date.now() / 1000) * 1000;
}

/** "YYYY-MM", the month of `ms` in UTC: the archive file a draft final at `ms` lands in. */
export function utcMonth(ms: number): string {
  return new Date(ms).toISOString().slice(0, 7);
}

/** A valid draft record in `status`, with an approval where the status implies one. */
export function draftIn(status: DraftStatus, overrides: Partial<DraftRecord> = {}): DraftRecord {
  const text = overrides.draft_text ?? "Hi Anna, see you Thursday at 10.";
  const sha = textSha256(text);
  const approved = status === "approved" || status === "sending" || status === "sent" || status === "outcome_unknown";
  return {
    draft_id: "d_test",
    version: 3,
    status,
    draft_text: text,
    text_sha256: sha,
    destination_chat_id: "-1001234567890",
    destination_thread_id: null,
    drafted_by_role: "Scribe",
    originating_intent_id: "intent-1",
    idempotency_key: null,
    payload_sha256: "p",
    review_chat_id: status === "queued" ? null : "100000001",
    review_message_id: status === "queued" ? null : 42,
    review_thread_id: null,
    drafted_at: new Date(T0).toISOString(),
    expires_at: new Date(T0 + 24 * HOUR).toISOString(),
    updated_at: new Date(T0).toISOString(),
    approval: approved ? { actor: reviewer("reaction", "👍"), at: new Date(T0).toISOString(), text_sha256: sha } : null,
    decided_by: null,
    revision_note: null,
    sent_message_id: null,
    sent_at: null,
    reason: null,
    redaction: null,
    audience: null,
    text_version: 1,
    original_text: null,
    previous_text: null,
    send_after: null,
    undo_shown_at: null,
    halt_lasts: false,
    revise_undo: null,
    undone_at: null,
    revises: null,
    revises_note: null,
    revises_role: null,
    revises_post: null,
    revised_by: null,
    revises_destination: null,
    superseded_posts: [],
    test_mode: false,
    send_as: "bot",
    reply_to_message_id: null,
    sender: null,
    answering: null,
    sent_as: status === "sent" ? "bot" : null,
    expired_while_down: null,
    destination: null,
    channel_audience: null,
    send_reference: null,
    sent_ref: null,
    choices: null,
    choose: null,
    chosen_set: null,
    set_changed_at: null,
    chosen: null,
    deliveries: [],
    ...overrides,
  };
}

/** The reviewer as an actor. */
export function reviewer(channel: "reaction" | "button" | "reply" | "test" = "test", emoji: string | null = "👍") {
  return { user_id: 100000001, channel, emoji, update_id: null };
}

/** One example of every event type. */
export const EVENTS: Record<DraftEvent["type"], DraftEvent> = {
  posted: { type: "posted", reviewChatId: "100000001", reviewMessageId: 77 },
  decide: { type: "decide", decision: "send", actor: reviewer(), note: null, deferMs: 24 * HOUR },
  expire: { type: "expire" },
  halt: { type: "halt", reason: "kill switch" },
  send_intent: { type: "send_intent" },
  send_retry: { type: "send_retry", reason: "429" },
  send_ok: { type: "send_ok", messageId: 9 },
  send_failed: { type: "send_failed", reason: "Forbidden: bot was blocked by the user" },
  send_unknown: { type: "send_unknown", reason: "timeout" },
  edit: {
    type: "edit",
    text: "Hi Anna, see you Friday at 10.",
    textSha256: textSha256("Hi Anna, see you Friday at 10."),
    redaction: null,
    actor: reviewer("reply", "✏️"),
  },
  undo: { type: "undo", actor: reviewer("reaction", "👍") },
  undo_shown: { type: "undo_shown", at: T0 + HOUR, version: 1, sendAt: null },
  halt_lifted: { type: "halt_lifted" },
  toggle: { type: "toggle", destination: 2, actor: reviewer("button", null) },
  revised: { type: "revised", byDraftId: "d_later" },
};
