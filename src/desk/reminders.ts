import type { AuditLog } from "../audit/audit-log.js";
import type { Clock } from "../clock/clock.js";
import { startSchedule, type Schedule } from "../clock/schedule.js";
import type { DraftRecord } from "../drafts/record.js";
import { AWAITING_DECISION } from "../drafts/status.js";
import type { ReviewChat } from "./ports.js";
import { shownOfDraft, type DecisionSurfaces } from "./surfaces.js";
import { isInertDraft } from "./test-drafts.js";

/** What reminders need: the clock, the audit log (durable "reminded"), the review chat and the drafts. */
export interface ReminderDeps {
  readonly audit: AuditLog;
  readonly clock: Clock;
  readonly reviewChat: ReviewChat;
  /** REMIND_BEFORE in ms; 0 or absent: no reminders. */
  readonly remindBeforeMs?: number | undefined;
  readonly testMode?: boolean | undefined;
  readonly log: { warn(obj: object, msg: string): void };
  /** A reminder is a decision surface: it stands for the draft's post. */
  readonly surfaces: DecisionSurfaces;
  get(draftId: string): DraftRecord | undefined;
  /** Keeps the work in the set the desk waits for when it settles or closes. */
  track(work: Promise<void>): Promise<void>;
}

/** When a draft's reminder is due (ms), or null: reminders are off, or it does not await a decision. */
export function reminderDue(draft: DraftRecord, remindBeforeMs: number): number | null {
  if (remindBeforeMs <= 0 || !AWAITING_DECISION.has(draft.status)) return null;
  return Date.parse(draft.expires_at) - remindBeforeMs;
}

/**
 * REMIND_BEFORE (contract v3): a draft still awaiting a decision when that
 * much of its time is left gets one reminder in the review chat, as a reply
 * to its post, so that it notifies (an edit does not). One per deadline: a
 * defer moves `expires_at`, and the new deadline gets its own. Durable: the
 * audit log's `notice` line with `reminder_for` says it went out, so a restart
 * does not repeat it, and one a restart missed goes out at start. A draft
 * posted (or changed) with less than REMIND_BEFORE left gets none: it was
 * just in front of the reviewer. Timers come from the injected clock.
 *
 * The reminder is a decision surface (asks `remind`): it carries the post's
 * buttons, and a tap, a reaction or a reply on it counts as on the post it
 * stands for, for the draft as the post showed it, until its deadline. Once
 * the draft moves on, closing.ts says so in its text and takes the buttons.
 *
 * The times run on the daemon's one scheduler (src/clock/schedule.ts, as the
 * digest and the weekly report do): one timer, for the earliest reminder due.
 */
export class Reminders {
  /** Each armed draft's reminder: when it is due, for which deadline. */
  private readonly due = new Map<string, { readonly at: number; readonly expiresAt: string }>();
  private readonly schedule: Schedule;
  private stopped = false;

  constructor(private readonly deps: ReminderDeps) {
    this.schedule = startSchedule({
      clock: deps.clock,
      next: () => this.earliest(),
      run: (dueMs) => this.remindDue(dueMs),
      onError: (err) => deps.log.warn({ err }, "the reminders due could not all be posted; the next ones still go"),
    });
  }

  /** (Re)arms the reminder of a draft from its current record: at its due time, or at once when a restart missed it. */
  arm(draftId: string): void {
    this.disarm(draftId);
    const draft = this.deps.get(draftId);
    if (this.stopped || !draft || isInertDraft(draft, this.deps.testMode === true)) return;
    const due = reminderDue(draft, this.deps.remindBeforeMs ?? 0);
    if (due === null || this.deps.audit.index.wasReminded(draftId, draft.expires_at)) return;
    // Less than REMIND_BEFORE left when it last changed (posted, deferred, undone): the reviewer just saw it.
    if (due <= Date.parse(draft.updated_at) || this.deps.clock.now() >= Date.parse(draft.expires_at)) return;
    // Due already (a restart missed it): the scheduler runs it at once.
    this.due.set(draftId, { at: due, expiresAt: draft.expires_at });
    // Only an earlier one moves the timer (a start arms every live draft: no scan each).
    const next = this.schedule.nextAt;
    if (next === null || due < next) this.schedule.rearm();
  }

  /** Forgets a draft's reminder (it was decided, or became final). */
  disarm(draftId: string): void {
    const armed = this.due.get(draftId);
    if (!armed) return;
    this.due.delete(draftId);
    if (armed.at === this.schedule.nextAt) this.schedule.rearm();
  }

  /** Stops the scheduler; no reminder goes out after this. */
  stop(): void {
    this.stopped = true;
    this.due.clear();
    void this.schedule.stop();
  }

  /** The earliest reminder due (ms), or null when none is armed. */
  private earliest(): number | null {
    let first: number | null = null;
    for (const { at } of this.due.values()) if (first === null || at < first) first = at;
    return first;
  }

  /** Posts every reminder due by `dueMs` (taken out of the schedule first: a failed one is not tried again). */
  private async remindDue(dueMs: number): Promise<void> {
    const now = Math.max(dueMs, this.deps.clock.now());
    const ready = [...this.due].filter(([, d]) => d.at <= now);
    for (const [draftId] of ready) this.due.delete(draftId);
    await Promise.all(ready.map(([draftId, d]) => this.deps.track(this.remind(draftId, d.expiresAt))));
  }

  private async remind(draftId: string, expiresAt: string): Promise<void> {
    const draft = this.deps.get(draftId);
    // Decided, deferred or changed meanwhile: its own arm() took over.
    if (this.stopped || !draft || !AWAITING_DECISION.has(draft.status) || draft.expires_at !== expiresAt) return;
    if (draft.review_message_id === null || draft.review_chat_id === null || this.deps.audit.index.wasReminded(draftId, expiresAt)) return;
    // The intent, durable before the post (as an answer's mark is): a crash after Telegram took the reminder
    // must not post it again at the next start. One that then never went out is not posted either: the draft's
    // own post is still there, and /pending lists it.
    const notice = { kind: "notice" as const, draft_id: draftId, status: draft.status, reminder_for: expiresAt };
    this.deps.audit.index.markReminded(draftId, expiresAt, this.deps.clock.now());
    try {
      await this.deps.audit.append([{ ...notice, text: "", intent: true }]);
    } catch (err) {
      this.deps.audit.index.unmarkReminded(draftId, expiresAt);
      this.deps.log.warn({ err, draft_id: draftId }, "could not record that a reminder is about to be posted; it is not posted");
      return;
    }
    try {
      const { text, messageId } = await this.deps.reviewChat.remind(draft);
      // Its surface is known at once (a tap may come as soon as it is out), and on disk with its notice line; a
      // crash before that line leaves a reminder whose actions are refused with the way to the post (fails closed).
      const where = { chatId: draft.review_chat_id, messageId };
      const surface = this.deps.surfaces.note("remind", where, shownOfDraft(draft), {
        post: draft.review_message_id,
        until: Date.parse(expiresAt),
      });
      await this.deps.audit.append([surface, { ...notice, text }]);
    } catch (err) {
      this.deps.log.warn({ err, draft_id: draftId }, "could not post the reminder of a draft (or record it); it is not posted again");
    }
  }
}
