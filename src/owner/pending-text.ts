import type { InlineKeyboardMarkup, MessageEntity } from "grammy/types";
import type { DraftRecord, Role } from "../drafts/record.js";
import { AWAITING_DECISION } from "../drafts/status.js";
import { timed, timeMark, type TimedText } from "../clock/local-time.js";

/** The fields of a draft that /pending shows (the audience, when resolved, names the destination). */
export type PendingDraft = Pick<
  DraftRecord,
  | "draft_id"
  | "status"
  | "drafted_by_role"
  | "destination_chat_id"
  | "destination_thread_id"
  | "drafted_at"
  | "expires_at"
  | "review_chat_id"
  | "review_message_id"
  | "draft_text"
> & { readonly audience?: DraftRecord["audience"] };

/** The destination by name when Telegram gave one (⚠️ when public), else its id. */
function destinationName(d: PendingDraft): string {
  const a = d.audience;
  if (!a || a.kind === "unknown" || a.title === null) return d.destination_chat_id;
  return `${a.username !== null && a.kind !== "private" ? "⚠️ " : ""}“${a.title}”`;
}

/** At most this many drafts are listed on one page of /pending; the rest are on the next pages. */
export const PAGE_SIZE = 8;

/** The listed lines of a page stop before they pass this many characters, so a page is one message (Telegram: 4096). */
export const LISTED_CHARS = 3_400;

/**
 * A link to a review message. Telegram has links only for supergroups and
 * channels (`t.me/c/<id without -100>/<message id>`); in a private chat or a
 * basic group there is none, and the message id is all there is.
 */
export function reviewLink(chatId: string, messageId: number): string | null {
  return /^-100\d+$/.test(chatId) ? `https://t.me/c/${chatId.slice(4)}/${messageId}` : null;
}

function preview(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length <= 40 ? flat : `${flat.slice(0, 39)}…`;
}

/** One draft's lines; its times are absolute, under date_time entities the client shows as "2 hours ago", "in 22 hours". */
function line(d: PendingDraft, n: number, nowMs: number, timeZone: string | undefined): TimedText {
  const where = d.destination_thread_id === null ? destinationName(d) : `${destinationName(d)} (topic ${d.destination_thread_id})`;
  const drafted = timeMark(Date.parse(d.drafted_at), "r", timeZone, nowMs);
  const expires = timeMark(Date.parse(d.expires_at), "r", timeZone, nowMs);
  // A supergroup's post has a link; elsewhere the numbered button below leads to it (Telegram shows no message numbers).
  const link = d.review_message_id === null ? " · not posted yet" : reviewLinkSuffix(d.review_chat_id ?? "", d.review_message_id);
  return timed(
    `${n}. ${d.drafted_by_role} → ${where} · ${d.status} · drafted `,
    drafted,
    ", expires ",
    expires,
    `${link}\n   “${preview(d.draft_text)}”`,
  );
}

function reviewLinkSuffix(chatId: string, messageId: number): string {
  const link = reviewLink(chatId, messageId);
  return link === null ? "" : ` · ${link}`;
}

/** Callback data of a /pending button: go to a draft's post, or show a page. */
export type PendingTap = { readonly kind: "goto"; readonly draftId: string } | { readonly kind: "page"; readonly page: number };

/** The callback data of a /pending button. */
export function pendingTapData(tap: PendingTap): string {
  return tap.kind === "goto" ? `pending:goto:${tap.draftId}` : `pending:page:${tap.page}`;
}

/** The callback data pattern of /pending's buttons (untrusted: read back with readPendingTap). */
export const PENDING_TAP_PATTERN = /^pending:(goto|page):([A-Za-z0-9_-]{1,56})$/;

/** Reads a /pending button's data back, or null. */
export function readPendingTap(data: string | undefined): PendingTap | null {
  const m = PENDING_TAP_PATTERN.exec(data ?? "");
  if (!m) return null;
  if (m[1] === "goto") return { kind: "goto", draftId: m[2]! };
  const page = Number(m[2]);
  return Number.isSafeInteger(page) && page >= 0 ? { kind: "page", page } : null;
}

/** One page of /pending: its text and entities (its times), and its buttons (one per posted draft, then ◀ ▶). */
export interface PendingPage {
  readonly text: string;
  readonly entities: MessageEntity[];
  readonly buttons: InlineKeyboardMarkup;
}

/** The drafts /pending lists: awaiting a decision (and queued ones not posted yet), oldest first. */
function waitingDrafts(drafts: Iterable<PendingDraft>): PendingDraft[] {
  return [...drafts]
    .filter((d) => AWAITING_DECISION.has(d.status) || d.status === "queued")
    .sort((a, b) => Date.parse(a.drafted_at) - Date.parse(b.drafted_at));
}

/** Splits the waiting drafts into pages of at most PAGE_SIZE drafts and LISTED_CHARS characters. */
function pages(waiting: readonly PendingDraft[], nowMs: number, timeZone: string | undefined): PendingDraft[][] {
  const out: PendingDraft[][] = [];
  let page: PendingDraft[] = [];
  let chars = 0;
  waiting.forEach((d, i) => {
    const l = line(d, i + 1, nowMs, timeZone).text.length + 1;
    if (page.length === PAGE_SIZE || (page.length > 0 && chars + l > LISTED_CHARS)) {
      out.push(page);
      page = [];
      chars = 0;
    }
    page.push(d);
    chars += l;
  });
  if (page.length > 0) out.push(page);
  return out;
}

/**
 * One page of the /pending answer (`page` from 0, clamped): drafts that wait
 * for the owner (pending, deferred, halted, and queued ones not posted yet),
 * oldest first, numbered, each with its role, destination, age and expiry.
 * Each posted draft has a numbered button that leads to its post (the bot
 * answers with a reply to it: a tap on the quote jumps there, in a private
 * chat too); ◀ and ▶ show the other pages. `role`: only that role's drafts
 * (/pending in its topic). Pure.
 */
export function pendingPage(drafts: Iterable<PendingDraft>, nowMs: number, page = 0, timeZone?: string, role?: Role): PendingPage {
  const waiting = waitingDrafts(drafts).filter((d) => role === undefined || d.drafted_by_role === role);
  if (waiting.length === 0)
    return {
      text: role ? `No ${role} draft awaits a decision.` : "Nothing awaits a decision.",
      entities: [],
      buttons: { inline_keyboard: [] },
    };
  const all = pages(waiting, nowMs, timeZone);
  const at = Math.min(Math.max(0, page), all.length - 1);
  const first = all.slice(0, at).reduce((n, p) => n + p.length, 0);
  const shown = all[at]!;
  const of = all.length > 1 ? `, page ${at + 1} of ${all.length}` : "";
  const { text, entities } = joinLines([
    timed(`${waiting.length}${role ? ` ${role}` : ""} draft${waiting.length === 1 ? "" : "s"} awaiting a decision (oldest first${of}):`),
    ...shown.map((d, i) => line(d, first + i + 1, nowMs, timeZone)),
    timed("Tap a number to go to its post, then decide there: 👍 send · 👎 revise · 😴 defer."),
  ]);
  const goto = shown.flatMap((d, i) =>
    d.review_message_id === null
      ? []
      : [{ text: `${first + i + 1} ↗`, callback_data: pendingTapData({ kind: "goto", draftId: d.draft_id }) }],
  );
  const nav = [
    ...(at > 0 ? [{ text: "◀ Previous", callback_data: pendingTapData({ kind: "page", page: at - 1 }) }] : []),
    ...(at < all.length - 1 ? [{ text: "Next ▶", callback_data: pendingTapData({ kind: "page", page: at + 1 }) }] : []),
  ];
  const rows = [goto.slice(0, 4), goto.slice(4), nav].filter((r) => r.length > 0);
  return { text, entities, buttons: { inline_keyboard: rows } };
}

/** Lines joined by newlines, each one's entities moved along. */
function joinLines(lines: readonly TimedText[]): TimedText {
  let text = "";
  const entities: MessageEntity[] = [];
  for (const l of lines) {
    if (text !== "") text += "\n";
    entities.push(...l.entities.map((e) => ({ ...e, offset: e.offset + text.length })));
    text += l.text;
  }
  return { text, entities };
}
