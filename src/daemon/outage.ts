import type { DraftRecord } from "../drafts/record.js";
import type { Logger } from "../log/logger.js";
import { outageText, type Outage } from "../telegram/outage-text.js";

/** What telling an outage needs. */
export interface OutageDeps {
  readonly outage: Outage;
  /** Every draft, after recovery expired those whose time ran out meanwhile. */
  readonly drafts: () => readonly DraftRecord[];
  /** Posts in the review chat (TelegramReviewChat.say). */
  readonly say: (text: string) => Promise<unknown>;
  readonly timeZone?: string | undefined;
  readonly log: Pick<Logger, "warn" | "error">;
}

/**
 * At start, after an outage longer than Telegram keeps a tap (see
 * outageAtStart: measured from the update journal's note of the last
 * getUpdates Telegram answered): one message in the review chat, and a log
 * line. Once: the next getUpdates writes a new note, so a restart right after
 * finds no outage.
 */
export async function tellOutage(deps: OutageDeps): Promise<void> {
  const { outage } = deps;
  const since = new Date(outage.since).toISOString();
  const expired = deps.drafts().filter((d) => d.status === "expired" && d.expired_while_down?.since === since);
  deps.log.warn(
    { since, until: new Date(outage.until).toISOString(), expired: expired.map((d) => d.draft_id) },
    "the daemon was down (or could not reach Telegram) longer than Telegram keeps a tap (24 h): taps from before then may be lost; the review chat is told",
  );
  await deps
    .say(outageText(outage, expired, deps.timeZone))
    .catch((err: unknown) => deps.log.error({ err }, "could not tell the review chat about the outage"));
}
