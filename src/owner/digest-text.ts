import { ROLES, type DraftRecord } from "../drafts/record.js";
import { AWAITING_DECISION, type DraftStatus } from "../drafts/status.js";
import type { KillSwitchState } from "../send/kill-switch.js";
import { localMinute } from "../clock/local-time.js";
import { killSwitchLine } from "./status-report.js";

/** One role's day. */
export interface RoleDigest {
  readonly role: string;
  readonly sent: number;
  readonly revised: number;
  readonly expired: number;
  readonly failed: number;
  readonly outcome_unknown: number;
  /** Sent to some of several destinations, not all (`choose: "any"`). */
  readonly partly_sent: number;
  /** Waiting now: queued, pending, deferred or halted, whenever drafted. */
  readonly waiting: number;
}

/** The fields of a draft the digest reads. */
export type DigestDraft = Pick<DraftRecord, "drafted_by_role" | "status" | "updated_at">;

const FINAL_COLUMN: Partial<Record<DraftStatus, keyof Omit<RoleDigest, "role" | "waiting">>> = {
  sent: "sent",
  revise: "revised",
  expired: "expired",
  failed: "failed",
  outcome_unknown: "outcome_unknown",
  partly_sent: "partly_sent",
};

/**
 * Counts, per role, the drafts that became sent, revise, expired, failed or
 * outcome_unknown within the window ending at `nowMs` (a final record never
 * changes again, so its `updated_at` is when it became final), and those that
 * wait now. Every swarm role is listed, in the contract's order. Pure.
 */
export function digestCounts(drafts: Iterable<DigestDraft>, nowMs: number, windowMs: number): RoleDigest[] {
  const rows = new Map<string, { -readonly [K in keyof RoleDigest]: RoleDigest[K] }>();
  const row = (role: string) => {
    let r = rows.get(role);
    if (!r) rows.set(role, (r = { role, sent: 0, revised: 0, expired: 0, failed: 0, outcome_unknown: 0, partly_sent: 0, waiting: 0 }));
    return r;
  };
  for (const role of ROLES) row(role);
  for (const d of drafts) {
    if (AWAITING_DECISION.has(d.status) || d.status === "queued") row(d.drafted_by_role).waiting++;
    const column = FINAL_COLUMN[d.status];
    const at = Date.parse(d.updated_at);
    if (column && at > nowMs - windowMs && at <= nowMs) row(d.drafted_by_role)[column]++;
  }
  return [...rows.values()];
}

function roleLine(r: RoleDigest): string {
  const busy = r.sent + r.revised + r.expired + r.failed + r.outcome_unknown + r.partly_sent + r.waiting > 0;
  if (!busy) return `${r.role}: nothing`;
  const unknown = r.outcome_unknown > 0 ? ` · ${r.outcome_unknown} outcome unknown` : "";
  const partly = r.partly_sent > 0 ? ` · ${r.partly_sent} partly sent` : "";
  return `${r.role}: ${r.sent} sent${partly} · ${r.revised} revised · ${r.expired} expired · ${r.failed} failed${unknown} · ${r.waiting} waiting`;
}

/**
 * The daily digest message for the review chat: one line per role (sent,
 * revised, expired, failed in the last 24h, and what still waits), what waits
 * in total, and the kill switch when it halts sends. Pure.
 */
export function digestText(rows: readonly RoleDigest[], nowMs: number, killSwitch?: KillSwitchState): string {
  const waiting = rows.reduce((n, r) => n + r.waiting, 0);
  const unknown = rows.reduce((n, r) => n + r.outcome_unknown, 0);
  return [
    `🗞 Daily digest: the last 24h, to ${localMinute(nowMs)}`,
    ...rows.map(roleLine),
    waiting > 0
      ? `${waiting} draft${waiting === 1 ? "" : "s"} still wait${waiting === 1 ? "s" : ""} for you: /pending lists them.`
      : "Nothing waits for you.",
    ...(unknown > 0 ? ["An outcome_unknown draft may or may not have reached its chat: check there before drafting it again."] : []),
    ...(killSwitch?.halted ? [killSwitchLine(killSwitch)] : []),
  ].join("\n");
}
