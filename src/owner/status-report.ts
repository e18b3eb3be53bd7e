import type { CallbackStatus } from "../callbacks/delivery.js";
import type { DraftRecord } from "../drafts/record.js";
import { STATUSES, type DraftStatus } from "../drafts/status.js";
import type { KillSwitchState } from "../send/kill-switch.js";
import type { BusinessStatus } from "../business/saved-status.js";
import { localMinute, startOfLocalDay, timeEntitiesIn, type TimedText } from "../clock/local-time.js";

/** The statuses that are still moving: the queue depths /status reports. */
export const OPEN_STATUSES = ["queued", "pending", "deferred", "halted", "approved", "sending"] as const satisfies readonly DraftStatus[];

/** The daemon's state as /status, `GET /status` and `draft-review status` show it. */
export interface StatusReport {
  readonly mode: "live" | "test";
  /** When the report was made (ISO-8601 UTC). */
  readonly now: string;
  readonly kill_switch: KillSwitchState;
  /** How many drafts are in each open status now. */
  readonly queue: Readonly<Record<(typeof OPEN_STATUSES)[number], number>>;
  /** Drafts whose last change was today (since local midnight), by their status now. */
  readonly today: { readonly since: string; readonly counts: Readonly<Partial<Record<DraftStatus, number>>> };
  readonly drafts_total: number;
  /** DIGEST_HOUR, or null when the daily digest is off. */
  readonly digest_hour: number | null;
  /** Push callbacks (CALLBACK_URL): backlog and last error; null when off. */
  readonly callbacks: CallbackStatus | null;
  /**
   * When the running daemon last received a reaction in the review chat (ISO-8601 UTC); null:
   * none since it started. Absent when no daemon made the report (the CLI reading the store).
   */
  readonly last_reaction_at?: string | null;
  /** The owner's Telegram Business connection (drafts sent as him); absent when not known. */
  readonly business?: BusinessStatus;
  /** Problems found in HARNESS_DIR that do not stop the daemon (an archive month file that lost drafts); absent when none. */
  readonly warnings?: readonly string[];
}

/** What the report is made from; every input is a value, so this is pure. */
export interface StatusInputs {
  readonly mode: "live" | "test";
  readonly nowMs: number;
  readonly drafts: Iterable<Pick<DraftRecord, "status" | "updated_at">>;
  readonly killSwitch: KillSwitchState;
  readonly digestHour: number | null;
  /** The callback delivery's state; absent or null when CALLBACK_URL is unset. */
  readonly callbacks?: CallbackStatus | null;
  /** When a reaction last arrived (Clock ms), null for none yet; absent when not known (no daemon). */
  readonly lastReactionMs?: number | null;
  /** The business connection as the daemon (or its file) has it; absent when not known. */
  readonly business?: BusinessStatus;
  /** See StatusReport.warnings. */
  readonly warnings?: readonly string[];
}

/** Builds the status report: queue depths and today's counts from the drafts, the kill switch as checked. */
export function buildStatusReport(inputs: StatusInputs): StatusReport {
  const since = startOfLocalDay(inputs.nowMs);
  const queue = Object.fromEntries(OPEN_STATUSES.map((s) => [s, 0])) as Record<(typeof OPEN_STATUSES)[number], number>;
  const counts: Partial<Record<DraftStatus, number>> = {};
  let total = 0;
  for (const d of inputs.drafts) {
    total++;
    if (d.status in queue) queue[d.status as keyof typeof queue]++;
    if (Date.parse(d.updated_at) >= since) counts[d.status] = (counts[d.status] ?? 0) + 1;
  }
  return {
    mode: inputs.mode,
    now: new Date(inputs.nowMs).toISOString(),
    kill_switch: inputs.killSwitch,
    queue,
    today: { since: new Date(since).toISOString(), counts: sortedCounts(counts) },
    drafts_total: total,
    digest_hour: inputs.digestHour,
    callbacks: inputs.callbacks ?? null,
    ...(inputs.lastReactionMs === undefined
      ? {}
      : { last_reaction_at: inputs.lastReactionMs === null ? null : new Date(inputs.lastReactionMs).toISOString() }),
    ...(inputs.business === undefined ? {} : { business: inputs.business }),
    ...(inputs.warnings === undefined || inputs.warnings.length === 0 ? {} : { warnings: inputs.warnings }),
  };
}

function sortedCounts(counts: Partial<Record<DraftStatus, number>>): Partial<Record<DraftStatus, number>> {
  return Object.fromEntries(STATUSES.filter((s) => counts[s] !== undefined).map((s) => [s, counts[s]]));
}

/** One line about the kill switch, with its reason when halted. */
export function killSwitchLine(state: KillSwitchState): string {
  return state.halted ? `⛔ Sends HALTED: ${state.reason}` : "✅ Sends enabled";
}

/** The report as text for a person (the review chat and the CLI). */
export function statusText(report: StatusReport): string {
  const q = report.queue;
  const today = Object.entries(report.today.counts).map(([s, n]) => `${n} ${s}`);
  return [
    `draft-review (${report.mode} mode)`,
    killSwitchLine(report.kill_switch),
    `Awaiting a decision: ${q.pending} pending, ${q.deferred} deferred, ${q.halted} halted`,
    `Queued for the review chat: ${q.queued} · being sent: ${q.approved + q.sending}`,
    `Today (since ${localMinute(Date.parse(report.today.since))}): ${today.length > 0 ? today.join(", ") : "nothing yet"}`,
    `Daily digest: ${report.digest_hour === null ? "off (set DIGEST_HOUR)" : `at ${String(report.digest_hour).padStart(2, "0")}:00`}`,
    ...(report.callbacks ? [callbacksLine(report.callbacks)] : []),
    ...(report.last_reaction_at === undefined ? [] : [reactionLine(report.last_reaction_at)]),
    ...(report.business === undefined ? [] : [businessLine(report.business)]),
    ...(report.warnings ?? []).map((w) => `⚠️ ${w}`),
  ].join("\n");
}

/**
 * The report as the review chat shows it: statusText's lines, each time under
 * a date_time entity (the client shows it in its own zone and form), as on
 * every other message of the bot's.
 */
export function statusMessage(report: StatusReport): TimedText {
  const text = statusText(report);
  const mark = (iso: string | null | undefined, before: string) =>
    iso == null
      ? []
      : [{ mark: { text: localMinute(Date.parse(iso)), unixTime: Math.floor(Date.parse(iso) / 1000), format: "wdt" as const }, before }];
  const marks = [
    ...mark(report.today.since, "Today (since "),
    ...mark(report.last_reaction_at, "Last reaction received: "),
    ...mark(report.callbacks?.next_attempt_at, "(next try "),
  ];
  return { text, entities: timeEntitiesIn(text, marks) };
}

/**
 * When a reaction last reached the daemon. Telegram may not deliver reactions
 * to a bot (reliably only where it is an administrator; in a private chat with
 * a bot they often never arrive), so "none" comes with what to do instead.
 */
export function reactionLine(lastReactionAt: string | null): string {
  if (lastReactionAt !== null) return `Last reaction received: ${localMinute(Date.parse(lastReactionAt))}`;
  return "Last reaction received: none since the start. If 👍 seems to do nothing, Telegram is not delivering reactions here: use the buttons, or a private group where the bot is admin.";
}

/** One line about push callbacks: the backlog, and the last error while it lasts. */
export function callbacksLine(c: CallbackStatus): string {
  const waiting = c.backlog === 0 ? "all delivered" : `${c.backlog} waiting`;
  const error =
    c.last_error === null
      ? ""
      : ` · last error: ${c.last_error}${c.next_attempt_at ? ` (next try ${localMinute(Date.parse(c.next_attempt_at))})` : ""}`;
  const warning = c.warning ? `\n⚠️ ${c.warning}` : "";
  return `Callbacks to ${c.url}: ${waiting} (acknowledged up to #${c.acked_seq})${error}${warning}`;
}

/** One line about the owner's Telegram Business connection: whether drafts can go out as him, and its rights. */
export function businessLine(b: BusinessStatus): string {
  if (!b.connected) {
    return "Telegram Business: not connected: drafts go out as the bot only (to send as you: Settings → Telegram Business → Chatbots, add this bot)";
  }
  const reply = b.can_reply ? "can reply ✅" : "can reply ❌ (give it the right to reply to messages)";
  const chats = `${b.open_chats} chat${b.open_chats === 1 ? "" : "s"} open (wrote in the last 24 h)`;
  return `Telegram Business: connected to ${b.user_name ?? b.user_id} · ${reply} · ${chats}`;
}
