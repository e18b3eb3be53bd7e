import type { SurfaceState } from "../audit/audit-schema.js";
import type { DraftRecord } from "../drafts/record.js";
import { AWAITING_DECISION } from "../drafts/status.js";
import { awaitsUndoShown } from "../drafts/undo-window.js";
import type { ReviewChat } from "./ports.js";
import { judgeSurface, questionAction, shownOfDraft, type DecisionSurfaces, type SurfaceAction } from "./surfaces.js";

/** What closing needs: the surfaces, the review chat that edits them, the time, and a log for a failed edit. */
export interface ClosingDeps {
  readonly surfaces: DecisionSurfaces;
  readonly reviewChat: ReviewChat;
  readonly clock: { now(): number };
  readonly log: { warn(obj: object, msg: string): void };
  /**
   * What each reminder of a live draft shows now ("open", or the draft's status and version it says
   * became of it), so one is edited only when that changes. In memory, a reminder's entry goes with
   * it; after a restart an unknown one is edited once more (Telegram answers "not modified").
   */
  readonly reminderShows: Map<number, string>;
}

/**
 * True while the draft is still the one a question or reminder showed: the
 * live post it stands for, text version, audience, identity (what a tap on it
 * is judged by) and, for a reminder, the deadline it named.
 */
function showsTheDraft(surface: SurfaceState, draft: DraftRecord, now: number): boolean {
  const does = askedAction(surface);
  if (does === null) return true;
  if (surface.asks === "remind" && surface.until !== Date.parse(draft.expires_at)) return false;
  return judgeSurface(surface, shownOfDraft(draft), { does, via: "tap" }, {}, now).ok;
}

/** What a tap on a question or a reminder does; null for any other surface (a post, an edit prompt, a notice: never closed here). */
function askedAction(surface: SurfaceState): SurfaceAction | null {
  return surface.asks === "remind" ? "decide" : questionAction(surface.asks);
}

/** True while a question or a reminder still asks what it asked: the draft awaits a decision, as the message showed it. */
export function stillHolds(surface: SurfaceState, draft: DraftRecord, now: number): boolean {
  return AWAITING_DECISION.has(draft.status) && showsTheDraft(surface, draft, now);
}

/**
 * True while a message that shows the draft's ↩️ Undo in place of its post (an
 * `undo` surface) still offers it as the post does: the approval it showed
 * waits out its window (or for it to begin).
 */
function undoHolds(surface: SurfaceState, draft: DraftRecord, now: number): boolean {
  if (draft.status !== "approved" || draft.send_after === null) return false;
  if (!awaitsUndoShown(draft) && now >= Date.parse(draft.send_after)) return false;
  return judgeSurface(surface, shownOfDraft(draft), { does: "undo", via: "tap" }, {}, now).ok;
}

/**
 * True while an ✏️ Edit prompt still takes the edit it asked for: the draft awaits a decision at the text version,
 * audience and identity the prompt showed. Otherwise it is retired (its text says what became of the draft).
 */
function editPromptHolds(surface: SurfaceState, draft: DraftRecord, now: number): boolean {
  return AWAITING_DECISION.has(draft.status) && judgeSurface(surface, shownOfDraft(draft), { does: "edit", via: "reply" }, {}, now).ok;
}

/**
 * The questions and reminders a draft left behind (it was decided elsewhere,
 * edited, deferred, expired) say so in their own text and lose their buttons.
 * A question is used up first, on disk (fails closed: a tap meanwhile counts
 * for nothing), and stays closed. A reminder follows its draft (see
 * followReminder). A message that showed the draft's ↩️ Undo in place of its
 * post shows the draft's status once it offers none (no call when the post's
 * edit put it there already), then is used up. Run after each change that
 * edits the draft's post. Cost: the draft's own surfaces, and one edit for
 * each that changes.
 */
export async function closeLeftBehind(deps: ClosingDeps, draft: DraftRecord): Promise<void> {
  const now = deps.clock.now();
  for (const surface of deps.surfaces.openOf(draft.draft_id)) {
    if (surface.asks === "undo") {
      if (!undoHolds(surface, draft, now)) await endUndoSurface(deps, surface, draft);
      continue;
    }
    if (surface.asks === "edit") {
      if (!editPromptHolds(surface, draft, now)) await closeSurface(deps, surface, draft);
      continue;
    }
    if (askedAction(surface) === null) continue;
    if (surface.asks === "remind") {
      await followReminder(deps, surface, draft, now);
      continue;
    }
    if (stillHolds(surface, draft, now)) continue;
    await closeSurface(deps, surface, draft);
  }
}

/**
 * At start, the messages that show a draft's ↩️ Undo in place of its post
 * (open `undo` surfaces; the review chat's memory of them is gone): one whose
 * Undo still counts is handed to the review chat, so it loses the Undo with
 * the post's next edit (the send's own turn), before this returns; the
 * others, their draft sent, undone or halted meanwhile, are closed (the
 * promise). Cost: the open `undo` surfaces.
 */
export function resumeUndoMessages(deps: ClosingDeps, get: (draftId: string) => DraftRecord | undefined): Promise<void> {
  const now = deps.clock.now();
  const ended: Array<readonly [SurfaceState, DraftRecord]> = [];
  for (const surface of deps.surfaces.openAsking("undo")) {
    const draft = surface.draft_id === null ? undefined : get(surface.draft_id);
    if (draft === undefined) continue;
    if (undoHolds(surface, draft, now))
      deps.reviewChat.adoptUndo?.(draft.draft_id, { chatId: surface.chat_id, messageId: surface.message_id });
    else ended.push([surface, draft]);
  }
  return (async () => {
    for (const [surface, draft] of ended) await endUndoSurface(deps, surface, draft);
  })();
}

/**
 * A message that showed the draft's ↩️ Undo in place of its post, once the
 * draft offers none: it shows the draft's status without buttons, then is
 * used up. Used up only once that edit is made, so a failed one is made again
 * (the next change of the draft, the next start); a tap on its Undo meanwhile
 * is refused by the draft (nothing to undo).
 */
async function endUndoSurface(deps: ClosingDeps, surface: SurfaceState, draft: DraftRecord): Promise<void> {
  try {
    await deps.reviewChat.close(surface, draft, null);
  } catch (err) {
    const where = { draft_id: draft.draft_id, message_id: surface.message_id };
    deps.log.warn({ err, ...where }, "could not take ↩️ Undo off its message; trying again at the draft's next change or the next start");
    return;
  }
  await deps.surfaces.useUp(surface);
}

/** A surface that counts no more: used up on disk first (a tap meanwhile counts for nothing), then edited to say so. */
async function closeSurface(deps: ClosingDeps, surface: SurfaceState, draft: DraftRecord): Promise<void> {
  await deps.surfaces.useUp(surface);
  await edit(deps, surface, draft, () => deps.reviewChat.close(surface, draft, null));
}

/**
 * A reminder shows its draft as its post does: its buttons while the draft
 * awaits a decision as it showed it; otherwise, without buttons, what became
 * of the draft. While an approval waits out UNDO_WINDOW it still counts (a
 * 👍 taken back on it undoes, as on the post), and it opens again if the
 * approval is undone; once the draft is final, or has another version, post
 * or deadline, it is used up: an action on it is answered with the way to the
 * live post.
 */
async function followReminder(deps: ClosingDeps, surface: SurfaceState, draft: DraftRecord, now: number): Promise<void> {
  const holds = stillHolds(surface, draft, now);
  const undoable = (draft.status === "approved" || draft.status === "sending") && showsTheDraft(surface, draft, now);
  if (!holds && !undoable) {
    await deps.surfaces.useUp(surface);
    deps.reminderShows.delete(surface.message_id);
  }
  const shows = holds ? "open" : `${draft.status}:${draft.text_version}`;
  if ((deps.reminderShows.get(surface.message_id) ?? "open") === shows) return;
  if (holds || undoable) deps.reminderShows.set(surface.message_id, shows);
  await edit(deps, surface, draft, () =>
    holds ? deps.reviewChat.reopenReminder(surface, draft) : deps.reviewChat.close(surface, draft, null),
  );
}

/** One edit of a question or reminder; a failure is logged (the surface's state on disk already counts). */
function edit(deps: ClosingDeps, surface: SurfaceState, draft: DraftRecord, work: () => Promise<void>): Promise<void> {
  return work().catch((err: unknown) =>
    deps.log.warn(
      { err, draft_id: draft.draft_id, message_id: surface.message_id },
      "could not show what became of a question or reminder",
    ),
  );
}
