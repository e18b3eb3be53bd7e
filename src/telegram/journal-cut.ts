import type { CutTail } from "../store/jsonl-store.js";

/**
 * A damaged end of the update journal, cut off at start, and what it may
 * have cost. An interrupted write (an unterminated last line) never costs a
 * decision: the journal writes a fetched batch before the fetch returns, so
 * Telegram had not confirmed what a crash tore, and delivers it again. A
 * whole line damaged after it was written is another matter: Telegram may
 * have confirmed its update already (the next getUpdates asked past it), and
 * then never delivers it again, so the decision in it is lost. Which updates
 * it held is read from the damaged bytes as far as they still tell; whether
 * Telegram still has them is seen from the first getUpdates at start.
 */

/** What the cut held, as far as its bytes tell. */
export interface JournalCut {
  /** Why it was cut, with its first line number (the store's words). */
  readonly reason: string;
  readonly bytes: number;
  /** False for an interrupted write only (an unterminated tail): nothing acknowledged was in it. */
  readonly damagedAfterWrite: boolean;
  /** Updates it named that the journal no longer holds at all (their bodies were in the cut). */
  readonly missingUpdateIds: readonly number[];
  /** True when no update id could be read from it. */
  readonly unreadable: boolean;
  /** Message ids it named (review posts a tap was on, among others): to tell which drafts. */
  readonly messageIds: readonly number[];
  /** The highest update id the journal still holds, or null. */
  readonly lastKnownUpdateId: number | null;
}

/** Reads what a cut tail of the journal held: `known` says whether the journal still holds an update. */
export function readJournalCut(cut: CutTail, known: (updateId: number) => boolean, lastKnownUpdateId: number | null): JournalCut {
  const text = cut.head.toString("latin1");
  // Telegram's update ids are positive: 0 is the journal's note of the last poll (update-journal.ts), which holds no tap.
  const ids = numbersAfter(text, "update_id").filter((id) => id > 0);
  return {
    reason: cut.reason,
    bytes: cut.bytes,
    damagedAfterWrite: cut.complete,
    missingUpdateIds: ids.filter((id) => !known(id)),
    unreadable: ids.length === 0 && !text.includes('"draft_id":"polled"'),
    messageIds: numbersAfter(text, "message_id"),
    lastKnownUpdateId,
  };
}

/** The distinct numbers that follow `"<key>":` in `text`. */
function numbersAfter(text: string, key: string): number[] {
  const out = new Set<number>();
  for (const m of text.matchAll(new RegExp(`"${key}":(\\d{1,15})`, "g"))) out.add(Number(m[1]));
  return [...out];
}

/** Whether a decision was lost: `no`, `yes` (these updates), or `maybe` (the cut could not be read). */
export type JournalLoss =
  | { readonly lost: "no"; readonly why: string }
  | { readonly lost: "yes"; readonly updateIds: readonly number[] }
  | { readonly lost: "maybe" };

/**
 * Judges the cut against the first updates Telegram delivered at start
 * (`firstDelivered`: the lowest update id of the first getUpdates page, null
 * when Telegram had none): an update it no longer delivers was confirmed.
 */
export function judgeJournalCut(cut: JournalCut, firstDelivered: number | null): JournalLoss {
  if (!cut.damagedAfterWrite)
    return { lost: "no", why: "an interrupted write: Telegram had not confirmed what it held and delivers it again" };
  const confirmed = (id: number) => firstDelivered === null || id < firstDelivered;
  if (!cut.unreadable) {
    const lost = cut.missingUpdateIds.filter(confirmed);
    return lost.length > 0
      ? { lost: "yes", updateIds: lost }
      : { lost: "no", why: "every update it held is still in the journal or was delivered again by Telegram" };
  }
  // Unreadable: Telegram still having every update after the last one the journal holds proves nothing was lost.
  if (cut.lastKnownUpdateId !== null && firstDelivered === cut.lastKnownUpdateId + 1) {
    return { lost: "no", why: "Telegram delivered again every update after the last one the journal holds" };
  }
  return { lost: "maybe" };
}

/** The drafts a lost tap may have been about: those whose (live or replaced) post the cut named, else every one awaiting a decision. */
export function draftsOfLostTap<D extends { review_message_id: number | null; superseded_posts?: readonly number[]; status: string }>(
  cut: JournalCut,
  drafts: readonly D[],
  awaiting: (d: D) => boolean,
): { readonly named: boolean; readonly drafts: D[] } {
  const ids = new Set(cut.messageIds);
  const named = drafts.filter(
    (d) => (d.review_message_id !== null && ids.has(d.review_message_id)) || (d.superseded_posts ?? []).some((m) => ids.has(m)),
  );
  return named.length > 0 ? { named: true, drafts: named } : { named: false, drafts: drafts.filter(awaiting) };
}

/** What the review chat is told of a lost (or maybe lost) tap: which drafts, and that he may need to decide again. */
export function journalLossText(
  loss: Exclude<JournalLoss, { lost: "no" }>,
  drafts: { readonly named: boolean; readonly list: string },
): string {
  const what =
    loss.lost === "yes"
      ? "It held a tap Telegram had already confirmed, so Telegram will not deliver it again: the decision in it is lost."
      : "Its damaged line could not be read, and Telegram no longer has what came after the journal's last update: a tap made just before the stop may be lost.";
  const which =
    drafts.list === ""
      ? "No draft awaits a decision now."
      : drafts.named
        ? `It was about:\n${drafts.list}`
        : `It may have been about one of the drafts awaiting a decision:\n${drafts.list}`;
  return `⚠️ A decision of yours may not have been applied. The update journal (updates.jsonl) had a damaged last line, cut off at this start. ${what}\n${which}\nIf you had decided, decide again.`;
}
