import { open, unlink } from "node:fs/promises";
import { join } from "node:path";
import type { Clock } from "../clock/clock.js";
import { errMessage } from "../store/fs-util.js";

/** What `GET /healthz` answers: ok, or the reasons the daemon cannot accept or send; warnings do not make it fail. */
export interface HealthReport {
  readonly ok: boolean;
  readonly reasons: readonly string[];
  /** Problems that do not stop accepting or sending (archiving old drafts failed). */
  readonly warnings?: readonly string[];
  /** The owner's Telegram Business connection (drafts sent as him): information, never a reason to fail. */
  readonly business?: { readonly connected: boolean; readonly enabled: boolean; readonly can_reply: boolean };
  /** Channels halted because their service refused the daemon's credentials (contract v5): no send call is made there. */
  readonly channels_halted?: readonly { readonly channel: string; readonly reason: string }[];
}

/** What the health is built from. */
export interface DaemonHealthOptions {
  readonly clock: Clock;
  /** HARNESS_DIR: where the write probe is made. */
  readonly harnessDir: string;
  /** Telegram counts as unreachable once its calls have failed for this long; default 60000. */
  readonly telegramGraceMs?: number;
  /** A write probe's result is reused for this long, so /healthz cannot be used to hammer the disk; default 5000. */
  readonly probeEveryMs?: number;
  /** Why the last archiving pass failed, or null (see archive-schedule.ts). */
  readonly archiving?: () => string | null;
  /** Standing problems found at start that do not stop accepting or sending (a callback cursor clamped, an archive month file missing). */
  readonly warnings?: () => readonly string[];
  /** The business connection as the owner's voice has it; absent: not shown. */
  readonly business?: () => { readonly connected: boolean; readonly enabled: boolean; readonly can_reply: boolean };
  /** Linear, email or Slack channels halted for their credentials; absent: none. */
  readonly haltedChannels?: () => readonly { readonly channel: string; readonly reason: string }[];
}

/**
 * Whether the daemon can accept and send, for `GET /healthz`. It is told
 * what happened (a getUpdates answered or failed, a store write failed or
 * succeeded) and probes HARNESS_DIR with a small fsync'd write at most every
 * few seconds. Reasons: the store cannot write; Telegram unreachable for over
 * a minute; another program polling the bot (409).
 */
export class DaemonHealth {
  private telegramFailingSince: number | null = null;
  private telegramError = "";
  private conflict = false;
  private storeFailure: { cause: string; at: number } | null = null;
  private probe: { at: number; error: string | null } | null = null;

  constructor(private readonly options: DaemonHealthOptions) {}

  /** A call to Telegram (getUpdates) answered. */
  telegramAnswered(): void {
    this.telegramFailingSince = null;
    this.conflict = false;
  }

  /** A call to Telegram failed: `conflict` for a 409 (another poller), otherwise Telegram could not be reached. */
  telegramFailed(err: unknown, conflict: boolean): void {
    this.conflict = conflict;
    if (conflict) return;
    this.telegramFailingSince ??= this.options.clock.now();
    this.telegramError = errMessage(err);
  }

  /** A write to the store or the audit log failed. */
  storeFailed(cause: string): void {
    this.storeFailure = { cause, at: this.options.clock.now() };
    this.probe = null;
  }

  /** A change was written (store and audit log). */
  storeWritten(): void {
    this.storeFailure = null;
    if (this.probe?.error) this.probe = null;
  }

  /** The current health; probes the disk if the last probe is older than probeEveryMs. */
  async check(): Promise<HealthReport> {
    const reasons: string[] = [];
    const store = this.storeFailure?.cause ?? (await this.probeDisk());
    if (store !== null)
      reasons.push(
        `the store cannot write (${store}): drafts are refused and decisions are not saved; free disk space or fix permissions in ${this.options.harnessDir}`,
      );
    const since = this.telegramFailingSince;
    const now = this.options.clock.now();
    if (since !== null && now - since > (this.options.telegramGraceMs ?? 60_000)) {
      reasons.push(
        `Telegram has been unreachable since ${new Date(since).toISOString()} (${this.telegramError}): nothing is posted or sent`,
      );
    }
    if (this.conflict) {
      reasons.push(
        "another program is polling this bot (409 Conflict): decisions are not received; stop the other instance or give it its own bot token",
      );
    }
    const archiving = this.options.archiving?.() ?? null;
    const halted = this.options.haltedChannels?.() ?? [];
    const warnings = [
      ...(archiving === null ? [] : [archiving]),
      ...(this.options.warnings?.() ?? []),
      ...halted.map(
        (h) =>
          `${h.channel} refused the daemon's credentials (${h.reason}): its drafts are posted for review, none is sent; fix the credentials and restart`,
      ),
    ];
    const b = this.options.business?.();
    return {
      ok: reasons.length === 0,
      reasons,
      ...(warnings.length === 0 ? {} : { warnings }),
      // Shown once the owner connected the bot (Telegram Business); absent otherwise.
      ...(b?.connected ? { business: { connected: true, enabled: b.enabled, can_reply: b.can_reply } } : {}),
      ...(halted.length === 0 ? {} : { channels_halted: halted }),
    };
  }

  /** null when a small file can be written and fsync'd in HARNESS_DIR, else why not. */
  private async probeDisk(): Promise<string | null> {
    const now = this.options.clock.now();
    if (this.probe !== null && now - this.probe.at < (this.options.probeEveryMs ?? 5_000)) return this.probe.error;
    const path = join(this.options.harnessDir, ".healthz-probe");
    let error: string | null = null;
    try {
      const fh = await open(path, "w", 0o600);
      try {
        await fh.writeFile("ok\n");
        await fh.sync();
      } finally {
        await fh.close();
      }
    } catch (err) {
      error = errMessage(err);
    }
    await unlink(path).catch(() => undefined);
    this.probe = { at: now, error };
    return error;
  }
}
