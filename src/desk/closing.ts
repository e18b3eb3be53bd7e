import type { SurfaceState } from "../audit/audit-schema.js";
import type { DraftRecord } from "../drafts/record.js";
import { AWAITING_DECISION } from "../drafts/status.js";
import type { ReviewChat } from "./ports.js";
import { judgeSurface, questionAction, shownOfDraft, type DecisionSurfaces } from "./surfaces.js";

/** What closing needs: the surfaces, the review chat that edits them, the time, and a log for a failed edit. */
export interface ClosingDeps {
  readonly surfaces: DecisionSurfaces;
  readonly reviewChat: ReviewChat;
  readonly clock: { now(): number };
  readonly log: { warn(obj: object, msg: string): void };
}

/**
 * True while a question or a reminder still asks what it asked: the draft
 * awaits a decision, is as the message showed it (the live post, text
 * version, audience, identity: what a tap on it would be judged by), and,
 * for a reminder, still has the deadline it named.
 */
export function stillHolds(surface: SurfaceState, draft: DraftRecord, now: number): boolean {
  const does = surface.asks === "remind" ? "decide" : questionAction(surface.asks);
  if (does === null) return true;
  if (!AWAITING_DECISION.has(draft.status)) return false;
  if (surface.asks === "remind" && surface.until !== Date.parse(draft.expires_at)) return false;
  return judgeSurface(surface, shownOfDraft(draft), { does, via: "tap" }, {}, now).ok;
}

/**
 * The questions and reminders a draft left behind (it was decided elsewhere,
 * edited, deferred, expired) count no more, and say so: each is used up on
 * disk first (fails closed: a tap meanwhile counts for nothing), then edited
 * to say what became of the draft, without buttons. Run after each change
 * that edits the draft's post; a question once closed stays closed. Cost: the
 * draft's own surfaces, and one edit for each that closes.
 */
export async function closeLeftBehind(deps: ClosingDeps, draft: DraftRecord): Promise<void> {
  const now = deps.clock.now();
  for (const surface of deps.surfaces.openOf(draft.draft_id)) {
    if (stillHolds(surface, draft, now)) continue;
    await deps.surfaces.useUp(surface);
    await deps.reviewChat
      .close(surface, draft, null)
      .catch((err: unknown) =>
        deps.log.warn({ err, draft_id: draft.draft_id, message_id: surface.message_id }, "could not close a question"),
      );
  }
}
