/**
 * The invariants of the reliability suite, checked against what Telegram
 * (the double) received and what is on disk:
 * - no destination received a text twice;
 * - none received a text without a reviewer's recorded approval of exactly
 *   that text (the store's approval.text_sha256, and an `approved` audit line
 *   by a reviewer);
 * - every acknowledged intake is in the store;
 * - every decision Telegram delivered and saw confirmed is in the audit log.
 */
import type { DraftRecord } from "../../../src/drafts/record.js";
import { textSha256 } from "../../../src/send/approval.js";
import type { CallRecord, TelegramDouble } from "../../telegram-double/index.js";
import type { AuditRow } from "./sweep-files.js";
import { OWNER } from "./sweep-world.js";

/** What went to destinations, judged. */
export interface SendVerdict {
  /** Destination messages in all. */
  readonly delivered: number;
  readonly doubleSends: string[];
  readonly unapproved: string[];
  /** Per text: how many times it reached its destination. */
  readonly countByText: Map<string, number>;
}

/** Messages to chats other than the review chat: the sends. */
export function destinationMessages(double: TelegramDouble): Array<{ chatId: number; text: string; messageId: number }> {
  return double
    .messages()
    .filter((m) => m.chatId !== OWNER)
    .map((m) => ({ chatId: m.chatId, text: m.text, messageId: m.messageId }));
}

/** Audit lines that record a reviewer's approval (by user id) of a draft, by draft_id. */
export function approvalsInAudit(rows: readonly AuditRow[], reviewers: ReadonlySet<number>): Map<string, AuditRow[]> {
  const out = new Map<string, AuditRow[]>();
  for (const r of rows) {
    if (r.kind !== "transition" || r.to !== "approved" || typeof r.draft_id !== "string") continue;
    if (!reviewers.has(r.user_id)) continue;
    const list = out.get(r.draft_id) ?? [];
    list.push(r);
    out.set(r.draft_id, list);
  }
  return out;
}

/**
 * Judges every destination message: at most once per text, and only with a
 * reviewer's approval of exactly that text in the store and in the audit log.
 */
export function judgeSends(
  double: TelegramDouble,
  drafts: ReadonlyMap<string, DraftRecord>,
  audit: readonly AuditRow[],
  reviewers: ReadonlySet<number> = new Set([OWNER]),
): SendVerdict {
  const byText = new Map<string, DraftRecord[]>();
  for (const d of drafts.values()) byText.set(d.draft_text, [...(byText.get(d.draft_text) ?? []), d]);
  const approvals = approvalsInAudit(audit, reviewers);
  const countByText = new Map<string, number>();
  const doubleSends: string[] = [];
  const unapproved: string[] = [];
  const sends = destinationMessages(double);
  for (const m of sends) {
    const n = (countByText.get(m.text) ?? 0) + 1;
    countByText.set(m.text, n);
    if (n === 2) doubleSends.push(`${JSON.stringify(m.text.slice(0, 60))} reached chat ${m.chatId} twice`);
    const candidates = byText.get(m.text) ?? [];
    const draft = candidates.find((d) => d.destination_chat_id === String(m.chatId));
    const problem = approvalProblemOf(draft, m.text, approvals, reviewers);
    if (problem) unapproved.push(`${JSON.stringify(m.text.slice(0, 60))} in chat ${m.chatId}: ${problem}`);
  }
  return { delivered: sends.length, doubleSends, unapproved, countByText };
}

function approvalProblemOf(
  draft: DraftRecord | undefined,
  text: string,
  approvals: Map<string, AuditRow[]>,
  reviewers: ReadonlySet<number>,
): string | null {
  if (!draft) return "no draft with this text and destination is in the store";
  const a = draft.approval;
  if (a === null) return `the draft (${draft.status}) has no approval`;
  if (!reviewers.has(a.actor.user_id)) return `approved by user ${a.actor.user_id}, not a reviewer`;
  if (a.text_sha256 !== textSha256(text)) return "the approval is for another text";
  if (!["sending", "sent", "outcome_unknown"].includes(draft.status)) return `the draft says ${draft.status}`;
  const audited = approvals.get(draft.draft_id) ?? [];
  if (!audited.some((r) => r.draft_text === text)) return "no `approved` audit line by a reviewer for this text";
  return null;
}

/**
 * Update ids that Telegram delivered (a getUpdates answered with them) and
 * that a later getUpdates then confirmed (its offset is past them): Telegram
 * will never deliver these again. A getUpdates the double failed on purpose
 * (failNext, reset) never reached the queue, so it confirms nothing.
 */
export function deliveredAndConfirmed(double: TelegramDouble): Set<number> {
  const polls = double.calls("getUpdates");
  // A held poll that a newer one ended with 409 had confirmed its offset when it began.
  const reached = (c: CallRecord) =>
    ["ok", "pending", "aborted", "dropped"].includes(c.outcome.kind) ||
    (c.outcome.kind === "error" && c.outcome.description.startsWith("Conflict: terminated"));
  const maxOffsetAfter: number[] = new Array(polls.length).fill(0);
  let max = 0;
  for (let i = polls.length - 1; i >= 0; i--) {
    maxOffsetAfter[i] = max;
    const c = polls[i]!;
    if (reached(c)) max = Math.max(max, Number(c.params.offset ?? 0));
  }
  const out = new Set<number>();
  polls.forEach((c, i) => {
    if (c.outcome.kind !== "ok" && c.outcome.kind !== "dropped") return;
    const result = (c.outcome as { result?: unknown }).result;
    if (!Array.isArray(result)) return;
    for (const u of result as Array<{ update_id: number }>) if (maxOffsetAfter[i]! > u.update_id) out.add(u.update_id);
  });
  return out;
}

/** Notices that tell the reviewer a send's outcome is unknown, by the review message they answer. */
export function unknownNotices(double: TelegramDouble): Map<number, number> {
  const out = new Map<number, number>();
  for (const m of double.messages(OWNER)) {
    if (!m.text.includes("may or may not have reached")) continue;
    if (m.replyToMessageId !== undefined) out.set(m.replyToMessageId, (out.get(m.replyToMessageId) ?? 0) + 1);
  }
  return out;
}
