import type { DraftRecord } from "../drafts/record.js";
import { localMinute, roughDuration, zoneName } from "../clock/local-time.js";
import { draftBullets } from "./draft-naming.js";

/** How long Telegram keeps an update nobody fetched (getUpdates): a tap older than this at the next poll is gone. */
export const TELEGRAM_KEEPS_UPDATES_MS = 24 * 3_600_000;

/** An outage the start found: from the last getUpdates Telegram answered to this start (ms). */
export interface Outage {
  readonly since: number;
  readonly until: number;
}

/** The outage at a start, or null: none recorded before (a new journal), or shorter than Telegram keeps a tap. */
export function outageAtStart(polledBefore: number | null, now: number): Outage | null {
  if (polledBefore === null || now - polledBefore <= TELEGRAM_KEEPS_UPDATES_MS) return null;
  return { since: polledBefore, until: now };
}

/**
 * The one message the review chat gets after such an outage: how long, from
 * when to when, before which time a tap may be lost (absolute, in
 * REVIEW_TIMEZONE), and the drafts that expired meanwhile, named as the
 * owner knows them.
 */
export function outageText(outage: Outage, expired: readonly DraftRecord[], timeZone?: string): string {
  const zone = zoneName(timeZone);
  const lostBefore = outage.until - TELEGRAM_KEEPS_UPDATES_MS;
  const lines = [
    `⚠️ The daemon was down (or could not reach Telegram) for ${roughDuration(outage.until - outage.since)}, ` +
      `from ${localMinute(outage.since)} to ${localMinute(outage.until)} (${zone} time).`,
    `Telegram keeps a tap for 24 h only: a decision you made before ${localMinute(lostBefore)} may be lost; the later ones were applied.`,
  ];
  if (expired.length === 0) lines.push("No draft expired meanwhile.");
  else lines.push(`Expired meanwhile, not sent (submit again where it still matters):\n${draftBullets(expired)}`);
  return lines.join("\n");
}
