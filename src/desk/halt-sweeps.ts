/**
 * The desk's two sweeps over halted approvals: when a halt begins, approved drafts it stops are halted
 * at once (their posts say so); when it ends, every draft it stopped offers 👍 Send again. Apart from
 * ReviewDesk because they are the kill switch's side of the desk, run by its watcher and at start.
 */
import type { DraftEvent } from "../drafts/events.js";
import type { TransitionResult } from "../drafts/machine.js";
import type { DraftRecord } from "../drafts/record.js";
import type { DraftStatus } from "../drafts/status.js";
import type { DeskEffects } from "./desk-effects.js";
import type { ReviewDeskOptions } from "./desk-options.js";
import { isInertDraft } from "./test-drafts.js";

/** What the sweeps need of the desk. */
export interface HaltSweepDeps extends Pick<ReviewDeskOptions, "sendsHalted" | "approvalHalted"> {
  readonly effects: DeskEffects;
  readonly testMode: boolean;
  get(draftId: string): DraftRecord | undefined;
  list(status: DraftStatus): DraftRecord[];
  /** Applies an event in the draft's queue. */
  apply(draftId: string, event: DraftEvent): Promise<TransitionResult>;
  /** Applies an event now; the caller holds the draft's queue. */
  applyNow(draftId: string, event: DraftEvent): Promise<TransitionResult>;
  /** Runs `work` in the draft's queue, in order with its other events. */
  inQueue(draftId: string, work: () => Promise<void>): Promise<void>;
}

/** Halts and lifts approvals as the kill switch changes (see the file's comment). */
export class HaltSweeps {
  constructor(private readonly deps: HaltSweepDeps) {}

  /**
   * A halt ended (the kill switch's watcher, a start, a halt just recorded):
   * if sends are on now, every draft the halt stopped offers 👍 Send again
   * (`halt_lifted`; its post is re-shown and bound anew).
   */
  liftHalts(): Promise<void> {
    // Tracked like an effect: settle() waits for it.
    return this.deps.effects.closed ? Promise.resolve() : this.deps.effects.track(this.liftHaltsNow());
  }

  /** Lifts the lasting halts now, if sends are on. */
  private async liftHaltsNow(): Promise<void> {
    const { sendsHalted } = this.deps;
    if (sendsHalted === undefined) return;
    const lasting = this.deps.list("halted").filter((d) => d.halt_lasts);
    if (lasting.length === 0 || (await sendsHalted()) !== null) return;
    for (const d of lasting) await this.deps.apply(d.draft_id, { type: "halt_lifted" });
  }

  /**
   * A halt began (the kill switch's watcher, a start while halted): every
   * approved draft not yet sending that it stops (approvalHalted) is halted
   * now, and its post says so, instead of showing a send time and ↩️ Undo
   * until its send call finds the halt (which still checks: a send already
   * under way is the send path's). `draftIds`: only these (a fresh approval).
   */
  haltApprovals(draftIds?: readonly string[]): Promise<void> {
    if (this.deps.approvalHalted === undefined || this.deps.effects.closed) return Promise.resolve();
    const ids = draftIds ?? this.deps.list("approved").map((d) => d.draft_id);
    return this.deps.effects.track(Promise.all(ids.map((id) => this.deps.inQueue(id, () => this.haltApproval(id)))).then(() => {}));
  }

  /** In the draft's queue: halted if still approved and the switch stops it. */
  private async haltApproval(draftId: string): Promise<void> {
    const draft = this.deps.get(draftId);
    if (draft?.status !== "approved" || isInertDraft(draft, this.deps.testMode)) return;
    const halt = await this.deps.approvalHalted?.(draft);
    if (halt) await this.deps.applyNow(draftId, { type: "halt", ...halt });
  }
}
