import type { AuditLog } from "../audit/audit-log.js";
import type { Effect } from "../drafts/effects.js";
import { unknownOutcomeNotice } from "../drafts/machine.js";
import type { DraftRecord } from "../drafts/record.js";
import { isFinal, type DraftStatus } from "../drafts/status.js";
import { transitionEntry } from "./audit-entries.js";
import type { ReviewDesk } from "./review-desk.js";

/** Why a `sending` draft found at start is marked unknown. */
export const CRASH_DURING_SEND =
  "the daemon stopped while the send was under way; Telegram may or may not have the message";

/**
 * Brings the audit log level with the store after a crash: a change that
 * reached the store but not the audit log (the daemon died between the two
 * writes) is audited now, marked `recovered`. Returns how many were missing.
 */
export async function reconcileAudit(drafts: Iterable<DraftRecord>, audit: AuditLog): Promise<number> {
  const audited = new Map<string, number>();
  for (const { entry } of audit.ours) {
    if (entry?.kind === "transition") audited.set(entry.draft_id, Math.max(audited.get(entry.draft_id) ?? 0, entry.version));
  }
  const missing = [...drafts].filter((d) => (audited.get(d.draft_id) ?? 0) < d.version);
  if (missing.length > 0) await audit.append(missing.map((d) => transitionEntry(null, d, { type: "recovered" })));
  return missing.length;
}

/** Statuses past which a draft may have reached its destination. */
const SEND_STARTED: ReadonlySet<DraftStatus> = new Set<DraftStatus>(["sending", "sent", "failed", "outcome_unknown"]);

/** Why a draft whose store line was lost, but whose audit line says the send began, is marked unknown. */
export const STORE_LOST_SEND =
  "the store lost its last change (a damaged last line was cut off at start), and the audit log shows the send had begun; " +
  "Telegram may or may not have the message";

/**
 * The audit log can be ahead of the store when the store's last line was
 * damaged and cut off at start. If the audit log says a draft the store has
 * as `approved` had already begun its send, sending it again could deliver it
 * twice: it is marked unknown instead, and the reviewers are told. Returns the
 * drafts so marked.
 */
export async function guardLostSends(desk: ReviewDesk, audit: AuditLog): Promise<string[]> {
  const last = new Map<string, { version: number; to: DraftStatus }>();
  for (const { entry } of audit.ours) {
    if (entry?.kind !== "transition") continue;
    if ((last.get(entry.draft_id)?.version ?? 0) < entry.version) last.set(entry.draft_id, { version: entry.version, to: entry.to });
  }
  const marked: string[] = [];
  for (const draft of desk.list("approved")) {
    const audited = last.get(draft.draft_id);
    if (!audited || audited.version <= draft.version || !SEND_STARTED.has(audited.to)) continue;
    const intent = await desk.apply(draft.draft_id, { type: "send_intent" });
    if (!intent.ok) continue;
    await desk.apply(draft.draft_id, { type: "send_unknown", reason: STORE_LOST_SEND });
    marked.push(draft.draft_id);
  }
  return marked;
}

/**
 * Resumes every draft after a start, from the stored state alone:
 * - `sending`: the outcome is unknown; marked so, and the reviewers are told. Never resent.
 * - `outcome_unknown` whose notice never went out (a crash right after marking it): told now.
 * - anything past its `expires_at` that is not final: expired, never sent.
 * - `approved`: handed to the send path (which checks the kill switch again).
 * - `queued`: posted for review at the next free slot.
 * - the rest: expiry timers armed again.
 */
export async function resumeDrafts(desk: ReviewDesk): Promise<void> {
  const now = desk.clock.now();
  const effects: Effect[] = [];
  for (const draft of desk.list()) {
    if (isFinal(draft.status)) {
      // A crash between marking a send unknown and telling the reviewers must not leave them untold.
      if (draft.status === "outcome_unknown" && !desk.wasNotified(draft.draft_id, draft.status)) {
        effects.push({ type: "notify", draftId: draft.draft_id, text: unknownOutcomeNotice(draft.reason ?? CRASH_DURING_SEND) });
      }
      continue;
    }
    if (draft.status === "sending") {
      await desk.apply(draft.draft_id, { type: "send_unknown", reason: CRASH_DURING_SEND });
      continue;
    }
    const expiresAt = Date.parse(draft.expires_at);
    if (expiresAt <= now) {
      await desk.apply(draft.draft_id, { type: "expire" });
      continue;
    }
    effects.push({ type: "arm_expiry", draftId: draft.draft_id, at: expiresAt });
    if (draft.status === "approved") effects.push({ type: "send", draftId: draft.draft_id });
    if (draft.status === "queued") effects.push({ type: "post_review", draftId: draft.draft_id });
  }
  desk.runEffects(effects);
}
