/**
 * The crash sweep's agents: a drafting agent that submits drafts over HTTP
 * (and submits again, with the same idempotency key, whatever a kill left
 * unanswered), and a reviewer that injects each draft's decisions into the
 * Bot API double once the previous one is in the audit log. Each life of the
 * daemon gets one action, chosen to go with its kill point.
 */
import type { DraftRecord } from "../../../src/drafts/record.js";
import { isFinal } from "../../../src/drafts/status.js";
import type { TelegramDouble } from "../../telegram-double/index.js";
import type { ApiAnswer } from "./sweep-daemon.js";
import type { AuditTail, StoreView } from "./sweep-files.js";
import { actorOf, payloadOf, REACTION, REPLY, type DraftPlan, type Step } from "./sweep-plan.js";

/** The intake API of the current life. */
export interface Intake {
  request(method: string, path: string, body?: unknown): Promise<ApiAnswer>;
}

/** What the agents can do next. */
export type Action =
  | { readonly kind: "submit"; readonly t: Tracked }
  | { readonly kind: "step"; readonly t: Tracked; readonly step: Step; readonly rec: DraftRecord };

/** An update the reviewer injected. */
export interface Injected {
  readonly updateId: number;
  readonly draftN: number;
  readonly step: Step;
  readonly life: number;
}

/** A draft as the agents track it. */
export interface Tracked {
  readonly plan: DraftPlan;
  draftId: string | null;
  /** The daemon answered 201 or 200 for it. */
  acked: boolean;
  /** The answer's review_message_id when it said `pending`. */
  ackedReviewMessageId: number | null;
  submitting: boolean;
  attempts: number;
  replayed: boolean;
  step: number;
  waitingFor: number | null;
  /** The status that ended the plan early. */
  cut: string | null;
  readonly reactions: Map<number, string[]>;
}

/** True for an owner's 👍: a step that leads to a send. */
export function isApproval(a: Action): boolean {
  return a.kind === "step" && a.step.who === "owner" && a.step.decision === "send" && !a.step.afterFinal;
}

/** The agents. */
export class SweepDriver {
  readonly tracked: Tracked[];
  readonly injected: Injected[] = [];
  /** Answers that broke the contract (wrong status code, another draft for the same key). */
  readonly answerProblems: string[] = [];
  submitted = 0;
  replays = 0;
  private readonly inflight = new Set<Promise<void>>();

  constructor(
    plans: readonly DraftPlan[],
    private readonly double: TelegramDouble,
  ) {
    this.tracked = plans.map((plan) => ({
      plan,
      draftId: null,
      acked: false,
      ackedReviewMessageId: null,
      submitting: false,
      attempts: 0,
      replayed: false,
      step: 0,
      waitingFor: null,
      cut: null,
      reactions: new Map(),
    }));
  }

  /** True once every draft is answered and every step injected and audited (or cut short). */
  done(): boolean {
    return this.tracked.every(
      (t) =>
        t.acked &&
        !t.submitting &&
        (t.step >= t.plan.steps.length || t.cut !== null) &&
        t.waitingFor === null &&
        (!t.plan.replay || t.replayed),
    );
  }

  /** What can be done now: the next new draft (if `allowedSubmits` allows) and every decision that is due. */
  options(store: StoreView, audit: AuditTail, allowedSubmits: number): Action[] {
    const out: Action[] = [];
    const next = this.tracked.find((t) => t.attempts === 0 && !t.submitting);
    if (next && this.submitted < allowedSubmits) out.push({ kind: "submit", t: next });
    for (const t of this.tracked) {
      const step = this.dueStep(t, store, audit);
      if (step) out.push(step);
    }
    return out;
  }

  /** Submits again what a kill left unanswered, and the planned idempotent replays. */
  retry(api: Intake): void {
    for (const t of this.tracked) {
      if (t.submitting) continue;
      if ((!t.acked && t.attempts > 0) || (t.acked && t.plan.replay && !t.replayed)) this.submit(api, t);
    }
  }

  /** Does `a`; returns the injected update id for a step. */
  perform(api: Intake, a: Action, life: number): number | null {
    if (a.kind === "submit") {
      this.submitted++;
      this.submit(api, a.t);
      return null;
    }
    const updateId = this.inject(a.t, a.step, a.rec.review_message_id!);
    a.t.step++;
    a.t.waitingFor = updateId;
    this.injected.push({ updateId, draftN: a.t.plan.n, step: a.step, life });
    return updateId;
  }

  /** Waits for submissions in flight (they fail fast once the daemon is gone). */
  async settle(): Promise<void> {
    await Promise.allSettled([...this.inflight]);
  }

  private dueStep(t: Tracked, store: StoreView, audit: AuditTail): Action | null {
    if (t.waitingFor !== null) {
      if (!audit.byUpdate.has(t.waitingFor)) return null;
      t.waitingFor = null;
    }
    const steps = t.plan.steps;
    if (!t.acked || t.draftId === null || t.step >= steps.length || t.cut !== null) return null;
    const rec = store.drafts.get(t.draftId);
    if (!rec || rec.review_message_id === null) return null;
    if (isFinal(rec.status)) {
      // The plan's remaining decisions come too late; a planned second tap still comes.
      const late = steps.findIndex((step, i) => i >= t.step && step.afterFinal);
      if (late < 0) {
        t.cut = rec.status;
        return null;
      }
      t.step = late;
      return { kind: "step", t, step: steps[late]!, rec };
    }
    const step = steps[t.step]!;
    if (step.afterFinal || (rec.status !== "pending" && rec.status !== "deferred")) return null;
    return { kind: "step", t, step, rec };
  }

  private submit(api: Intake, t: Tracked): void {
    t.submitting = true;
    t.attempts++;
    const replaying = t.acked;
    const work = api.request("POST", "/drafts", payloadOf(t.plan)).then(
      (res) => this.answered(t, res, replaying),
      () => {}, // the daemon died under the request: submitted again in a later life
    );
    const p = work.finally(() => {
      t.submitting = false;
      this.inflight.delete(p);
    });
    this.inflight.add(p);
  }

  private answered(t: Tracked, res: ApiAnswer, replaying: boolean): void {
    if (res.status !== 201 && res.status !== 200) {
      this.answerProblems.push(`draft ${t.plan.n}: POST /drafts answered ${res.status} ${JSON.stringify(res.body)}`);
      return;
    }
    const id = String(res.body.draft_id);
    if (t.draftId !== null && t.draftId !== id)
      this.answerProblems.push(`draft ${t.plan.n}: key ${t.plan.key} answered ${id}, before ${t.draftId}`);
    if (replaying) {
      if (res.status !== 200) this.answerProblems.push(`draft ${t.plan.n}: a replay of its key answered ${res.status}, not 200`);
      t.replayed = true;
      this.replays++;
    }
    t.draftId = id;
    t.acked = true;
    if (res.body.status === "pending" && t.ackedReviewMessageId === null) t.ackedReviewMessageId = res.body.review_message_id;
  }

  private inject(t: Tracked, step: Step, messageId: number): number {
    const { userId, chatId } = actorOf(step);
    if (step.via === "reaction") {
      const old = t.reactions.get(userId) ?? [];
      const emoji = REACTION[step.decision];
      t.reactions.set(userId, [emoji]);
      return this.double.injectReaction({ chatId, messageId, userId, oldEmojis: old, newEmojis: [emoji] }).update.update_id;
    }
    if (step.via === "button") {
      return this.double.injectCallback({ chatId, messageId, userId, data: `v1:${step.decision}:${t.draftId}` }).update.update_id;
    }
    const text = step.note ?? REPLY[step.decision];
    return this.double.injectMessage({ chatId, userId, text, replyToMessageId: messageId }).update.update_id;
  }
}
