import { TELEGRAM_TEXT_LIMIT } from "./payload.js";

/**
 * A draft longer than one Telegram message (an email or a Slack message may be
 * far longer: contract v5) is shown on its review post in several messages.
 * Telegram drops whitespace at both ends of a message, so a part may neither
 * begin nor end with it, or the owner would read another text than the one
 * sent. Two ways to cut, found in this order:
 * - at a single line break whose neighbours are not whitespace: the break is
 *   the step from one message to the next (`joint: "line"`);
 * - between two characters that are neither whitespace nor the halves of one
 *   character (a long line, cut inside a word): the next message runs on
 *   (`joint: "run"`).
 * Joined back (a line break or nothing between parts, as each says), the parts
 * are the text, code unit for code unit. Pure.
 */

/** One message's share of the text, and how it joins the next one. */
export interface TextPart {
  readonly text: string;
  /** How this part joins the next: a line break of the text, the text running on, or null for the last part. */
  readonly joint: "line" | "run" | null;
}

/** Characters Telegram drops at a message's ends (see telegram-text.ts: EDGE). */
const EDGE = /[\u0000-\u0020\u00A0\u1680\u180E\u2000-\u200B\u2028-\u202F\u205F\u3000\uFEFF]/;

/** A cut this close to the limit or closer (in code units) is sought first among line breaks, so parts stay full. */
const LINE_SEARCH = 1500;

/**
 * Code units the last part leaves free in its message (it takes decisions): the status line on top of it
 * and the legend of reactions under it fit beside it, so the status is shown where the buttons are.
 */
export const LAST_PART_ROOM = 600;

/**
 * The text cut into parts of at most `limit` UTF-16 code units each (Telegram's 4096 by default), the last
 * one at most `lastLimit`, or null when it cannot be (a stretch with no allowed cut: whitespace throughout).
 * A text within `lastLimit` is one part.
 */
export function cutIntoParts(text: string, limit = TELEGRAM_TEXT_LIMIT, lastLimit = limit): TextPart[] | null {
  const parts: TextPart[] = [];
  let rest = text;
  while (rest.length > lastLimit) {
    // Full parts while more than one message is left; then the last one cut down to leave its room.
    const cut = cutAt(rest, rest.length > limit ? limit : lastLimit);
    if (cut === null) return null;
    parts.push({ text: rest.slice(0, cut.at), joint: cut.joint });
    rest = rest.slice(cut.at + (cut.joint === "line" ? 1 : 0));
  }
  parts.push({ text: rest, joint: null });
  return parts;
}

/** A draft's text as its review post shows it: in messages of Telegram's limit, the last with LAST_PART_ROOM free; null as cutIntoParts. */
export function reviewParts(text: string): TextPart[] | null {
  return cutIntoParts(text, TELEGRAM_TEXT_LIMIT, TELEGRAM_TEXT_LIMIT - LAST_PART_ROOM);
}

/** The parts joined back: what the owner reads across the messages, which is the text. */
export function joinParts(parts: readonly TextPart[]): string {
  return parts.map((p) => p.text + (p.joint === "line" ? "\n" : "")).join("");
}

/** Where to cut `text` (longer than `limit`): the last allowed line break within reach, else the last allowed run-on cut. */
function cutAt(text: string, limit: number): { at: number; joint: "line" | "run" } | null {
  const last = Math.min(limit, text.length - 1);
  for (let at = last; at > 0 && at >= last - LINE_SEARCH; at--) {
    if (text[at] === "\n" && isInk(text, at - 1) && isInk(text, at + 1)) return { at, joint: "line" };
  }
  for (let at = last; at > 0; at--) {
    if (isInk(text, at - 1) && isInk(text, at) && !isSurrogatePair(text, at - 1)) return { at, joint: "run" };
  }
  return null;
}

/** True when the code unit at `i` exists and is not one Telegram drops at a message's end. */
function isInk(text: string, i: number): boolean {
  const c = text[i];
  return c !== undefined && !EDGE.test(c);
}

/** True when the code units at `i` and `i + 1` are the two halves of one character. */
function isSurrogatePair(text: string, i: number): boolean {
  const hi = text.charCodeAt(i);
  const lo = text.charCodeAt(i + 1);
  return hi >= 0xd800 && hi <= 0xdbff && lo >= 0xdc00 && lo <= 0xdfff;
}
