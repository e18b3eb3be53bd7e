import type { DraftRecord } from "../drafts/record.js";
import { AWAITING_DECISION } from "../drafts/status.js";
import type { Logger } from "../log/logger.js";
import { draftBullets } from "../telegram/draft-naming.js";
import { draftsOfLostTap, journalLossText, judgeJournalCut, type JournalCut } from "../telegram/journal-cut.js";

/** What telling a lost tap needs. */
export interface JournalLossDeps {
  /** What the update journal cut off at open (UpdateJournal.cut). */
  readonly cut: JournalCut | null;
  /** The lowest update id of the first getUpdates at start, or null when Telegram had none. */
  readonly firstDelivered: number | null;
  readonly drafts: () => readonly DraftRecord[];
  /** Posts in the review chat (TelegramReviewChat.say). */
  readonly say: (text: string) => Promise<unknown>;
  readonly log: Pick<Logger, "info" | "warn" | "error">;
}

/**
 * At start, once Telegram's queue was read: a damaged journal line whose tap
 * Telegram had already confirmed is a decision lost. The log says what is
 * true (lost, maybe lost, or nothing lost and why); the review chat is told
 * which drafts (as far as the damaged bytes tell) and that he may need to
 * decide again. The journal was cut at open, so a later start says nothing.
 */
export async function tellJournalLoss(deps: JournalLossDeps): Promise<void> {
  if (deps.cut === null) return;
  const loss = judgeJournalCut(deps.cut, deps.firstDelivered);
  if (loss.lost === "no") {
    deps.log.info({ reason: deps.cut.reason }, `the update journal's cut end cost no decision: ${loss.why}`);
    return;
  }
  const about = draftsOfLostTap(deps.cut, deps.drafts(), (d) => AWAITING_DECISION.has(d.status) && d.review_message_id !== null);
  const list = draftBullets(about.drafts, (d) => (about.named ? ` (${d.status})` : ""));
  deps.log.warn(
    {
      update_ids: loss.lost === "yes" ? loss.updateIds : null,
      draft_ids: about.named ? about.drafts.map((d) => d.draft_id) : null,
    },
    loss.lost === "yes"
      ? "the update journal's damaged last line held a tap Telegram had already confirmed: its decision is lost; the review chat is told"
      : "the update journal's damaged last line could not be read and Telegram no longer has what came after the journal: a decision may be lost; the review chat is told",
  );
  await deps
    .say(journalLossText(loss, { named: about.named, list }))
    .catch((err: unknown) => deps.log.error({ err }, "could not tell the review chat that a decision may be lost"));
}
