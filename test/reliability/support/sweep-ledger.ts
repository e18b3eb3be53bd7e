/**
 * What the crash sweep checks after every kill, after every restart and at
 * the end, and the figures it reports. Violations are collected (deduplicated)
 * rather than thrown, so one run reports every kind it found.
 */
import { existsSync } from "node:fs";
import { harnessPaths } from "../../../src/app/paths.js";
import { verifyAuditChain } from "../../../src/audit/verify-chain.js";
import { CRASH_DURING_SEND } from "../../../src/desk/recovery.js";
import type { DraftRecord } from "../../../src/drafts/record.js";
import { isFinal } from "../../../src/drafts/status.js";
import type { TelegramDouble } from "../../telegram-double/index.js";
import { deliveredAndConfirmed, judgeSends, unknownNotices } from "./sweep-checks.js";
import type { Life } from "./sweep-daemon.js";
import { logsOf } from "./sweep-daemon.js";
import type { SweepDriver } from "./sweep-driver.js";
import { readAudit, readLiveStore, readStore, type AuditTail, type StoreView } from "./sweep-files.js";
import { OWNER, STRANGER } from "./sweep-world.js";

/** The state a kill left on disk, for the checks after the restart. */
export interface KillSnapshot {
  readonly sending: readonly string[];
  /** Of those, the ones whose outcome the audit log already had (the store had not got that line): draft_id -> status. */
  readonly auditedOutcome: ReadonlyMap<string, string>;
  /** Decisions Telegram had delivered and seen confirmed when the kill landed: it will not deliver them again. */
  readonly confirmed: ReadonlySet<number>;
}

/** The sweep's findings and figures. */
export class SweepLedger {
  private readonly found = new Map<string, string>();
  readonly kills = new Map<string, number>();
  readonly landed = new Map<string, number>();
  doubleSends = new Set<string>();
  unapproved = new Set<string>();
  lostIntakes = new Set<string>();
  lostDecisions = new Set<number>();
  unresolvedSending = 0;
  storeLoadFailures = 0;
  tornStoreTails = 0;
  midCompaction = 0;
  journalReplayed = 0;
  auditRecovered = 0;
  startupKillsBeforeRunning = 0;

  constructor(
    private readonly double: TelegramDouble,
    private readonly harnessDir: string,
    private readonly driver: SweepDriver,
    private readonly audit: AuditTail,
  ) {}

  /** Every violation found, one line each. */
  get violations(): string[] {
    return [...this.found.values()];
  }

  /** Records a violation once per `key`. */
  violation(key: string, what: string): void {
    if (!this.found.has(key)) this.found.set(key, what);
  }

  count(map: Map<string, number>, key: string): void {
    map.set(key, (map.get(key) ?? 0) + 1);
  }

  /** With the daemon dead: the store loads, intakes are kept, sends are judged. Returns what the restart must resolve. */
  async afterKill(life: number, how: string): Promise<KillSnapshot> {
    this.count(this.kills, how);
    if (existsSync(`${harnessPaths(this.harnessDir).drafts}.compact.tmp`)) this.midCompaction++;
    let store: StoreView;
    try {
      store = await readStore(this.harnessDir);
    } catch (err) {
      this.storeLoadFailures++;
      this.violation(`store-${life}`, `after kill ${life} (${how}) the store does not load: ${(err as Error).message}`);
      return { sending: [], auditedOutcome: new Map(), confirmed: new Set() };
    }
    if (store.droppedBytes > 0) this.tornStoreTails++;
    this.checkIntakes(store, `kill ${life} (${how})`);
    const audit = this.audit.refresh();
    this.judge(store.drafts, audit, `kill ${life} (${how})`);
    const sending = [...store.drafts.values()].filter((d) => d.status === "sending");
    return {
      sending: sending.map((d) => d.draft_id),
      auditedOutcome: auditedOutcomes(sending, audit),
      confirmed: deliveredAndConfirmed(this.double),
    };
  }

  /** With the new daemon running (start-up recovery and the journal replay done): sends cut short are unknown, decisions confirmed before the kill are in the audit log. */
  async afterRestart(life: Life, lifeNo: number, snapshot: KillSnapshot | null): Promise<void> {
    this.journalReplayed += logsOf(life, "handling updates a stop left unhandled").reduce((n, l) => n + Number(l.updates ?? 0), 0);
    this.auditRecovered += logsOf(life, "audited changes that a crash had left out of swarm.jsonl").reduce(
      (n, l) => n + Number(l.recovered ?? 0),
      0,
    );
    const store = await readLiveStore(this.harnessDir);
    this.audit.refresh();
    for (const id of snapshot?.sending ?? []) {
      const d = store.drafts.get(id);
      // An outcome the audit log had is kept (restored to the store), never downgraded nor resent.
      const audited = snapshot?.auditedOutcome.get(id);
      if (audited !== undefined ? d?.status === audited : d?.status === "outcome_unknown" && d.reason === CRASH_DURING_SEND) continue;
      this.unresolvedSending++;
      this.violation(
        `sending-${id}`,
        `life ${lifeNo}: draft ${id} was sending at the kill${audited ? ` (the audit log had ${audited})` : ""} and is ${d?.status} (${d?.reason}) after the restart`,
      );
    }
    // Only what was confirmed before the kill: the new daemon may be handling what it fetched since.
    const confirmed = snapshot?.confirmed ?? new Set<number>();
    for (const inj of this.driver.injected) {
      if (!confirmed.has(inj.updateId) || this.audit.byUpdate.has(inj.updateId)) continue;
      this.lostDecisions.add(inj.updateId);
      this.violation(
        `decision-${inj.updateId}`,
        `life ${lifeNo}: update ${inj.updateId} (draft ${inj.draftN}, ${inj.step.who} ${inj.step.via} ${inj.step.decision}) was delivered and confirmed, and is not in the audit log`,
      );
    }
  }

  /** The end: everything final, every decision handled once, notices for unknown outcomes, the audit chain whole. */
  async final(): Promise<{ store: StoreView; statuses: Record<string, number>; unknown: number; notices: number }> {
    const store = await readStore(this.harnessDir);
    const audit = await readAudit(this.harnessDir);
    this.checkIntakes(store, "end");
    const verdict = this.judge(store.drafts, audit, "end");
    const statuses: Record<string, number> = {};
    const notices = unknownNotices(this.double);
    let unknown = 0;
    for (const d of store.drafts.values()) {
      statuses[d.status] = (statuses[d.status] ?? 0) + 1;
      const times = verdict.countByText.get(d.draft_text) ?? 0;
      if (!isFinal(d.status)) this.violation(`final-${d.draft_id}`, `end: draft ${d.draft_id} is still ${d.status}`);
      if (d.status === "sent" && times !== 1)
        this.violation(`sent-${d.draft_id}`, `end: sent draft ${d.draft_id} reached its chat ${times} times`);
      if (["failed", "revise", "expired"].includes(d.status) && times !== 0)
        this.violation(`leak-${d.draft_id}`, `end: ${d.status} draft ${d.draft_id} reached its chat`);
      if (d.approval !== null && d.approval.actor.user_id === STRANGER)
        this.violation(`stranger-${d.draft_id}`, `end: draft ${d.draft_id} carries a stranger's approval`);
      if (d.status === "outcome_unknown") {
        unknown++;
        if (d.review_message_id === null || !notices.has(d.review_message_id)) {
          this.violation(
            `notice-${d.draft_id}`,
            `end: draft ${d.draft_id} is outcome_unknown (${d.reason}) and the review chat was never told`,
          );
        }
      }
    }
    this.checkDecisions(audit);
    this.checkFinalKept(audit);
    this.checkDuplicates(store.drafts);
    const chain = await verifyAuditChain(harnessPaths(this.harnessDir).audit);
    if (!chain.ok) this.violation("chain", `end: the audit chain is broken at line ${chain.line}: ${chain.reason}`);
    if (this.double.excludedUpdates().length > 0)
      this.violation("excluded", `end: ${this.double.excludedUpdates().length} injected updates were never delivered (allowed_updates)`);
    for (const p of this.driver.answerProblems) this.violation(`answer-${p}`, p);
    return { store, statuses, unknown, notices: [...notices.values()].reduce((a, b) => a + b, 0) };
  }

  /** True when every outcome_unknown draft in the store has had its notice (polled before the last stop). */
  async noticesOut(): Promise<boolean> {
    const notices = unknownNotices(this.double);
    const store = await readLiveStore(this.harnessDir);
    return [...store.drafts.values()].every(
      (d) => d.status !== "outcome_unknown" || (d.review_message_id !== null && notices.has(d.review_message_id)),
    );
  }

  /** Review posts Telegram accepted that no draft records (a kill between the post and its record). */
  orphanPosts(drafts: ReadonlyMap<string, DraftRecord>): number {
    const recorded = new Set([...drafts.values()].map((d) => d.review_message_id));
    return this.double
      .messages(OWNER)
      .filter((m) => m.replyMarkup !== undefined && m.replyToMessageId === undefined && !recorded.has(m.messageId)).length;
  }

  private checkIntakes(store: StoreView, when: string): void {
    for (const t of this.driver.tracked) {
      if (!t.acked || t.draftId === null) continue;
      const d = store.drafts.get(t.draftId);
      if (!d) {
        this.lostIntakes.add(t.draftId);
        this.violation(`intake-${t.draftId}`, `${when}: acknowledged draft ${t.draftId} (draft ${t.plan.n}) is not in the store`);
      } else if (t.ackedReviewMessageId !== null && d.review_message_id !== t.ackedReviewMessageId) {
        this.violation(
          `post-${t.draftId}`,
          `${when}: draft ${t.draftId} was answered with review message ${t.ackedReviewMessageId}, the store has ${d.review_message_id}`,
        );
      }
    }
  }

  private judge(drafts: ReadonlyMap<string, DraftRecord>, audit: readonly Record<string, any>[], when: string) {
    const v = judgeSends(this.double, drafts, audit);
    for (const d of v.doubleSends) {
      this.doubleSends.add(d);
      this.violation(`double-${d}`, `${when}: ${d}`);
    }
    for (const u of v.unapproved) {
      this.unapproved.add(u);
      this.violation(`unapproved-${u}`, `${when}: ${u}`);
    }
    for (const d of drafts.values()) {
      if (d.status === "sent" && (v.countByText.get(d.draft_text) ?? 0) !== 1)
        this.violation(
          `sent-${d.draft_id}`,
          `${when}: draft ${d.draft_id} is sent, its text reached its chat ${v.countByText.get(d.draft_text) ?? 0} times`,
        );
    }
    return v;
  }

  /** Every injected update is in the audit log, applied at most once; a stranger's is refused. */
  private checkDecisions(audit: readonly Record<string, any>[]): void {
    const applied = new Map<number, number>();
    const seen = new Set<number>();
    for (const r of audit) {
      if (typeof r.update_id !== "number") continue;
      seen.add(r.update_id);
      if (r.kind === "transition") applied.set(r.update_id, (applied.get(r.update_id) ?? 0) + 1);
    }
    for (const inj of this.driver.injected) {
      if (!seen.has(inj.updateId)) {
        this.lostDecisions.add(inj.updateId);
        this.violation(
          `decision-${inj.updateId}`,
          `end: update ${inj.updateId} (draft ${inj.draftN}, ${inj.step.who} ${inj.step.via} ${inj.step.decision}) never reached the audit log`,
        );
      }
      if ((applied.get(inj.updateId) ?? 0) > 1)
        this.violation(`twice-${inj.updateId}`, `end: update ${inj.updateId} was applied ${applied.get(inj.updateId)} times`);
      if (inj.step.who === "stranger" && (applied.get(inj.updateId) ?? 0) > 0)
        this.violation(`stranger-${inj.updateId}`, `end: a stranger's update ${inj.updateId} changed a draft`);
    }
  }

  /** No draft's audited history leaves a final status. */
  private checkFinalKept(audit: readonly Record<string, any>[]): void {
    const byDraft = new Map<string, Array<{ version: number; to: string }>>();
    for (const r of audit) {
      if (r.kind !== "transition" || typeof r.draft_id !== "string") continue;
      byDraft.set(r.draft_id, [...(byDraft.get(r.draft_id) ?? []), { version: Number(r.version), to: String(r.to) }]);
    }
    for (const [id, path] of byDraft) {
      path.sort((a, b) => a.version - b.version);
      const first = path.findIndex((p) => isFinal(p.to as DraftRecord["status"]));
      if (first >= 0 && path.slice(first).some((p) => p.to !== path[first]!.to)) {
        this.violation(`left-final-${id}`, `end: draft ${id} left a final status: ${path.map((p) => p.to).join(" → ")}`);
      }
    }
  }

  /** One draft per idempotency key (the texts are unique per key). */
  private checkDuplicates(drafts: ReadonlyMap<string, DraftRecord>): void {
    const byText = new Map<string, number>();
    for (const d of drafts.values()) byText.set(d.draft_text, (byText.get(d.draft_text) ?? 0) + 1);
    for (const [text, n] of byText) if (n > 1) this.violation(`dup-${text}`, `end: ${n} drafts hold ${JSON.stringify(text.slice(0, 60))}`);
  }
}

/** Drafts `sending` in the store whose next change (out of `sending`, to a final status) the audit log has: draft_id -> that status. */
function auditedOutcomes(sending: readonly DraftRecord[], audit: readonly Record<string, any>[]): Map<string, string> {
  const version = new Map(sending.map((d) => [d.draft_id, d.version + 1]));
  const out = new Map<string, string>();
  for (const r of audit) {
    if (r.kind !== "transition" || r.from !== "sending" || version.get(r.draft_id) !== r.version) continue;
    if (isFinal(r.to)) out.set(r.draft_id, r.to);
  }
  return out;
}
