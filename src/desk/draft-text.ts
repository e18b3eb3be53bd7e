import { TELEGRAM_TEXT_LIMIT } from "../drafts/payload.js";
import { isEmptyForTelegram, trimLikeTelegram } from "../drafts/telegram-text.js";
import type { RedactionSummary } from "../drafts/record.js";
import { textSha256 } from "../send/approval.js";
import { keptRedaction } from "../drafts/keep-removed.js";
import { reviewParts } from "../drafts/text-parts.js";

/** Redaction as the intake applies it: the text to review and send, and what was removed. */
export type Redactor = (text: string) => { text: string; removed: Partial<Record<string, number>>; hints?: string[] };

export { trimLikeTelegram } from "../drafts/telegram-text.js";

/** A draft text ready to review and send, or why it cannot be one. */
export type PreparedText =
  | {
      readonly ok: true;
      readonly text: string;
      readonly textSha256: string;
      readonly redaction: RedactionSummary;
      /** The trimmed text before redaction, when redaction changed it: kept aside for "🔓 Keep the removed items". */
      readonly unredacted?: string;
    }
  | { readonly ok: false; readonly reason: "empty" | "too_long"; readonly error: string };

/**
 * The one way a text becomes a draft's text, for a submitted payload and for a
 * reviewer's edit alike: trimmed as Telegram trims, redacted once (so the
 * reviewer approves exactly what will be sent), and within Telegram's limit of
 * 4096 UTF-16 code units after redaction.
 */
export function prepareDraftText(raw: string, redact: Redactor | null, longAllowed = false): PreparedText {
  const trimmed = trimLikeTelegram(raw);
  if (isEmptyForTelegram(trimmed)) return { ok: false, reason: "empty", error: "is empty" };
  const redacted = redact?.(trimmed) ?? null;
  const text = redacted?.text ?? trimmed;
  // Linear, email, Slack: their own limit was checked on the payload; the review post shows a longer text in parts.
  if (longAllowed && text.length > TELEGRAM_TEXT_LIMIT && reviewParts(text) === null) {
    return {
      ok: false,
      reason: "too_long",
      error: "cannot be shown in review messages exactly as it would be sent (whitespace throughout a stretch of 4096)",
    };
  }
  if (!longAllowed && text.length > TELEGRAM_TEXT_LIMIT) {
    const after = redacted ? " after PII redaction" : "";
    return {
      ok: false,
      reason: "too_long",
      error: `is ${text.length} UTF-16 code units long${after}; Telegram allows ${TELEGRAM_TEXT_LIMIT}`,
    };
  }
  const redaction: RedactionSummary = redacted
    ? {
        mode: "redact",
        removed: Object.fromEntries(Object.entries(redacted.removed).filter(([, n]) => (n ?? 0) > 0)) as Record<string, number>,
        ...(redacted.hints && redacted.hints.length > 0 ? { hints: redacted.hints } : {}),
      }
    : { mode: "off", removed: {} };
  return { ok: true, text, textSha256: textSha256(text), redaction, ...(text === trimmed ? {} : { unredacted: trimmed }) };
}

/**
 * True when a draft's text may be longer than one Telegram message: it goes only to Linear, email or Slack
 * (a Telegram chat among its destinations holds it to Telegram's limit); the post shows it in parts.
 */
export function mayBeLong(d: {
  readonly destination?: unknown;
  readonly destinations?: readonly { channel: string }[] | null;
  readonly choices?: readonly { destination: unknown }[] | null;
}): boolean {
  if (d.destinations) return d.destinations.every((x) => x.channel !== "telegram");
  if (d.choices) return d.choices.every((c) => c.destination !== null);
  return d.destination !== null && d.destination !== undefined;
}

/**
 * A reviewer's ✏️ text as a draft's text: trimmed and checked as at intake,
 * but not redacted (contract v3: the reviewer's own text is his; a number he
 * puts back stays). Its redaction summary says whose text it is.
 */
export function prepareReviewerText(raw: string): PreparedText {
  const prepared = prepareDraftText(raw, null);
  return prepared.ok ? { ...prepared, redaction: { mode: "reviewer", removed: {} } } : prepared;
}

/**
 * The text kept aside at intake, as the version "🔓 Keep the removed items"
 * makes of it: checked as at intake (with its items it may pass Telegram's
 * limit), not redacted, its summary saying the reviewer restored it.
 */
export function prepareKeptText(unredacted: string, before: RedactionSummary | null, longAllowed = false): PreparedText {
  const prepared = prepareDraftText(unredacted, null, longAllowed);
  return prepared.ok ? { ...prepared, redaction: keptRedaction(before) } : prepared;
}
