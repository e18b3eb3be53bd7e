/**
 * A Telegram fault scenario: the real daemon against a fresh Bot API double,
 * with helpers to submit, decide, wait for statuses, and judge the outcome
 * (no double send, no unapproved send) from the double and the files.
 */
import type { DraftRecord } from "../../../src/drafts/record.js";
import { eventually, freshDirs, startDaemon, type DaemonProcess } from "../../support/daemon-process.js";
import type { TelegramDouble } from "../../telegram-double/index.js";
import { judgeSends, unknownNotices, type SendVerdict } from "./sweep-checks.js";
import { readAudit, readLiveStore } from "./sweep-files.js";
import { daemonEnv, OWNER, sweepDouble } from "./sweep-world.js";

let counter = 0;

/** A running scenario. */
export class Scenario {
  private constructor(
    readonly double: TelegramDouble,
    readonly daemon: DaemonProcess,
  ) {}

  /** Starts a double and a daemon on a fresh HARNESS_DIR; `env` is added to the reliability defaults. */
  static async start(env: Record<string, string> = {}, setup?: (double: TelegramDouble) => void): Promise<Scenario> {
    const double = await sweepDouble();
    setup?.(double);
    const dirs = await freshDirs();
    const daemon = await startDaemon({ ...dirs, env: daemonEnv(double, env) });
    // Decisions count only once the daemon asked for reactions (allowed_updates).
    await eventually(() => double.allowedUpdates !== undefined, 15_000, "first getUpdates");
    return new Scenario(double, daemon);
  }

  /** Submits a draft with a unique text to `dest`; resolves with the answer (201 expected). */
  async submit(dest: number, label: string): Promise<{ draft_id: string; text: string; status: string; review_message_id: number | null }> {
    const text = `Fault scenario ${++counter}: ${label}.`;
    const res = await this.daemon.request("POST", "/drafts", {
      draft_text: text,
      destination_chat_id: String(dest),
      drafted_by_role: "CoS",
      originating_intent_id: `fault-${counter}`,
    });
    if (res.status !== 201) throw new Error(`POST /drafts answered ${res.status}: ${JSON.stringify(res.body)}`);
    return { ...res.body, text };
  }

  /** The draft as the daemon has it. */
  async draft(id: string): Promise<DraftRecord> {
    return (await this.daemon.request("GET", `/drafts/${id}`)).body as DraftRecord;
  }

  /** Waits until the draft is in `status` (default timeout 30 s). */
  async waitFor(id: string, status: string, timeoutMs = 30_000): Promise<DraftRecord> {
    return eventually(
      async () => {
        const d = await this.draft(id);
        return d.status === status ? d : null;
      },
      timeoutMs,
      `draft ${id} ${status}`,
    );
  }

  /** The owner's 👍 on the draft's review message. */
  async approve(id: string): Promise<void> {
    const d = await this.waitFor(id, "pending");
    this.double.injectReaction({ chatId: OWNER, messageId: d.review_message_id!, userId: OWNER, newEmojis: ["👍"] });
  }

  /**
   * Ends the daemon's held long poll with an update that decides nothing (a 🔥
   * reaction), so that faults planned for getUpdates hit the next polls.
   */
  async wakePoll(): Promise<void> {
    const before = this.double.callCount("getUpdates");
    this.double.injectReaction({ chatId: OWNER, messageId: 1, userId: OWNER, newEmojis: ["🔥"] });
    await eventually(() => this.double.callCount("getUpdates") > before, 10_000, "the held poll woke");
  }

  /** How often `text` reached chat `dest`. */
  delivered(dest: number, text: string): number {
    return this.double.messages(dest).filter((m) => m.text === text).length;
  }

  /** True once the reviewers were told that this draft's outcome is unknown. */
  async told(id: string): Promise<boolean> {
    const d = await this.draft(id);
    return d.review_message_id !== null && unknownNotices(this.double).has(d.review_message_id);
  }

  /** Replies in the review chat to this draft's review message (a notice or a status line). */
  repliesTo(reviewMessageId: number): string[] {
    return this.double
      .messages(OWNER)
      .filter((m) => m.replyToMessageId === reviewMessageId)
      .map((m) => m.text);
  }

  /** Review posts (with buttons) Telegram accepted that no draft records. */
  async orphanPosts(): Promise<number> {
    const recorded = new Set([...(await readLiveStore(this.daemon.harnessDir)).drafts.values()].map((d) => d.review_message_id));
    return this.double
      .messages(OWNER)
      .filter((m) => m.replyMarkup !== undefined && m.replyToMessageId === undefined && !recorded.has(m.messageId)).length;
  }

  /** No double send, no unapproved send (store and audit log as on disk now). */
  async judge(): Promise<SendVerdict> {
    const store = await readLiveStore(this.daemon.harnessDir);
    return judgeSends(this.double, store.drafts, await readAudit(this.daemon.harnessDir));
  }

  /** Log lines of the daemon whose message matches. */
  logs(match: RegExp): Array<Record<string, unknown>> {
    return this.daemon.logs.filter((l) => typeof l.msg === "string" && match.test(l.msg));
  }

  /** SIGTERM; resolves with the exit code. */
  async stop(): Promise<number | null> {
    try {
      return await this.daemon.stop("SIGTERM");
    } finally {
      await this.double.stop();
    }
  }

  /** Kills whatever is left (afterEach). */
  async kill(): Promise<void> {
    await this.daemon.stop("SIGKILL");
    await this.double.stop();
  }
}
