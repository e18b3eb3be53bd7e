import type { MessageEntity } from "grammy/types";
import { reviewParts, type TextPart } from "../drafts/text-parts.js";
import { decisionMessage, partsNote } from "./long-post.js";
import { formatDuration } from "../config/duration.js";
import { channelOf } from "../drafts/destination.js";
import { thumbsUpChoice, withChoice } from "../drafts/choices.js";
import type { DraftRecord } from "../drafts/record.js";
import { AWAITING_DECISION } from "../drafts/status.js";
import { TELEGRAM_TEXT_LIMIT } from "../drafts/payload.js";
import { absoluteTime, timeEntitiesIn, timeMark, type TimedText, type TimeMark } from "../clock/local-time.js";
import { hintsText } from "../redact/hints.js";
import { audienceLine, count, shortDestination } from "./audience-text.js";
import { draftEntities, shiftEntities } from "../drafts/draft-entities.js";
import { countInvisible } from "./invisible.js";
import { countdownLine, diffEntities, reviseUndoUntil, versionLines } from "./flow-format.js";
import { answeringBlock, senderLine, senderLineTime } from "../business/sender-text.js";
import { hasRemovedItems, removedItemCount } from "../drafts/keep-removed.js";
import { revisionNoteLine } from "./revision-answer.js";
import { reviewLink } from "../owner/pending-text.js";
import { fanOutLines, fanOutStatusLine } from "./fan-out-format.js";

/** What the review post says besides the draft itself. */
export interface ReviewFormatOptions {
  readonly deferForMs: number;
  /** REVIEW_TIMEZONE; undefined: the process's zone. */
  readonly timeZone?: string;
  /** The injected clock's time, for "in 23 h". */
  readonly now: () => number;
  /** True once the roles a revision note went to acknowledged it (the status says "told", not "queued for"). */
  readonly noteTold?: boolean;
  /**
   * Whether a draft's post shows the legend of reactions (👍 send · 👎 revise · 😴 defer); absent: always. The
   * review chat shows it once a day, not on every post.
   */
  readonly legend?: (draft: DraftRecord) => boolean;
  /** The draft of this id, for a replaced draft's post to name the version that replaced it (absent: named by nothing more). */
  readonly draftById?: (draftId: string) => DraftRecord | undefined;
}

/** A message's text with its entities (never a parse_mode: the draft is data). */
export type FormattedText = TimedText;

/**
 * The review post: one message; or, for a draft too long to share a message
 * with its header, a header message and the draft message posted as a reply
 * to it, in one go. The decision buttons are always on the message that
 * holds the draft, and name its destination.
 */
export type ReviewPostText =
  | { readonly kind: "single"; readonly message: FormattedText }
  | {
      readonly kind: "split";
      readonly header: FormattedText;
      /** The draft's parts before the last, when it is longer than one message (text-parts.ts), each a reply to the header. */
      readonly earlier: readonly FormattedText[];
      /** The message that takes decisions: the draft, or its last part. */
      readonly draft: FormattedText;
    };

/**
 * "🔒 2 items removed: phone ending 678, email at northwind.io. 🔓 Keep them,
 * or add your own to PII_ALLOW.": what redaction removed, recognisable without
 * being shown, and, while the post takes decisions, the one-tap way back (the
 * 🔓 button) and the lasting one (PII_ALLOW, for the owner's own details).
 */
function redactionLine(draft: DraftRecord): string | null {
  const r = draft.redaction;
  if (r === null) return null;
  if (r.mode === "off") return "⚠️ PII redaction is off: the text has not been checked for personal data.";
  // A reviewer's own text (an ✏️ edit, or the items kept) is not redacted: nothing to say here (versionLines says what came back).
  if (r.mode === "reviewer") return null;
  const total = removedItemCount(draft);
  if (total === 0) return null;
  const what =
    r.hints && r.hints.length > 0
      ? hintsText(r.hints)
      : Object.entries(r.removed)
          .filter(([, n]) => n > 0)
          .map(([kind, n]) => `${n} ${kind}`)
          .join(", ");
  const keep = offersKeep(draft) ? ` 🔓 Keep ${total === 1 ? "it" : "them"}, or add your own to PII_ALLOW.` : "";
  return `🔒 ${total} item${total === 1 ? "" : "s"} removed: ${what}.${keep}`;
}

/** True when the post offers "🔓 Keep the removed items": it awaits a decision on the text redaction made. */
export function offersKeep(draft: DraftRecord): boolean {
  return !settled(draft) && hasRemovedItems(draft);
}

/** "⚠️ Contains 3,850 invisible characters", or null when there are none. */
export function invisibleLine(text: string): string | null {
  const n = countInvisible(text);
  if (n === 0) return null;
  return `⚠️ Contains ${count(n)} invisible character${n === 1 ? "" : "s"} (zero-width, direction controls or the like): what you see is not all there is.`;
}

/** The header's lines: who drafted it, who will read it, when it expires, what redaction removed, hidden characters. */
export function reviewHeaderLines(draft: DraftRecord, options: ReviewFormatOptions): string[] {
  const open = showsExpiry(draft);
  const lines = [
    draft.choices === null
      ? `✏️ DRAFT (${draft.drafted_by_role}) — for ${audienceLine(draft)}`
      : draft.choose === "any"
        ? fanOutLines(draft)
        : choicesLines(draft),
    senderLine(draft, options.now(), options.timeZone),
    open ? `${EXPIRES}${expiryMark(draft, options).text}, unless decided.` : null,
    redactionLine(draft),
    invisibleLine(draft.draft_text),
    versionLines(draft) || null,
  ];
  return lines.filter((l): l is string => l !== null);
}

const EXPIRES = "Expires ";

/** The header says when the draft expires while it awaits a decision; a deferred one's status line says it already ("Deferred until"). */
function showsExpiry(draft: DraftRecord): boolean {
  return !settled(draft) && draft.status !== "deferred";
}

/** When the draft expires, as the client renders it: relative ("in 23 hours"), an absolute time under it. */
function expiryMark(draft: DraftRecord, options: Pick<ReviewFormatOptions, "now" | "timeZone">): TimeMark {
  return timeMark(Date.parse(draft.expires_at), "r", options.timeZone, options.now());
}

/** The date_time entities of the header's times in `header`: when the person last wrote, when the draft expires (until it is settled). */
function headerTimeEntities(draft: DraftRecord, header: string, options: ReviewFormatOptions): MessageEntity[] {
  const wrote = senderLineTime(draft, options.now(), options.timeZone);
  const expires = showsExpiry(draft) ? [{ mark: expiryMark(draft, options), before: EXPIRES }] : [];
  return timeEntitiesIn(header, [...(wrote === null ? [] : [wrote]), ...expires]);
}

/**
 * True once a draft is decided (approved, sending or final): its post no longer
 * says when it expires nor lists the decisions, and takes no decision.
 */
export function settled(draft: Pick<DraftRecord, "status">): boolean {
  return !AWAITING_DECISION.has(draft.status) && draft.status !== "queued";
}

/** The header, as one text. */
export function reviewHeader(draft: DraftRecord, options: ReviewFormatOptions): string {
  return reviewHeaderLines(draft, options).join("\n");
}

/** The line above the draft's quote when the post quotes the message it answers too. */
export const DRAFT_LABEL = "📝 The draft:";

/**
 * The legend of decisions shows while the post takes them: not once decided, nor while a halt lasts (a 👍 then
 * could only halt again; the status line says when 👍 Send comes back).
 */
function showsLegend(draft: DraftRecord, options: Pick<ReviewFormatOptions, "legend">): boolean {
  if (options.legend?.(draft) === false) return false;
  return !settled(draft) && !(draft.status === "halted" && draft.halt_lasts);
}

/** The footer: the decision keys. */
export function reviewFooter(options: ReviewFormatOptions): string {
  return `👍 send · 👎 revise (or reply with a note) · 😴 defer ${formatDuration(options.deferForMs)}`;
}

/**
 * The review post for a draft. The draft text is included exactly, as data,
 * inside a blockquote entity that marks where it begins and ends (see
 * draft-entities.ts); nothing is sent with a parse_mode.
 */
export function reviewPost(draft: DraftRecord, options: ReviewFormatOptions): ReviewPostText {
  const lines = reviewHeader(draft, options);
  // The message it answers, quoted as data under the header (src/business/sender-text.ts).
  const answering = answeringBlock(draft, lines.length, options.now(), options.timeZone);
  // Two quotes in a row (the message answered, then the draft): the draft's is labelled, so it is clear where it begins.
  const header = lines + answering.text + (answering.quoted === true ? `\n${DRAFT_LABEL}` : "");
  // Once decided, the post shows the outcome and the draft, and no legend of decisions it no longer takes.
  const footer = showsLegend(draft, options) ? reviewFooter(options) : null;
  const text = footer === null ? `${header}\n${draft.draft_text}` : `${header}\n${draft.draft_text}\n${footer}`;
  // Its form (one message, or a header and the draft) never depends on whether the legend shows today: measured with it.
  if (`${header}\n${draft.draft_text}\n${reviewFooter(options)}`.length <= TELEGRAM_TEXT_LIMIT) {
    return {
      kind: "single",
      message: {
        text,
        entities: [
          ...headerTimeEntities(draft, header, options),
          ...answering.entities,
          ...diffEntities(draft, header),
          ...draftEntities(header.length + 1, draft.draft_text),
        ],
      },
    };
  }
  // Longer than one message (an email, a Slack message): in parts, cut where Telegram keeps every character (intake made sure it can).
  const parts = partsOf(draft);
  const earlier = parts.slice(0, -1).map((p) => ({ text: p.text, entities: draftEntities(0, p.text) }));
  // The last part takes decisions: the legend goes under it (its room was left by the cut), not on the header.
  const last = decisionMessage(parts.at(-1)!.text, footer, null) ?? decisionMessage(parts.at(-1)!.text, null, null)!;
  return { kind: "split", header: splitHeader(draft, options, parts), earlier, draft: last };
}

/** The draft's parts as its split post shows them (text-parts.ts; intake made sure it can be cut). */
function partsOf(draft: DraftRecord): TextPart[] {
  return reviewParts(draft.draft_text) ?? [{ text: draft.draft_text, joint: null }];
}

/** The header message of a split post: the header, and where the draft is (no legend: it takes no decision). */
function splitHeader(draft: DraftRecord, options: ReviewFormatOptions, parts: readonly TextPart[]): FormattedText {
  const lines = reviewHeader(draft, options);
  const answering = answeringBlock(draft, lines.length, options.now(), options.timeZone);
  const header = lines + answering.text;
  return {
    text: [header, partsNote(draft.draft_text, parts)].join("\n"),
    entities: [...headerTimeEntities(draft, header, options), ...answering.entities, ...diffEntities(draft, header)],
  };
}

/** A one-line account of the draft's status, for the top of the edited review message. */
export function statusLine(draft: DraftRecord, options: Pick<ReviewFormatOptions, "now" | "timeZone" | "noteTold" | "draftById">): string {
  const when = (iso: string) => absoluteTime(Date.parse(iso), "wdt", options.timeZone, options.now());
  const clockTime = (ms: number) => absoluteTime(ms, "T", options.timeZone);
  const fanOut = fanOutStatusLine(draft);
  if (fanOut !== null) return fanOut;
  switch (draft.status) {
    case "queued":
    case "pending":
      return draft.undone_at === null ? "⏳ Awaiting your decision." : "↩️ Undone: the draft awaits your decision again.";
    case "deferred":
      return `${draft.undone_at === null ? "" : "↩️ Undone. "}😴 Deferred until ${when(draft.expires_at)}.`;
    case "approved":
      return countdownLine(draft, clockTime, options.now()) ?? "👍 Approved — sending.";
    case "sending":
      return "📤 Sending…";
    case "halted":
      return haltedLine(draft);
    case "sent":
      return `✅ Sent${chosenText(draft)}${draft.sent_as === "owner" ? " as you" : ""} at ${when(draft.sent_at ?? draft.updated_at)}.${sentWhere(draft)}`;
    case "revise": {
      if (draft.revised_by !== null) return replacedLine(draft, draft.revised_by, options);
      const undo = reviseUndoUntil(draft, options.now());
      const line = draft.revision_note ? `✍️ Revise: ${draft.revision_note}` : "✍️ Sent back for revision.";
      const lines = [line, ...(undo === null ? [] : [`↩️ Undo until ${clockTime(undo)}`])];
      // Where the note went: said on the post, never in a message of its own.
      if (draft.revision_note) lines.push(revisionNoteLine(draft, options.noteTold));
      return lines.join("\n");
    }
    case "expired":
      if (draft.expired_while_down !== null) {
        const { since, until } = draft.expired_while_down;
        const what = draft.approval === null ? "a decision made then may have been lost" : "approved, but the send could not start in time";
        return `⌛ Expired while the daemon was down (${when(since)} to ${when(until)}): ${what}. Not sent.`;
      }
      // An approval is kept when an approved draft expires: its send could not start in time.
      return draft.approval === null
        ? "⌛ Expired without a decision. Not sent."
        : "⌛ Expired: approved, but the send could not start in time (the destination was busy or unreachable). Not sent.";
    case "failed":
      return `❌ Failed: ${SERVICE_WORD[channelOf(draft)]} said ${draft.reason ?? "no"}. Not sent.`;
    case "outcome_unknown":
      return `⚠️ Outcome unknown: ${draft.reason ?? ""}. Not retried; check the destination.`;
    case "partly_sent":
      return "◐ Partly sent (see each destination below).";
  }
}

/** Who answered a send, as the failed line names it. */
const SERVICE_WORD: Record<ReturnType<typeof channelOf>, string> = {
  telegram: "Telegram",
  linear: "Linear",
  email: "the mail server",
  slack: "Slack",
};

/** Among several destinations: which one it went to (" to 2 · #design"); empty otherwise. */
function chosenText(draft: DraftRecord): string {
  return draft.choices === null || draft.chosen === null ? "" : ` to ${draft.chosen} · ${shortDestination(draft)}`;
}

/** Where a message sent to Linear, email or Slack can be found: its link, or the email's Message-ID. */
function sentWhere(draft: DraftRecord): string {
  const ref = draft.destination === null ? null : draft.sent_ref;
  if (ref === null) return "";
  const link = ref.url ?? ref.permalink ?? null;
  if (typeof link === "string" && link !== "") return ` ${link}`;
  return typeof ref.message_id === "string" ? ` Message-ID ${ref.message_id}` : "";
}

/**
 * A sent-back (or superseded) draft a later one replaced: which role's new version, and where it is (a link to
 * its post where the review chat has links, else "below"), so the post no longer says the note waits for a role.
 */
function replacedLine(draft: DraftRecord, laterId: string, options: Pick<ReviewFormatOptions, "draftById">): string {
  const later = options.draftById?.(laterId);
  const note = draft.revision_note ? `✍️ Revise: ${draft.revision_note}\n` : "";
  if (later === undefined) return `${note}🔁 Replaced by a new version (${laterId}).`;
  const link =
    later.review_chat_id === null || later.review_message_id === null ? null : reviewLink(later.review_chat_id, later.review_message_id);
  const elsewhere = later.review_thread_id !== draft.review_thread_id ? ` (in ${later.drafted_by_role}'s topic)` : " (below)";
  const where = link !== null ? `: ${link}` : later.review_message_id === null ? " (being posted)" : elsewhere;
  return `${note}🔁 Replaced by ${later.drafted_by_role}'s new version${where}.`;
}

/**
 * The status line with its times under date_time entities (the client shows
 * them in its own zone and form): the send time and ↩️ Undo's end, the end
 * of a deferral, the time of the send.
 */
export function statusText(
  draft: DraftRecord,
  options: Pick<ReviewFormatOptions, "now" | "timeZone" | "noteTold" | "draftById">,
): FormattedText {
  const text = statusLine(draft, options);
  const at = (iso: string | null, format: "wdt" | "T", before: string) =>
    iso === null ? [] : [{ mark: timeMark(Date.parse(iso), format, options.timeZone, options.now()), before }];
  const undo = reviseUndoUntil(draft, options.now());
  const marks = [
    ...at(draft.status === "approved" ? draft.send_after : null, "T", "Sending at "),
    ...at(draft.status === "approved" ? draft.send_after : null, "T", "window closed at "),
    ...at(undo === null ? null : new Date(undo).toISOString(), "T", "Undo until "),
    ...at(draft.status === "deferred" ? draft.expires_at : null, "wdt", "Deferred until "),
    ...at(draft.status === "sent" ? (draft.sent_at ?? draft.updated_at) : null, "wdt", " at "),
  ];
  return { text, entities: timeEntitiesIn(text, marks) };
}

/**
 * Why a draft is halted and what the reviewer can do: while the kill
 * switch's halt lasts, 👍 comes back when it ends (it could only halt again);
 * after it, or for any other reason, 👍 approves again.
 */
function haltedLine(draft: DraftRecord): string {
  const reason = draft.reason ?? "the kill switch is on";
  if (draft.halt_lasts) return `⛔ Approved, but not sent: ${reason}. 👍 Send comes back here when the halt ends.`;
  if (/^kill switch/.test(reason))
    return `⛔ Not sent: ${reason}. The halt is over: 👍 Send approves it again. A 👍 reaction given before does not count: take it away and add it again.`;
  // The identity's failure: a 👍 tries as the owner again, which works only once its cause is gone (the reply below says what would).
  const until = /^not sent as you/.test(reason) ? " as you once that changes, or see the reply below" : "";
  return `⛔ Approved, but not sent: ${reason}. Approve again (👍) to send${until}.`;
}

/**
 * The header's first lines for a draft with several destinations: the role,
 * then each destination numbered with who reads it, the first marked as the
 * role's recommendation (what a 👍 sends to) and the one picked, if any.
 */
function choicesLines(draft: DraftRecord): string {
  const choices = draft.choices ?? [];
  const thumbsUp = thumbsUpChoice(draft);
  const lines = [
    `✏️ DRAFT (${draft.drafted_by_role}) — choose one of ${choices.length} destinations (👍 sends to ${thumbsUp}${thumbsUp === 1 ? `, ${draft.drafted_by_role}'s pick` : ", as approved before the halt"}; tap a button or reply with a number for another):`,
  ];
  for (const c of choices) {
    const view = withChoice(draft, c.index) ?? draft;
    const mark = [
      c.index === 1 ? "⭐ recommended" : null,
      (settled(draft) || draft.status === "halted") && draft.chosen === c.index ? "✔️ chosen" : null,
    ].filter((m) => m !== null);
    lines.push(`${c.index}. ${audienceLine(view)}${mark.length > 0 ? ` (${mark.join(", ")})` : ""}`);
  }
  return lines.join("\n");
}

/**
 * The review message's text after a status change: the status on top, then
 * the original post, its entities moved along. Null for a split post (see
 * editedDecisionText) or when it would pass Telegram's limit: the status
 * then goes in a reply instead.
 */
export function editedReviewText(draft: DraftRecord, options: ReviewFormatOptions): FormattedText | null {
  const post = reviewPost(draft, options);
  if (post.kind === "split") return null;
  const status = statusText(draft, options);
  const top = `${status.text}\n\n`;
  const text = top + post.message.text;
  const entities = [...status.entities, ...shiftEntities(post.message.entities, top.length)];
  return text.length <= TELEGRAM_TEXT_LIMIT ? { text, entities } : null;
}

/**
 * A split post's message with the buttons after a status change (every status goes where the buttons are): the
 * status over the draft's last part, the legend under it while it shows. Null past Telegram's limit.
 */
export function editedDecisionText(draft: DraftRecord, options: ReviewFormatOptions): FormattedText | null {
  const legend = showsLegend(draft, options) ? reviewFooter(options) : null;
  return decisionMessage(partsOf(draft).at(-1)!.text, legend, statusText(draft, options));
}

/**
 * A split post's header message after a status change: the status on top,
 * then the header for the draft now (contract v4, "one message per draft":
 * the status goes on the post, not in a reply). Null past Telegram's limit.
 */
export function editedHeaderText(draft: DraftRecord, options: ReviewFormatOptions): FormattedText | null {
  const header = splitHeader(draft, options, partsOf(draft));
  const status = statusText(draft, options);
  const top = `${status.text}\n\n`;
  const text = top + header.text;
  const entities = [...status.entities, ...shiftEntities(header.entities, top.length)];
  return text.length <= TELEGRAM_TEXT_LIMIT ? { text, entities } : null;
}
