import { AuditIndex } from "../../src/audit/audit-index.js";
import { SimulatedClock } from "../../src/clock/simulated-clock.js";
import { Intake } from "../../src/desk/intake.js";
import { ReviewDesk, type ReviewDeskOptions, type Transition } from "../../src/desk/review-desk.js";
import type { DraftRecord } from "../../src/drafts/record.js";
import type { EventFeed, FeedEvent, FeedPage } from "../../src/drafts/feed-event.js";
import { FakeReviewChat } from "../../src/test-mode/fake-review-chat.js";
import { wallClockNow } from "../support/drafts.js";

/** One captured log call. */
export interface LogLine {
  readonly level: "debug" | "info" | "warn" | "error";
  readonly obj: object;
  readonly msg: string;
}

/** A logger that keeps every call, so tests can check what was (and was not) logged. */
export function captureLog() {
  const lines: LogLine[] = [];
  const at = (level: LogLine["level"]) => (obj: object, msg: string) => void lines.push({ level, obj, msg });
  return {
    lines,
    debug: at("debug"),
    info: at("info"),
    warn: at("warn"),
    error: at("error"),
    /** Everything logged, as one string (for "the token never appears" checks). */
    text: () => JSON.stringify(lines, (_k, v: unknown) => (v instanceof Error ? { message: v.message, stack: v.stack } : v)),
  };
}

/** An EventFeed over an array, fed by the desk's transitions: seq is the position, from 1. */
export class MemoryFeed implements EventFeed {
  readonly events: FeedEvent[] = [];

  push(t: Transition): void {
    this.events.push({ seq: this.events.length + 1, ...t });
  }

  after(seq: number, limit: number): FeedPage {
    const events = this.events.filter((e) => e.seq > seq).slice(0, limit);
    return { events, lastSeq: events.at(-1)?.seq ?? seq };
  }
}

/** The review chat of the memory core. */
export const REVIEW_CHAT_ID = "100000001";

/** The reviewer of the memory core. */
export const REVIEWER_ID = 4242;

/**
 * The real Intake and ReviewDesk over an in-memory store and audit log, a
 * simulated clock and test mode's fake review chat: the API's collaborators
 * without the files (the JSONL store and audit log are tested on their own).
 */
export function memoryCore() {
  const latest = new Map<string, DraftRecord>();
  const auditLines: unknown[] = [];
  const log = captureLog();
  // From now: CLI processes on the real clock read what this core serves.
  const clock = new SimulatedClock(wallClockNow());
  const reviewChat = new FakeReviewChat(REVIEW_CHAT_ID, [], log);
  const store = {
    latest,
    append: async (records: readonly DraftRecord[]) => {
      for (const r of records) latest.set(r.draft_id, r);
    },
  } as unknown as ReviewDeskOptions["store"];
  const audit = {
    ours: [],
    index: new AuditIndex(),
    append: async (entries: readonly unknown[]) => void auditLines.push(...entries),
  } as unknown as ReviewDeskOptions["audit"];
  const desk = new ReviewDesk({
    store,
    audit,
    clock,
    reviewChat,
    reviewerIds: new Set([REVIEWER_ID]),
    deferForMs: 24 * 3600_000,
    log,
    makeSender: () => ({ send: async () => {} }),
  });
  const intake = new Intake({ desk, reviewChat, clock, ttlMs: 24 * 3600_000, redact: null });
  const feed = new MemoryFeed();
  desk.onTransition((t) => feed.push(t));
  return {
    desk,
    intake,
    feed,
    clock,
    auditLines,
    deskLog: log,
    /** A reviewer's 👎 on a posted draft: one more transition (pending -> revise). */
    async revise(reviewMessageId: number) {
      return desk.decide({
        reviewChatId: REVIEW_CHAT_ID,
        reviewMessageId,
        decision: "revise",
        actor: { user_id: REVIEWER_ID, channel: "test", emoji: "👎", update_id: null },
      });
    },
  };
}

/** A valid payload; `overrides` replace or add fields. */
export function payload(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    draft_text: "Hello from the swarm",
    destination_chat_id: "-1001234567890",
    destination_thread_id: null,
    drafted_by_role: "Scribe",
    originating_intent_id: "intent-1",
    ...overrides,
  };
}
