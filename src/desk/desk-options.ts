/**
 * What a ReviewDesk is built from: its store, audit log, review chat, clock and the owner's settings
 * (defer, undo window, reminders, retention, the kill switch's verdicts). A file of its own so the
 * desk's class reads as behaviour, and the wiring (src/app/core.ts) sees the whole list in one place.
 */
import type { AuditLog } from "../audit/audit-log.js";
import type { ChannelSet } from "../channels/channel-set.js";
import type { Clock } from "../clock/clock.js";
import type { DraftRecord } from "../drafts/record.js";
import type { Backoff } from "../retry/backoff.js";
import type { DraftLedger } from "../send/send-path.js";
import type { DraftArchive } from "../store/archive.js";
import type { JsonlStore } from "../store/jsonl-store.js";
import type { Redactor } from "./draft-text.js";
import type { RemovedItems, ReviewChat, Sender, SendsHalted } from "./ports.js";

/** The logger shape the desk writes to (pino's). */
export interface DeskLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/** What the desk is built from. */
export interface ReviewDeskOptions {
  readonly store: JsonlStore<DraftRecord>;
  readonly audit: AuditLog;
  readonly clock: Clock;
  readonly reviewChat: ReviewChat;
  readonly reviewerIds: ReadonlySet<number>;
  readonly deferForMs: number;
  /** AUDIENCE_CONFIRM_OVER: a 👍 for more members than this needs the extra tap; null or absent: never. */
  readonly confirmOver?: number | null;
  /** UNDO_WINDOW in ms: how long an approval waits before its send; 0 (default) = at once. */
  readonly undoWindowMs?: number;
  /** REMIND_BEFORE in ms: a draft awaiting a decision this long before it expires gets one reminder; 0 (default) = none. */
  readonly remindBeforeMs?: number;
  readonly log: DeskLog;
  /** Where final drafts older than `retentionMs` go (absent: they stay in the store). */
  readonly archive?: DraftArchive<DraftRecord>;
  /** DRAFT_RETENTION in milliseconds. */
  readonly retentionMs?: number;
  /** The wait before posting again a draft whose review post failed (default REVIEW_POST_BACKOFF). */
  readonly postBackoff?: Backoff;
  /** The bot's @username: a draft moved to the bot ("🤖 Send as the bot instead") names it. */
  readonly botUsername?: string | null;
  /** Builds the send path; it gets the desk as its ledger. */
  readonly makeSender: (ledger: DraftLedger) => Sender;
  /** True in test mode. Each mode leaves the other's drafts alone: see isInertDraft. */
  readonly testMode?: boolean;
  /** Linear, email and Slack as configured (test mode's offline): an ✏️ edit reads who its new text reaches there. */
  readonly channels?: ChannelSet | null;
  /** Why sends are halted (see SendsHalted): an approval is answered as halted at once when it says so; absent: never. */
  readonly sendsHalted?: SendsHalted;
  /**
   * Why the kill switch stops this approval now (the send call's verdict, approvalHalt), or null: a
   * halt that begins while approvals wait halts them at once. Absent: only the send call looks.
   */
  readonly approvalHalted?: (draft: DraftRecord) => Promise<{ reason: string; lasting: boolean } | null>;
  /** The originals of redacted drafts, for 🔓 Keep the removed items; absent: none are kept. */
  readonly removedItems?: RemovedItems;
  /** The redactor intake uses (🔓 Keep checks a kept original against it); absent or null: not checked. */
  readonly redact?: Redactor | null;
}
