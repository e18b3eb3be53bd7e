import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { AuditLog } from "../../src/audit/audit-log.js";
import type { SurfaceAsks, SurfaceState } from "../../src/audit/audit-schema.js";
import { closeLeftBehind, stillHolds } from "../../src/desk/closing.js";
import type { ReviewChat } from "../../src/desk/ports.js";
import { DecisionSurfaces, shownOfDraft } from "../../src/desk/surfaces.js";
import type { DraftRecord } from "../../src/drafts/record.js";
import { memoryLog, tempDir } from "../store/helpers.js";
import { draftIn, T0 } from "../support/drafts.js";

// Issue 25: questions and reminders a draft left behind say so; posts and notices are never closed here.
// Issue 35 point 4: an ✏️ Edit prompt is retired too once the draft no longer awaits a decision at the version it showed.

const opened: AuditLog[] = [];
afterEach(async () => {
  for (const a of opened.splice(0)) await a.close();
});

const CHAT = "100000001";
const POST = 42;
const pending = draftIn("pending");
const deadline = Date.parse(pending.expires_at);

/** Surfaces of `pending` as each message showed it: the post, a reminder, an "ok" question, a notice, an edit prompt. */
async function surfacesOf(draft: DraftRecord): Promise<DecisionSurfaces> {
  const audit = await AuditLog.open({ path: join(await tempDir(), "swarm.jsonl"), log: memoryLog() });
  opened.push(audit);
  const surfaces = new DecisionSurfaces(audit);
  const at = (asks: SurfaceAsks, messageId: number, extra = {}) =>
    surfaces.record(asks, { chatId: CHAT, messageId }, shownOfDraft(draft), extra);
  await at("decide", POST);
  await at("remind", 50, { post: POST, until: deadline });
  await at("ask", 51, { note: "ok", question: "You replied “ok”." });
  await at("notice", 52);
  await at("edit", 53);
  return surfaces;
}

/** A review chat that records what it was asked to edit. */
function recordingChat(edits: string[]): ReviewChat {
  return {
    close: async (s: SurfaceState, d: DraftRecord, chose: unknown) => void edits.push(`close:${s.message_id}:${d.status}:${chose}`),
    reopenReminder: async (s: SurfaceState) => void edits.push(`reopen:${s.message_id}`),
  } as unknown as ReviewChat;
}

const run = async (surfaces: DecisionSurfaces, draft: DraftRecord, shows = new Map<number, string>()) => {
  const edits: string[] = [];
  await closeLeftBehind(
    { surfaces, reviewChat: recordingChat(edits), clock: { now: () => T0 }, log: memoryLog(), reminderShows: shows },
    draft,
  );
  return { edits, used: [POST, 50, 51, 52, 53].filter((m) => surfaces.at(CHAT, m)?.used) };
};

describe("closing what a draft left behind", () => {
  it("nothing while the draft awaits a decision as they showed it", async () => {
    const surfaces = await surfacesOf(pending);
    expect(await run(surfaces, pending)).toEqual({ edits: [], used: [] });
    expect(stillHolds(surfaces.at(CHAT, 50)!, pending, T0)).toBe(true);
  });

  it("sent: the reminder, the question and the edit prompt are used up and say so; the post and the notice are left alone", async () => {
    const surfaces = await surfacesOf(pending);
    const sent = { ...pending, status: "sent" as const, sent_at: new Date(T0).toISOString() };
    expect(await run(surfaces, sent)).toEqual({
      edits: ["close:50:sent:null", "close:51:sent:null", "close:53:sent:null"],
      used: [50, 51, 53],
    });
    // Once closed, never again.
    expect((await run(surfaces, sent)).edits).toEqual([]);
  });

  it("approved within UNDO_WINDOW: the reminder says so but still counts (an undo on it works), and opens again once undone", async () => {
    const surfaces = await surfacesOf(pending);
    const shows = new Map<number, string>();
    const approved = { ...pending, status: "approved" as const, send_after: new Date(T0 + 5_000).toISOString() };
    expect(await run(surfaces, approved, shows)).toEqual({
      edits: ["close:50:approved:null", "close:51:approved:null", "close:53:approved:null"],
      used: [51, 53],
    });
    // The edit prompt stays retired: a new ✏️ Edit tap on the post makes a new one.
    expect(await run(surfaces, { ...pending, undone_at: new Date(T0).toISOString() }, shows)).toEqual({
      edits: ["reopen:50"],
      used: [51, 53],
    });
  });

  it("a deferral (a new deadline) or a new version closes the reminder; a new version closes the question and the edit prompt too", async () => {
    const deferred = { ...pending, status: "deferred" as const, expires_at: new Date(deadline + 86_400_000).toISOString() };
    expect(await run(await surfacesOf(pending), deferred)).toEqual({ edits: ["close:50:deferred:null"], used: [50] });
    const v2 = { ...pending, text_version: 2, review_message_id: 60 };
    expect(await run(await surfacesOf(pending), v2)).toEqual({
      edits: ["close:50:pending:null", "close:51:pending:null", "close:53:pending:null"],
      used: [50, 51, 53],
    });
  });
});
