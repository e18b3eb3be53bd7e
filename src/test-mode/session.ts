import { createInterface } from "node:readline";
import type { Readable, Writable } from "node:stream";
import type { Core } from "../app/core.js";
import { SimulatedClock } from "../clock/simulated-clock.js";
import { readDuration } from "../config/duration.js";
import type { Transition } from "../desk/review-desk.js";
import type { Actor } from "../drafts/record.js";
import { STATUSES, type DraftStatus } from "../drafts/status.js";
import { decisionForEmoji } from "../reactions/decision-keys.js";
import { readReplyAction } from "../reactions/reply.js";
import type { DecisionOutcome } from "../desk/ports.js";
import { parseTestLine, type TestCommand } from "./commands.js";

/** What a test-mode session reads, writes and acts on. */
export interface TestSessionOptions {
  readonly core: Core;
  readonly clock: SimulatedClock;
  /** The reviewer a `react` without `user_id` acts as. */
  readonly defaultReviewerId: number;
  readonly input: Readable;
  readonly output: Writable;
}

type Answer = Record<string, unknown>;

/**
 * How far test mode's clock may go: far past any real use, and far enough
 * inside what a Date can hold that every expiry, deferral and retention
 * computed from it stays a valid time.
 */
const SIMULATED_HORIZON_MS = Date.UTC(9000, 0, 1);

/**
 * Test mode (contract: "Test mode"): one JSON line in, one JSON line out,
 * until the end of input. A bad line is answered with `{"error": ...}` and the
 * session goes on. Every change goes through the same desk, store and audit
 * log as live mode; only the clock and the review chat are simulated.
 */
export async function runTestSession(options: TestSessionOptions): Promise<void> {
  const lines = createInterface({ input: options.input, crlfDelay: Infinity });
  for await (const raw of lines) {
    const line = raw.trim();
    if (line === "") continue;
    let answer: Answer;
    try {
      const parsed = parseTestLine(line);
      answer = parsed.ok ? await handle(parsed.command, options) : { error: parsed.error };
    } catch (err) {
      answer = { error: `internal error: ${(err as Error).message}` };
    }
    await write(options.output, JSON.stringify(answer) + "\n");
  }
  await options.core.desk.settle();
}

function write(out: Writable, text: string): Promise<void> {
  return new Promise((resolve, reject) => out.write(text, (err) => (err ? reject(err) : resolve())));
}

/** One command of the session, answered as the protocol says; a review message of a live draft is left alone. */
async function handle(command: TestCommand, o: TestSessionOptions): Promise<Answer> {
  const { desk } = o.core;
  const messageId = "review_message_id" in command ? command.review_message_id : undefined;
  const onLive = messageId === undefined ? undefined : liveDraftAt(o, messageId);
  if (onLive !== undefined) return { error: `review_message_id: ${liveLeftAlone(`message ${messageId} belongs to live draft ${onLive}`)}` };
  switch (command.cmd) {
    case "submit":
      return submit(o, command);
    case "react":
      return react(o, command);
    case "reply":
      return reply(o, command);
    case "edit": {
      const actor = actorOf(o, command.user_id, "✏️", "reply");
      return act(o, command.review_message_id, (where) => desk.edit({ ...where, actor, text: command.text }));
    }
    case "keep": {
      const actor = actorOf(o, command.user_id, "🔓");
      return act(o, command.review_message_id, (where) => desk.keepRemoved({ ...where, actor }));
    }
    case "unreact":
      return unreact(o, command);
    case "toggle":
      return toggle(o, command);
    case "advance":
      return advance(o, command);
    case "get":
      return getDraft(o, command);
    case "business":
      return businessMessage(o, command);
    case "list":
      return listDrafts(o, command);
  }
}

/** One kind of command, by its `cmd`. */
type CommandOf<K extends TestCommand["cmd"]> = Extract<TestCommand, { cmd: K }>;

/** submit: the payload through the real intake, answered as POST /drafts would. */
async function submit(o: TestSessionOptions, command: CommandOf<"submit">): Promise<Answer> {
  const outcome = await o.core.intake.submit(command.draft);
  await o.core.desk.settle();
  if (outcome.ok) return { ...outcome.answer };
  return outcome.kind === "invalid" ? { error: outcome.error, field: outcome.field } : { error: outcome.error };
}

/** react: an emoji on a review message, as a reaction would decide. */
function react(o: TestSessionOptions, command: CommandOf<"react">): Promise<Answer> | Answer {
  const decision = decisionForEmoji(command.emoji);
  if (decision === null) return { error: `emoji: ${command.emoji} is not a decision; use 👍 (send), 👎 or ❌ (revise), 😴 or ⏳ (defer)` };
  // `destination`: a tap on that send button of a post with several destinations (contract v5).
  if (command.destination !== undefined && decision !== "send") return { error: "destination: only a 👍 picks a destination" };
  return decide(o, command.review_message_id, decision, actorOf(o, command.user_id, command.emoji), null, command.destination);
}

/** reply: a text in reply to a review message (a new text on an edit prompt, undo, "ok", or a decision with a note). */
function reply(o: TestSessionOptions, command: CommandOf<"reply">): Promise<Answer> {
  const { desk } = o.core;
  const reply = readReplyAction(command.text, desk.isEditPrompt(command.review_message_id));
  const actor = actorOf(o, command.user_id, reply.emoji, "reply");
  if (reply.kind === "edit") return act(o, command.review_message_id, (where) => desk.edit({ ...where, actor, text: reply.text }));
  if (reply.kind === "undo") return act(o, command.review_message_id, (where) => desk.undo({ ...where, actor }));
  // "ok" alone is no note: the draft stays as it is, and the bot asks (live: with buttons).
  if (reply.kind === "ask") return act(o, command.review_message_id, (where) => desk.askApproval({ ...where, actor, note: reply.note }));
  return decide(o, command.review_message_id, reply.decision, actor, reply.note, reply.destination);
}

/** unreact: taking 👍 or 👎 away undoes that decision; any other emoji decides nothing. */
function unreact(o: TestSessionOptions, command: CommandOf<"unreact">): Promise<Answer> | Answer {
  const undone = decisionForEmoji(command.emoji);
  if (undone !== "send" && undone !== "revise")
    return { error: `emoji: removing ${command.emoji} decides nothing; only removing 👍 or 👎 undoes a decision` };
  const actor = actorOf(o, command.user_id, command.emoji);
  return act(o, command.review_message_id, (where) => o.core.desk.undo({ ...where, actor }));
}

/** toggle: a tap on a destination's toggle on the draft's live post (`choose: "any"`), as the button would. */
async function toggle(o: TestSessionOptions, command: CommandOf<"toggle">): Promise<Answer> {
  const draft = await o.core.desk.find(command.draft_id);
  if (!draft) return { error: `draft_id: no draft ${command.draft_id}` };
  if (!draft.test_mode) return { error: `draft_id: ${liveLeftAlone(`${draft.draft_id} is a live draft`)}` };
  if (draft.review_message_id === null) return { error: `draft_id: ${draft.draft_id} is not posted yet (it is ${draft.status})` };
  const actor = actorOf(o, command.user_id, null, "button");
  const answer = await act(o, draft.review_message_id, (where) =>
    o.core.desk.toggle({ ...where, actor, claimedDraftId: draft.draft_id, destination: command.destination }),
  );
  const after = o.core.desk.get(draft.draft_id);
  return "error" in answer ? answer : { ...answer, chosen_set: after?.chosen_set ?? null };
}

/** advance: moves the simulated clock (by default to the end of the undo windows), answering with the transitions it made. */
async function advance(o: TestSessionOptions, command: CommandOf<"advance">): Promise<Answer> {
  const { desk } = o.core;
  const read = command.by === undefined ? { ok: true as const, ms: untilUndoWindowsEnd(o) } : readDuration(command.by);
  if (!read.ok) return { error: `by: ${read.error}` };
  const ms = read.ms;
  if (o.clock.now() + ms > SIMULATED_HORIZON_MS) {
    return {
      error: `by: "${command.by}" would move the simulated clock past ${new Date(SIMULATED_HORIZON_MS).toISOString()}, the latest time test mode keeps`,
    };
  }
  const transitions: Transition[] = [];
  const stop = desk.onTransition((t) => transitions.push(t));
  try {
    await o.clock.advance(ms, () => desk.settle());
    await desk.settle();
  } finally {
    stop();
  }
  return { now: new Date(o.clock.now()).toISOString(), transitions };
}

/** get: a test-mode draft's record (a live one is left alone). */
async function getDraft(o: TestSessionOptions, command: CommandOf<"get">): Promise<Answer> {
  const draft = await o.core.desk.find(command.draft_id);
  if (draft && !draft.test_mode) return { error: `draft_id: ${liveLeftAlone(`${draft.draft_id} is a live draft`)}` };
  return draft ? { ...draft } : { error: `draft_id: no draft ${command.draft_id}` };
}

/** list: the drafts, optionally of one status. */
function listDrafts(o: TestSessionOptions, command: CommandOf<"list">): Answer {
  const status = command.status;
  if (status !== undefined && !(STATUSES as readonly string[]).includes(status)) {
    return { error: `status: unknown; known: ${STATUSES.join(", ")}` };
  }
  return { drafts: o.core.desk.list(status as DraftStatus | undefined) };
}

/** The live draft (made without test mode) whose review post or question `messageId` is, if any: test mode leaves it alone. */
function liveDraftAt(o: TestSessionOptions, messageId: number): string | undefined {
  const id = o.core.desk.decisionSurfaces.draftIdOf(messageId);
  const draft = id === undefined ? undefined : o.core.store.latest.get(id);
  return draft && !draft.test_mode ? draft.draft_id : undefined;
}

/** The answer about a live draft (contract v4 "Test mode never touches live drafts"): not shown, not acted on. */
function liveLeftAlone(what: string): string {
  return `${what} (made without test mode); test mode leaves live drafts alone: it neither shows nor changes them`;
}

function actorOf(o: TestSessionOptions, userId: number | undefined, emoji: string | null, channel: Actor["channel"] = "test"): Actor {
  return { user_id: userId ?? o.defaultReviewerId, channel, emoji, update_id: null };
}

/** How far `advance` without `by` moves: to the end of the last undo window still running (0 if none). */
function untilUndoWindowsEnd(o: TestSessionOptions): number {
  const now = o.clock.now();
  const ends = o.core.desk.list("approved").map((d) => (d.send_after === null ? 0 : Date.parse(d.send_after) - now));
  return Math.max(0, ...ends);
}

/**
 * A reviewer action on a review message (a decision, an edit, an undo);
 * answers with the draft's status, and its review post and text version.
 */
async function act(
  o: TestSessionOptions,
  reviewMessageId: number,
  run: (where: { reviewChatId: string; reviewMessageId: number }) => Promise<DecisionOutcome>,
): Promise<Answer> {
  const { desk } = o.core;
  const reviewChatId = desk.draftOfMessage(reviewMessageId)?.review_chat_id ?? "";
  const outcome = await run({ reviewChatId, reviewMessageId });
  await desk.settle();
  const draft = outcome.draft && desk.get(outcome.draft.draft_id);
  if (!draft)
    return {
      error: `review_message_id: no draft was posted as message ${reviewMessageId}`,
      refused: outcome.ok ? undefined : outcome.reason,
    };
  const answer = {
    draft_id: draft.draft_id,
    status: draft.status,
    review_message_id: draft.review_message_id,
    text_version: draft.text_version,
  };
  return outcome.ok ? answer : { ...answer, refused: outcome.reason };
}

/** A decision on a review message, through `act`; answers with the draft's status alone. */
async function decide(
  o: TestSessionOptions,
  reviewMessageId: number,
  decision: ReturnType<typeof decisionForEmoji> & {},
  actor: Actor,
  note: string | null,
  destination?: number,
): Promise<Answer> {
  const picked = destination === undefined ? {} : { destination };
  const answer = await act(o, reviewMessageId, (where) => o.core.desk.decide({ ...where, decision, actor, note, ...picked }));
  if ("error" in answer) return answer;
  const { draft_id, status, refused } = answer;
  return refused === undefined ? { draft_id, status } : { draft_id, status, refused };
}

/**
 * Test mode's `business`: a person's message to the owner, seen through the
 * business connection test mode assumes (the reviewer's, with can_reply),
 * dated `ago` before the simulated now. A draft with `send_as` can then answer it.
 */
async function businessMessage(o: TestSessionOptions, c: Extract<TestCommand, { cmd: "business" }>): Promise<Answer> {
  const read = c.ago === undefined ? { ok: true as const, ms: 0 } : readDuration(c.ago);
  if (!read.ok) return { error: `ago: ${read.error}` };
  const agoMs = read.ms;
  const { voice } = o.core;
  const connection = voice.assume();
  const messageId = (voice.chats.chat(c.from_id)?.messages.at(-1)?.message_id ?? 0) + 1;
  const at = o.clock.now() - agoMs;
  const recorded = await voice.recordIncoming(c.from_id, { message_id: messageId, at, author: c.name ?? `User${c.from_id}`, text: c.text });
  if (!recorded) return { error: "ago: the message would be older than 48 h; nothing older is kept" };
  return { chat_id: c.from_id, message_id: messageId, at: new Date(at).toISOString(), business_connection_id: connection.id };
}
