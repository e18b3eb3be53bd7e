import type { ChatMessage, ReviewerReply } from "./fake-telegram.js";

/**
 * A stretch of time during which one of the bot's messages showed a draft's
 * ↩️ Undo, unchanged: from the acceptance of the sendMessage or edit that
 * showed it until the acceptance of the next one that did not (or that
 * showed other text: a new approval's post says a new send time).
 * `until` is Infinity while it still shows.
 */
export interface UndoShown {
  readonly messageId: number;
  readonly from: number;
  readonly until: number;
}

/** Telegram's callback data of a draft's ↩️ Undo button (src/telegram/flow-format.ts). */
const undoData = (draftId: string) => `v1:undo:${draftId}`;

/** Every stretch during which the review chat showed `draftId`'s ↩️ Undo, read from the versions Telegram accepted. */
export function undoShown(messages: readonly ChatMessage[], draftId: string): UndoShown[] {
  const data = undoData(draftId);
  const out: UndoShown[] = [];
  for (const m of messages) {
    if (!m.fromBot) continue;
    let open: { from: number; text: string } | null = null;
    for (const v of m.versions) {
      const shows = v.buttons.includes(data);
      if (open !== null && (!shows || v.text !== open.text)) {
        out.push({ messageId: m.id, from: open.from, until: v.at });
        open = null;
      }
      if (shows && open === null) open = { from: v.at, text: v.text };
    }
    if (open !== null) out.push({ messageId: m.id, from: open.from, until: Number.POSITIVE_INFINITY });
  }
  return out;
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

function describe(spans: readonly UndoShown[], sentAt: number): string {
  if (spans.length === 0) return "no message ever showed its ↩️ Undo";
  return spans
    .slice(-3)
    .map(
      (s) =>
        `message ${s.messageId} showed ↩️ Undo from ${seconds(sentAt - s.from)} before the send` +
        (s.until === Number.POSITIVE_INFINITY ? " on" : ` for ${seconds(s.until - s.from)}`),
    )
    .join("; ");
}

/**
 * Why a send call made at `sentAt` broke "a draft is sent only if its Undo was
 * visible for the whole window" (contract v4: UNDO_WINDOW counts from
 * Telegram's acceptance of the message or edit that shows the approval with
 * its ↩️ Undo), or null: some stretch showed it unchanged for `windowMs` and
 * ended no earlier than `windowMs` after it began, before the send.
 */
export function undoWindowProblem(spans: readonly UndoShown[], sentAt: number, windowMs: number): string | null {
  if (windowMs <= 0) return null;
  const whole = spans.some((s) => s.from + windowMs <= sentAt && s.until >= s.from + windowMs);
  return whole ? null : `its ↩️ Undo was not visible for the whole ${seconds(windowMs)} window before it: ${describe(spans, sentAt)}`;
}

/** How long a message may still offer to undo a draft that was sent (contract v4). */
export const SENT_UNDO_GRACE_MS = 2_000;

/** Why the chat still offered to undo a draft more than 2 s after Telegram took its send, judged at `now`, or null. */
export function undoAfterSendProblem(spans: readonly UndoShown[], sentAt: number, now: number): string | null {
  const limit = sentAt + SENT_UNDO_GRACE_MS;
  if (now <= limit) return null;
  const stale = spans.find((s) => s.until > limit && s.from < now);
  if (stale === undefined) return null;
  const until = stale.until === Number.POSITIVE_INFINITY ? "still does" : `until ${seconds(stale.until - sentAt)} after it`;
  return `message ${stale.messageId} offered ↩️ Undo more than ${seconds(SENT_UNDO_GRACE_MS)} after the draft was sent (${until})`;
}

/** How soon an edit of the message a reply answers counts as its answer (the review chat's pace may hold it back). */
export const ANSWER_EDIT_WITHIN_MS = 60_000;

/** The draft a bot message is about: a button naming it, or the message it replies to (a reminder, an answer). */
export function draftOfMessage(m: ChatMessage | undefined, byId: ReadonlyMap<number, ChatMessage>, depth = 0): string | null {
  if (m === undefined || depth > 5) return null;
  for (const data of m.everButtons) {
    const id = /^v1:\w+:(.+)$/.exec(data)?.[1];
    if (id !== undefined) return id;
  }
  return m.replyTo === null ? null : draftOfMessage(byId.get(m.replyTo), byId, depth + 1);
}

/**
 * The reviewer replies to the bot's messages that nothing answered: no call
 * in the review chat while their update was handled, and nothing the bot
 * showed about the message replied to (an edit of it, or a message or edit
 * about its draft: a new version's post) within ANSWER_EDIT_WITHIN_MS of the
 * reply, or of a start of the daemon after it. (One edit shows two decisions
 * made at once, the second's would change nothing; a stop drops the work
 * waiting for the review chat's pace, and the next start shows it.)
 */
export function unansweredReplies(
  replies: readonly ReviewerReply[],
  answered: ReadonlySet<number>,
  messages: ReadonlyMap<number, ChatMessage>,
  starts: readonly number[] = [],
): ReviewerReply[] {
  return replies.filter((r) => {
    if (answered.has(r.updateId)) return false;
    const target = messages.get(r.target);
    const draft = draftOfMessage(target, messages);
    const about = [...messages.values()].filter(
      (m) => m.fromBot && (m.id === r.target || (draft !== null && draftOfMessage(m, messages) === draft)),
    );
    const shown = about.flatMap((m) => (m.id === r.target ? m.versions.slice(1) : m.versions));
    const from = [r.at, ...starts.filter((s) => s > r.at)];
    return !shown.some((v) => from.some((t) => v.at >= t && v.at <= t + ANSWER_EDIT_WITHIN_MS));
  });
}
