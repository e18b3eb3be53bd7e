import { readFile } from "node:fs/promises";
import { parseAuditLine, type AuditEntry } from "../../src/audit/audit-schema.js";
import type { DraftStatus } from "../../src/drafts/status.js";

/** A small valid audit entry (a notice) whose `text` tells entries apart in tests. */
export function noticeEntry(text: string, draftId = "d_test", status: DraftStatus = "pending"): AuditEntry {
  return { kind: "notice", draft_id: draftId, status, text };
}

/** A valid transition entry for tests (only the fields a test cares about need passing). */
export function transitionLine(draftId: string, fields: Partial<Extract<AuditEntry, { kind: "transition" }>> = {}): AuditEntry {
  return {
    kind: "transition",
    draft_id: draftId,
    version: 1,
    from: null,
    to: "queued",
    event: "created",
    draft_text: "text",
    drafted_by_role: "Scribe",
    originating_intent_id: "intent",
    destination_chat_id: "-100",
    destination_thread_id: null,
    review_message_id: null,
    decision: null,
    emoji: null,
    user_id: null,
    channel: null,
    update_id: null,
    reason: null,
    ...fields,
  };
}

/** Our lines in the audit log at `path`, parsed (seq and entry). */
export async function readOurs(
  path: string,
  source = "telegram-draft-for-review",
): Promise<Array<{ seq: number; entry: AuditEntry | null }>> {
  const text = await readFile(path, "utf8");
  return text.split("\n").flatMap((line) => {
    const parsed = parseAuditLine(line, source);
    return parsed ? [{ seq: parsed.envelope.seq, entry: parsed.entry }] : [];
  });
}

/** The `text` of a notice entry, else null. */
export function noticeText(entry: AuditEntry | null): string | null {
  return entry?.kind === "notice" ? entry.text : null;
}
