/**
 * What the channel crash sweep checks after every restart and at the end, and
 * the figures it reports. Each draft's text is unique, so what a service
 * received is matched to its draft by text (and Slack's metadata by draft id):
 * - never twice: no text arrives at a service more than once;
 * - nothing unapproved: every arrival is the text of a draft the owner approved;
 * - Linear and Slack: an approved draft ends `sent`, its `sent_ref` naming the
 *   one comment or message that carries it;
 * - email: an approved draft ends `sent` with the Message-ID that arrived, or
 *   `outcome_unknown` with its Message-ID in the reason (never resent); a kill
 *   before its intent ends `sent`;
 * - 0 lost: every draft is in the store, final or awaiting a decision.
 */
import type { DraftRecord } from "../../../src/drafts/record.js";
import { AWAITING_DECISION, isFinal } from "../../../src/drafts/status.js";
import type { Arrival, SweepChannel } from "./channel-world.js";
import type { SweepPoint } from "./channel-points.js";

/** One draft the sweep submitted. */
export interface SweepDraft {
  readonly channel: SweepChannel;
  readonly draftId: string;
  readonly text: string;
  /** The point its send was killed at; null for a draft the owner never approved. */
  readonly point: SweepPoint | null;
  /** For a draft never approved: what the owner did (nothing, or 👎). */
  readonly decision: "approve" | "none" | "revise";
  /** Its status in the store right after the kill (where the kill landed). */
  statusAtKill: string | null;
  /** Among two destinations (choose one): the place of `channel`'s, which the owner picked; null with one destination. */
  readonly choice: 1 | 2 | null;
}

/** The Message-ID an email sent with this record's reference carries (EMAIL_FROM is at example.com). */
export function messageIdOf(d: DraftRecord): string {
  return `<${d.send_reference}@example.com>`;
}

/** The sweep's findings and figures. */
export class ChannelLedger {
  private readonly found = new Map<string, string>();
  readonly drafts: SweepDraft[] = [];
  /** `<channel>:<point>:<status at the kill>` -> how many kills. */
  readonly kills = new Map<string, number>();
  readonly doubles = new Set<string>();
  readonly unapproved = new Set<string>();
  readonly lost = new Set<string>();
  fallbacks = 0;

  /** Every violation found, one line each. */
  get violations(): string[] {
    return [...this.found.values()];
  }

  /** Records a violation once per `key`. */
  violation(key: string, what: string): void {
    if (!this.found.has(key)) this.found.set(key, what);
  }

  count(key: string): void {
    this.kills.set(key, (this.kills.get(key) ?? 0) + 1);
  }

  /** Checks every draft against the store and what the services received; `final`: the last daemon has stopped. */
  check(store: ReadonlyMap<string, DraftRecord>, arrivals: readonly Arrival[], final: boolean): void {
    const approvedTexts = new Set(this.drafts.filter((d) => d.decision === "approve").map((d) => `${d.channel}\n${d.text}`));
    const seen = new Map<string, number>();
    for (const a of arrivals) {
      const key = `${a.channel}\n${a.text}`;
      seen.set(key, (seen.get(key) ?? 0) + 1);
      if (!approvedTexts.has(key)) {
        this.unapproved.add(key);
        this.violation(`unapproved:${key}`, `${a.channel} received a text no approved draft has: ${JSON.stringify(a.text)}`);
      }
    }
    for (const [key, n] of seen)
      if (n > 1) {
        this.doubles.add(key);
        this.violation(`double:${key}`, `${key.split("\n")[0]} received ${n} times: ${JSON.stringify(key.split("\n")[1])}`);
      }
    for (const d of this.drafts) this.judge(d, store.get(d.draftId), arrivals, final);
  }

  private judge(d: SweepDraft, rec: DraftRecord | undefined, arrivals: readonly Arrival[], final: boolean): void {
    const where = `${d.channel} draft ${d.draftId} (${d.point ?? d.decision}, ${d.statusAtKill ?? "-"} at the kill)`;
    if (rec === undefined) {
      this.lost.add(d.draftId);
      this.violation(`missing:${d.draftId}`, `${where} is not in the store`);
      return;
    }
    const mine = arrivals.filter((a) => a.channel === d.channel && a.text === d.text);
    if (d.decision !== "approve") {
      const expected = d.decision === "revise" ? "revise" : "pending";
      if (rec.status !== expected) this.violation(`unapproved-status:${d.draftId}`, `${where} is ${rec.status}, not ${expected}`);
      return;
    }
    if (!isFinal(rec.status)) {
      if (!final) return;
      if (!AWAITING_DECISION.has(rec.status)) this.lost.add(d.draftId);
      this.violation(`open:${d.draftId}`, `${where} ended ${rec.status}: an approved draft must end sent (or outcome_unknown, email)`);
      return;
    }
    const problem = choiceProblem(d, rec) ?? (d.channel === "email" ? emailProblem(d, rec, mine) : lookedUpProblem(d, rec, mine));
    if (problem !== null) this.violation(`judge:${d.draftId}`, `${where}: ${problem}`);
  }
}

/** Choose one: the pick is recorded, and its one delivery says what the record says. */
function choiceProblem(d: SweepDraft, rec: DraftRecord): string | null {
  if (d.choice === null) return null;
  const expected = [{ index: d.choice, status: rec.status, sent_ref: rec.sent_ref, reason: rec.reason }];
  if (rec.chosen !== d.choice) return `the owner picked destination ${d.choice}; the record says chosen ${rec.chosen}`;
  return JSON.stringify(rec.deliveries) === JSON.stringify(expected)
    ? null
    : `deliveries ${JSON.stringify(rec.deliveries)} do not say the send's end`;
}

/** Linear and Slack: sent, naming the one comment or message that carries the draft. */
function lookedUpProblem(d: SweepDraft, rec: DraftRecord, mine: readonly Arrival[]): string | null {
  if (rec.status !== "sent") return `ended ${rec.status} (${rec.reason}); the service can be asked, so it must end sent`;
  if (mine.length !== 1) return `sent, and the service holds ${mine.length} messages of it`;
  const arrival = mine[0]!;
  const ref = d.channel === "linear" ? rec.sent_ref?.comment_id : rec.sent_ref?.ts;
  if (ref !== arrival.ref) return `sent_ref ${JSON.stringify(rec.sent_ref)} does not name the message that arrived (${arrival.ref})`;
  if (d.channel === "slack" && arrival.draftId !== d.draftId) return `the Slack message's metadata names ${arrival.draftId}`;
  return null;
}

/** Email: sent with the Message-ID that arrived, or outcome_unknown naming it; never before the intent. */
function emailProblem(d: SweepDraft, rec: DraftRecord, mine: readonly Arrival[]): string | null {
  if (mine.length > 1) return `${mine.length} emails arrived`;
  if (rec.status === "sent") {
    if (mine.length !== 1) return "sent, and no email arrived";
    return rec.sent_ref?.message_id === mine[0]!.ref ? null : `sent_ref ${JSON.stringify(rec.sent_ref)}, but ${mine[0]!.ref} arrived`;
  }
  if (rec.status !== "outcome_unknown") return `ended ${rec.status} (${rec.reason})`;
  if (d.statusAtKill === "approved") return "outcome_unknown after a kill before its intent: it should have been sent once";
  if (mine.length === 1 && mine[0]!.ref !== messageIdOf(rec)) return `the email that arrived is ${mine[0]!.ref}, not ${messageIdOf(rec)}`;
  return (rec.reason ?? "").includes(messageIdOf(rec)) ? null : `outcome_unknown without its Message-ID in the reason: ${rec.reason}`;
}
