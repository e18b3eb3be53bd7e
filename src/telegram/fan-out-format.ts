/**
 * The words and buttons of a draft sent to any of several destinations
 * (`choose: "any"`, contract v5): a toggle per destination, on at first; one
 * 👍 that sends to those on; then each delivery's outcome, one per line.
 * Apart from review-format.ts and review-buttons.ts, which call it, so the
 * choice's words live in one place.
 */
import type { InlineKeyboardButton } from "grammy/types";
import { withChoice, type Delivery } from "../drafts/choices.js";
import { allOn, fanOutTargets, madeDeliveries } from "../drafts/fan-out.js";
import type { ConfirmNeed } from "../drafts/decide.js";
import type { DraftRecord } from "../drafts/record.js";
import { audienceLine, shortDestination } from "./audience-text.js";

/** Callback data of destination `index`'s toggle. */
export function toggleData(index: number, draftId: string): string {
  return `v1:tg${index}:${draftId}`;
}

/** What a delivery's line says of it. */
function outcomeText(x: Delivery): string {
  switch (x.status) {
    case "sent":
      return `✅ sent${whereSent(x)}`;
    case "failed":
      return `❌ not sent: ${x.reason ?? "refused"}`;
    case "outcome_unknown":
      return `⚠️ outcome unknown (${x.reason ?? "no answer"}); not retried, check it`;
    case "halted":
      return "⛔ not sent (halted)";
    case "expired":
      return "⌛ not sent (expired)";
    case "sending":
      return "📤 sending";
    default:
      return "⏳ waiting its turn";
  }
}

/** Where a delivery to Linear, email or Slack can be found: its link, or the email's Message-ID; empty for Telegram. */
function whereSent(x: Delivery): string {
  const link = x.sent_ref?.url ?? x.sent_ref?.permalink ?? null;
  if (typeof link === "string" && link !== "") return ` ${link}`;
  return typeof x.sent_ref?.message_id === "string" ? ` Message-ID ${x.sent_ref.message_id}` : "";
}

/** The destinations on, as the post shows them ("1, 3"), or "none". */
export function onList(draft: DraftRecord): string {
  const on = draft.chosen_set ?? allOn(draft);
  return on.length === 0 ? "none" : on.join(", ");
}

/**
 * The header's first lines: the role, how to choose, then each destination
 * numbered with who reads it and its toggle's state, or once approved its
 * delivery's outcome.
 */
export function fanOutLines(draft: DraftRecord): string {
  const choices = draft.choices ?? [];
  const on = new Set(draft.chosen_set ?? allOn(draft));
  const how =
    draft.deliveries.length > 0 ? "each delivery below" : `tap a destination to turn it on or off; 👍 sends to those on: ${onList(draft)}`;
  const lines = [`✏️ DRAFT (${draft.drafted_by_role}) — send to any of ${choices.length} destinations (${how}):`];
  for (const c of choices) {
    const view = withChoice(draft, c.index) ?? draft;
    const delivery = draft.deliveries.find((x) => x.index === c.index);
    const state = delivery !== undefined ? outcomeText(delivery) : on.has(c.index) ? "✅ on" : "⬜ off";
    const rec = c.index === 1 ? " ⭐ recommended" : "";
    // The state first: a destination on another channel says who reads it over several lines.
    lines.push(`${c.index}. ${state}${rec} — ${audienceLine(view)}`);
  }
  return lines.join("\n");
}

/** The status line of a fan-out that is over, or halted in the middle: which went and which did not. Null for any other. */
export function fanOutStatusLine(draft: DraftRecord): string | null {
  if (draft.choose !== "any" || draft.deliveries.length === 0) return null;
  const list = (pick: (x: Delivery) => boolean) =>
    draft.deliveries
      .filter(pick)
      .map((x) => `${x.index} · ${shortDestination(withChoice(draft, x.index) ?? draft)}`)
      .join(", ");
  const went = list((x) => x.status === "sent");
  const not = list((x) => x.status !== "sent");
  switch (draft.status) {
    case "sent":
      return `✅ Sent to ${went}.`;
    case "partly_sent":
      return `◐ Partly sent: sent to ${went}; not to ${not} (see each line below).`;
    case "failed":
      return `❌ Not sent to any destination (see each line below).`;
    case "outcome_unknown":
      return `⚠️ Outcome unknown for ${list((x) => x.status === "outcome_unknown")}: not retried; check there. Nothing else went.`;
    case "halted":
      return madeDeliveries(draft).length === 0 ? null : haltedMidLines(draft, list);
    default:
      return null;
  }
}

/**
 * A halt in the middle of a fan-out, line by line: why, which went, which
 * ended otherwise, which it stopped (numbered as on the post), and what the
 * owner can do: 👍 Send the rest once the halt is over (only those stopped),
 * or 👎 to leave it at what went.
 */
function haltedMidLines(draft: DraftRecord, list: (pick: (x: Delivery) => boolean) => string): string {
  const reason = draft.reason ?? "the kill switch is on";
  const stopped = draft.deliveries.filter((x) => x.status === "halted").map((x) => x.index);
  const notSent = list((x) => x.status === "failed" || x.status === "outcome_unknown");
  const rest = `it sends ${stopped.join(", ")} only`;
  const next = draft.halt_lasts
    ? `👍 Send the rest comes back here when the halt ends (${rest}); 👎 leaves it at what went.`
    : /^kill switch/.test(reason)
      ? `The halt is over: 👍 Send the rest (${rest}); a 👍 reaction given before does not count. 👎 leaves it at what went.`
      : `👍 Send the rest (${rest}) once that is fixed; 👎 leaves it at what went.`;
  return [
    `⛔ Halted in the middle: ${reason}.`,
    `✅ Went: ${list((x) => x.status === "sent") || "none"}`,
    ...(notSent === "" ? [] : [`❌ Not sent: ${notSent} (see its line below)`]),
    `⛔ Stopped: ${list((x) => x.status === "halted")}`,
    next,
  ].join("\n");
}

/** The buttons above ❌ Revise: a toggle per destination (none once some went), then one 👍 for those on. */
export function fanOutButtons(draft: DraftRecord): InlineKeyboardButton[][] {
  const fixed = madeDeliveries(draft).length > 0;
  const on = new Set(draft.chosen_set ?? allOn(draft));
  const toggles = fixed
    ? []
    : (draft.choices ?? []).map((c) => {
        const view = withChoice(draft, c.index) ?? draft;
        return [
          {
            text: `${on.has(c.index) ? "✅" : "⬜"} ${c.index} · ${shortDestination(view)}`,
            callback_data: toggleData(c.index, draft.draft_id),
          },
        ];
      });
  const label = fixed ? "👍 Send the rest" : on.size === 0 ? "👍 Send (turn one on first)" : `👍 Send to ${onList(draft)}`;
  const send = { text: label, callback_data: `v1:send:${draft.draft_id}`, style: "success" } as InlineKeyboardButton;
  return [...toggles, [send]];
}

/**
 * The confirmation question of a fan-out (choose any): every destination on
 * that asks the extra tap, numbered as on the post, each with why; then that
 * the tap sends to every destination on. Null for any other draft.
 */
export function fanOutConfirmText(draft: DraftRecord, needs: readonly ConfirmNeed[]): string | null {
  if (draft.choose !== "any" || draft.choices === null || needs.length === 0) return null;
  const name = (index: number) => `${index} · ${shortDestination(withChoice(draft, index) ?? draft)}`;
  const asked = needs.map((n) => name(n.index));
  const listed = asked.length === 1 ? asked[0] : `${asked.slice(0, -1).join(", ")} and ${asked.at(-1)}`;
  return [
    `Send to ${listed}? ${needs.length === 1 ? "It asks" : "Each asks"} one more tap:`,
    ...needs.map((n) => `${name(n.index)}: ${n.reasons.join("; ")}`),
    `Your tap sends to every destination on: ${fanOutTargets(draft)
      .map((t) => name(t.chosen ?? 1))
      .join(", ")}.`,
  ].join("\n");
}
