import { audienceFingerprint, sendIdentity } from "./audience.js";
import { withChoice, type Delivery } from "./choices.js";
import type { Effect } from "./effects.js";
import type { DraftRecord } from "./record.js";
import { senderKindOf } from "./sender.js";
import type { DraftStatus } from "./status.js";
import { iso, next, ok, refuse, type EventOf, type Handler, type RefusalReason, type TransitionResult } from "./transition-kit.js";

// `choose: "any"` (contract v5, "The recipients he picks"): the owner turns
// destinations on and off with toggles, and one 👍 sends to every one that is
// on, one delivery after another. Each delivery has its own status; the draft
// goes through the send path once per delivery, its destination fields those
// of the delivery under way (withChoice), so the send path, its limits, its
// audience re-check and its lookup after a lost answer never know there are
// several. Pure, like the machine.

/** A delivery that is over: it went, it was refused, or nobody can tell. */
const MADE: ReadonlySet<string> = new Set(["sent", "failed", "outcome_unknown"]);

/** True for a draft whose owner picks any of its destinations (toggles). */
export function isFanOut(d: Pick<DraftRecord, "choose" | "choices">): boolean {
  return d.choose === "any" && d.choices !== null;
}

/** The deliveries that are over (went, refused, unknown): never made again. */
export function madeDeliveries(d: Pick<DraftRecord, "deliveries">): Delivery[] {
  return d.deliveries.filter((x) => MADE.has(x.status));
}

/** Every destination on: the set a post starts with, and an ✏️ edit asks for again. */
export function allOn(d: Pick<DraftRecord, "choices">): number[] {
  return (d.choices ?? []).map((c) => c.index);
}

/**
 * A toggle on the post: destination `e.destination` flips on or off, bound
 * like a decision to what the post showed. Refused once a delivery was made
 * (a halt in the middle of a fan-out): the rest goes where the approval said.
 */
export const toggle: Handler<"toggle"> = (d, e, now) => {
  if (!isFanOut(d)) return refuse(d, "not_applicable");
  if (now >= Date.parse(d.expires_at)) return refuse(d, "expired");
  if (e.textVersion !== undefined && e.textVersion !== d.text_version) return refuse(d, "outdated_version");
  if (e.audience !== undefined && e.audience !== audienceFingerprint(d)) return refuse(d, "outdated_audience");
  if (!allOn(d).includes(e.destination)) return refuse(d, "not_a_choice");
  if (madeDeliveries(d).length > 0) return refuse(d, "destinations_fixed");
  const on = d.chosen_set ?? allOn(d);
  const set = on.includes(e.destination) ? on.filter((i) => i !== e.destination) : [...on, e.destination].sort((a, b) => a - b);
  const draft = next(d, now, { chosen_set: set, set_changed_at: iso(now) });
  return ok(draft, { type: "show_status", draftId: d.draft_id });
};

/**
 * The draft a 👍 on a fan-out approves: the destinations it sends to (those
 * on, or after a halt mid fan-out, those not yet made), each an `approved`
 * delivery, the draft's destination fields those of the first. A refusal when
 * none is on, when the 👍 is dated before the post showed the set it has now
 * (a reaction or reply made on an older version of the post: stale), or when a
 * button or number names one destination (that is choose one's).
 */
export function approveFanOut(d: DraftRecord, e: EventOf<"decide">): DraftRecord | RefusalReason {
  if (e.destination != null) return "not_a_choice";
  if (e.actedAt != null && d.set_changed_at !== null && datedBefore(e.actedAt, Date.parse(d.set_changed_at))) return "outdated_audience";
  const made = madeDeliveries(d);
  const targets = made.length > 0 ? d.deliveries.filter((x) => !MADE.has(x.status)).map((x) => x.index) : (d.chosen_set ?? allOn(d));
  const first = targets[0];
  if (first === undefined) return "no_destination_on";
  const approved = targets.map((index): Delivery => ({ index, status: "approved", sent_ref: null, reason: null }));
  const deliveries = [...made, ...approved].sort((a, b) => a.index - b.index);
  return { ...withChoice(d, first)!, deliveries, send_reference: null };
}

/**
 * True when an action Telegram dated `actedAt` (whole seconds) was made before
 * `at`: its whole second ended by then. One dated in the same second is not
 * known to be earlier; the post's surface, edited only once Telegram showed
 * the new set, judges it.
 */
function datedBefore(actedAt: number, at: number): boolean {
  return actedAt + 1000 <= at;
}

/** The destinations a 👍 on `d` would send to, each as the draft would go there: a confirmation is asked when any needs it. */
export function fanOutTargets(d: DraftRecord): DraftRecord[] {
  const made = new Set(madeDeliveries(d).map((x) => x.index));
  const targets = made.size > 0 ? d.deliveries.filter((x) => !made.has(x.index)).map((x) => x.index) : (d.chosen_set ?? allOn(d));
  return targets.map((i) => withChoice(d, i)).filter((x): x is DraftRecord => x !== null);
}

/** The deliveries with delivery `index` changed. */
function withDelivery(d: DraftRecord, index: number | null, change: Partial<Delivery>): Delivery[] {
  return d.deliveries.map((x) => (x.index === index ? { ...x, ...change } : x));
}

/** The delivery under way is being sent: its intent is on disk (send_intent). */
export function deliverySending(d: DraftRecord): Partial<DraftRecord> {
  return isFanOut(d) ? { deliveries: withDelivery(d, d.chosen, { status: "sending" }) } : {};
}

/** A send that provably did not go (a 429, a refused connection): its delivery waits again for the send path's retry. */
export function deliveryWaiting(d: DraftRecord): Partial<DraftRecord> {
  return isFanOut(d) ? { deliveries: withDelivery(d, d.chosen, { status: "approved" }) } : {};
}

/** An approved fan-out that expired before any delivery was made: each delivery says so. */
export function deliveriesExpired(d: DraftRecord): Partial<DraftRecord> {
  if (!isFanOut(d)) return {};
  return { deliveries: d.deliveries.map((x) => (MADE.has(x.status) ? x : { ...x, status: "expired", reason: "not sent: expired" })) };
}

/**
 * A halt stops every delivery not yet made; the post says which went. Before
 * any was made nothing is fixed: no delivery is left, and the toggles choose again.
 */
export function deliveriesHalted(d: DraftRecord): Partial<DraftRecord> {
  if (!isFanOut(d)) return {};
  if (madeDeliveries(d).length === 0) return { deliveries: [] };
  return { deliveries: d.deliveries.map((x) => (MADE.has(x.status) ? x : { ...x, status: "halted", reason: null })) };
}

/**
 * An undone approval (↩️ within its window, or a change of mind): nothing
 * was made since, so the deliveries are as before the 👍: none, or after a
 * halt mid fan-out, the made ones and the rest halted.
 */
export function deliveriesUndone(d: DraftRecord): Partial<DraftRecord> {
  if (!isFanOut(d)) return {};
  const made = madeDeliveries(d);
  return { deliveries: made.length === 0 ? [] : d.deliveries.map((x) => (MADE.has(x.status) ? x : { ...x, status: "halted" })) };
}

/** The draft's final status from its deliveries: `sent` when all went, `partly_sent` when some did, else `outcome_unknown` or `failed`. */
export function fanOutStatus(deliveries: readonly Delivery[]): DraftStatus {
  const sent = deliveries.filter((x) => x.status === "sent").length;
  if (sent === deliveries.length) return "sent";
  if (sent > 0) return "partly_sent";
  return deliveries.some((x) => x.status === "outcome_unknown") ? "outcome_unknown" : "failed";
}

/** How one delivery ended, as the send path reported it. */
export interface DeliveryEnd {
  readonly status: "sent" | "failed" | "outcome_unknown";
  readonly sentRef: DraftRecord["sent_ref"];
  readonly reason: string | null;
  readonly effects: readonly Effect[];
  /** Telegram's message id of a delivery that went there (the record keeps the last one, as a single send does). */
  readonly messageId?: number | null;
}

/**
 * One delivery of a fan-out ended: recorded, then the next one that waits is
 * handed to the send path (the draft `approved` again, its destination that
 * one's, its send reference new); when none waits, the draft is final
 * (fanOutStatus). The approval covers every destination it was given for:
 * the next delivery's identity is the approved choice's own.
 */
export function deliveryEnded(d: DraftRecord, end: DeliveryEnd, now: number): TransitionResult {
  const deliveries = withDelivery(d, d.chosen, { status: end.status, sent_ref: end.sentRef, reason: end.reason });
  const firstSent = deliveries.find((x) => x.status === "sent");
  const sentFields =
    firstSent === undefined ? {} : { sent_ref: firstSent.sent_ref, sent_at: d.sent_at ?? iso(now), sent_as: senderKindOf(d) };
  const messageId = end.messageId == null ? {} : { sent_message_id: end.messageId };
  const waiting = deliveries.find((x) => x.status === "approved");
  const show: Effect = { type: "show_status", draftId: d.draft_id };
  if (waiting !== undefined) {
    const moved = withChoice(d, waiting.index)!;
    const approval = d.approval === null ? null : { ...d.approval, identity: sendIdentity(moved) };
    const draft = next(moved, now, {
      ...sentFields,
      ...messageId,
      status: "approved",
      deliveries,
      approval,
      send_reference: null,
      reason: null,
    });
    return ok(draft, show, ...end.effects, { type: "send", draftId: d.draft_id });
  }
  const status = fanOutStatus(deliveries);
  const reason =
    status === "sent"
      ? null
      : deliveries
          .filter((x) => x.reason !== null)
          .map((x) => `${x.index}: ${x.reason}`)
          .join("; ") || null;
  const draft = next(d, now, { ...sentFields, ...messageId, status, deliveries, reason });
  return ok(draft, show, ...end.effects);
}

/**
 * A fan-out halted after some deliveries were made that expires, or is sent
 * back: final as its deliveries say (the ones not made count as not sent).
 */
export function endedUnmade(d: DraftRecord, now: number, why: string): DraftRecord | null {
  if (!isFanOut(d) || madeDeliveries(d).length === 0) return null;
  const deliveries = d.deliveries.map((x) => (MADE.has(x.status) ? x : { ...x, status: "failed", reason: why }));
  return next(d, now, { status: fanOutStatus(deliveries), deliveries, approval: null, send_after: null });
}

/** The events that concern one delivery of a fan-out. */
const DELIVERY_EVENTS: ReadonlySet<string> = new Set(["send_intent", "send_retry", "send_ok", "send_failed", "send_unknown"]);

/**
 * The delivery an event of a fan-out concerns, read from the draft after it
 * (contract v5: each event names its delivery's `index`), with its sent_ref
 * once it went; null for any other event or draft. Deliveries are made in
 * the order the post numbers them, so the one an outcome ended is the last made.
 */
export function deliveryOfEvent(d: DraftRecord, eventType: string): Delivery | null {
  if (!isFanOut(d) || !DELIVERY_EVENTS.has(eventType)) return null;
  const ended = eventType === "send_ok" || eventType === "send_failed" || eventType === "send_unknown";
  if (ended) return madeDeliveries(d).at(-1) ?? null;
  return d.deliveries.find((x) => x.index === d.chosen) ?? null;
}
