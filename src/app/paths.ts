import { join } from "node:path";

/** The files of HARNESS_DIR, named once; cheap to import (the CLI uses it). */
export function harnessPaths(dir: string) {
  return {
    /** The draft store. */
    drafts: join(dir, "telegram_drafts.jsonl"),
    /** The audit log, shared with other writers. */
    audit: join(dir, "swarm.jsonl"),
    /** The checkpoint of the index over our audit lines (a start reads only the lines after it). */
    auditIndex: join(dir, "audit_index.json"),
    /** Final drafts older than DRAFT_RETENTION, one file per month. */
    archive: join(dir, "archive"),
    /** Present while the owner has halted sends (/halt, `draft-review halt`). */
    ownerHalt: join(dir, "HALT"),
    /** When the last halt (any kind) began and ended: a halt voids older approvals across restarts. */
    haltRecord: join(dir, "halt_record.json"),
    /** The audit key (mode 0600): proves which audit lines this project wrote (src/audit/audit-key.ts). */
    auditKey: join(dir, "audit_key"),
    /** The intake API's generated bearer token (mode 0600). */
    apiToken: join(dir, "api_token"),
    /** Telegram updates fetched but perhaps not yet handled. */
    updates: join(dir, "updates.jsonl"),
    /** The seq of the last event the callback receiver acknowledged. */
    callbackCursor: join(dir, "callback_cursor.json"),
    /** The owner's Telegram Business connection (absent: none). */
    businessConnection: join(dir, "business_connection.json"),
    /** The texts of redacted drafts before redaction, one 0600 file per live draft (🔓 Keep the removed items). */
    removedItems: join(dir, "removed_items"),
    /** What people wrote to the owner in the last 48 h, per private chat (bounded). */
    businessChats: join(dir, "business_chats.json"),
    /** The review chat's topic per role (REVIEW_TOPICS=role), made once, and the topic notices told. */
    reviewTopics: join(dir, "review_topics.json"),
    /** Other accounts' business connections, ignored (each told to the review chat once). */
    businessIgnored: join(dir, "business_ignored.json"),
  };
}
