/**
 * Realistic DraftRecord versions made by the project's own pure code: the
 * payload parser, createDraft and the state machine's transition(). What the
 * daemon would have written, without running it.
 */
import { createHash } from "node:crypto";
import { newDraftId } from "../src/desk/intake.js";
import { createDraft } from "../src/drafts/create.js";
import { transition } from "../src/drafts/machine.js";
import { parseDraftPayload } from "../src/drafts/payload.js";
import type { Actor, DraftRecord } from "../src/drafts/record.js";
import type { DraftEvent } from "../src/drafts/events.js";
import { textSha256 } from "../src/send/approval.js";
import { draftText, OWNER } from "./support.js";

const HOUR = 3_600_000;
const REVIEWER: Actor = { user_id: OWNER, channel: "reaction", emoji: "👍", update_id: null };
const DEFERRER: Actor = { user_id: OWNER, channel: "button", emoji: null, update_id: null };

/** The first record of a draft to `chatId`, created at `now` (status queued). */
export function newRecord(i: number, chatId: string, now: number, textChars = 320): DraftRecord {
  const parsed = parseDraftPayload({
    draft_text: draftText(i, textChars),
    destination_chat_id: chatId,
    destination_thread_id: null,
    drafted_by_role: (["Scribe", "CoS", "Margot"] as const)[i % 3],
    originating_intent_id: `intent-${i.toString(36)}-${(i * 7919).toString(16)}`,
    idempotency_key: i % 2 === 0 ? `bench-${i}` : null,
  });
  if (!parsed.ok) throw new Error(`benchmark payload refused: ${parsed.error}`);
  const text = parsed.payload.draft_text;
  return createDraft(
    parsed.payload,
    {
      draftId: newDraftId(now),
      text,
      textSha256: textSha256(text),
      payloadSha256: createHash("sha256").update(JSON.stringify(parsed.payload)).digest("hex"),
      ttlMs: 24 * HOUR,
      redaction: { mode: "redact", removed: i % 5 === 0 ? { phone: 1 } : {} },
    },
    now,
  ).draft;
}

/** Applies `event` at `now`; throws if the machine refuses (a bug in the generator). */
export function step(draft: DraftRecord, event: DraftEvent, now: number): DraftRecord {
  const result = transition(draft, event, now);
  if (!result.ok) throw new Error(`generator: ${event.type} refused in ${draft.status}: ${result.reason}`);
  return result.draft;
}

/** The record once posted for review as message `reviewMessageId` (status pending). */
export function posted(draft: DraftRecord, reviewMessageId: number, now: number): DraftRecord {
  return step(draft, { type: "posted", reviewChatId: String(OWNER), reviewMessageId }, now);
}

/**
 * Ten versions of one draft's life, as the store would have them: queued,
 * pending, five defers, then (by `i`) approved, sending, sent; or two more
 * defers and a revision; or two more defers and expiry.
 */
export function lifecycle(i: number, start: number): DraftRecord[] {
  let t = start;
  const at = (ms: number) => (t += ms);
  const out: DraftRecord[] = [newRecord(i, i % 4 === 0 ? `-100${1_000_000_000 + (i % 50)}` : String(20_000_000 + (i % 500)), t)];
  const push = (event: DraftEvent, ms: number) => out.push(step(out.at(-1)!, event, at(ms)));
  push({ type: "posted", reviewChatId: String(OWNER), reviewMessageId: 100 + i }, 900);
  const defer: DraftEvent = { type: "decide", decision: "defer", actor: DEFERRER, deferMs: 24 * HOUR };
  for (let k = 0; k < 5; k++) push(defer, 3 * HOUR);
  const ending = i % 10;
  if (ending < 8) {
    push({ type: "decide", decision: "send", actor: REVIEWER, deferMs: 24 * HOUR }, HOUR);
    push({ type: "send_intent" }, 40);
    push({ type: "send_ok", messageId: 5000 + i }, 120);
  } else {
    push(defer, HOUR);
    push(defer, HOUR);
    if (ending === 8)
      push(
        {
          type: "decide",
          decision: "revise",
          actor: { ...REVIEWER, channel: "reply", emoji: null },
          note: "Shorter, please.",
          deferMs: 24 * HOUR,
        },
        HOUR,
      );
    else push({ type: "expire" }, 30 * 24 * HOUR);
  }
  return out;
}
