/**
 * The one line before a burst of review posts ("5 drafts follow: …"), sent and corrected in the
 * review chat's lane. It lives apart from TelegramReviewChat because it is a concern of its own:
 * counting the posts that wait, saying where they go, and correcting the line once the burst ends;
 * the chat only tells it when a post waits, is posted and is done.
 */
import type { Api } from "grammy";
import type { LinkPreviewOptions } from "grammy/types";
import type { Clock } from "../clock/clock.js";
import type { DraftRecord } from "../drafts/record.js";
import {
  BURST_LINGER_GAPS,
  BURST_LINGER_MIN_MS,
  burstSummaryText,
  BurstTracker,
  burstWhere,
  followingRoles,
  type Burst,
} from "./burst-summary.js";
import { LANE, type ReviewLane, type Turn } from "./review-lane.js";
import type { ReviewTopics } from "./review-topics.js";

/** No preview for the daemon's own messages (they carry no links of the draft). */
const NO_PREVIEW: LinkPreviewOptions = { is_disabled: true };

/** What the burst line needs of the review chat: its lane, its paced call and where its main thread is. */
export interface BurstNoticesOptions {
  readonly api: Api;
  readonly chatId: string;
  readonly clock: Clock;
  readonly lane: ReviewLane;
  /** The review chat's gap between calls (ms): a burst ends once nothing waited for BURST_LINGER_GAPS of them. */
  readonly gapMs: number;
  readonly threadId: number | null;
  readonly topics?: ReviewTopics;
  readonly log: { warn(obj: object, msg: string): void };
  /** The main thread, as sendMessage's options take it. */
  readonly where: () => { message_thread_id?: number };
  /** One call in its turn, 429s waited out (TelegramReviewChat.attempt). */
  readonly attempt: <T>(turn: Turn, fn: () => Promise<T>) => Promise<T>;
}

/** Announces and corrects the summary line of each burst of review posts. */
export class BurstNotices {
  private readonly burst = new BurstTracker();

  constructor(private readonly options: BurstNoticesOptions) {}

  /** A post starts waiting: the burst it belongs to (null: none), its line announced when this post started it. */
  add(waiting: object, role: string): Burst | null {
    const { burst, started } = this.burst.add(waiting, role);
    if (burst !== null && started) void this.announce(burst);
    return burst;
  }

  /** Where a post of a burst went, and its message id (one above the summary is not counted by it). */
  posted(burst: Burst | null, draft: DraftRecord, thread: number | null, messageId: number): void {
    if (burst === null) return;
    burst.threads.add(thread);
    burst.posted.push({ role: draft.drafted_by_role, messageId });
  }

  /**
   * A post of a burst no longer waits. Once nothing has waited for BURST_LINGER_GAPS gaps the burst ends, and its
   * summary is corrected once if it grew or its posts went elsewhere than it said.
   */
  done(waiting: object): void {
    const { clock } = this.options;
    if (!this.burst.remove(waiting, clock.now())) return;
    const lingerMs = Math.max(BURST_LINGER_MIN_MS, BURST_LINGER_GAPS * this.options.gapMs);
    clock.setTimeout(() => {
      const ended = this.burst.end(clock.now(), lingerMs);
      if (ended !== null) void this.correct(ended);
    }, lingerMs);
  }

  /** One line before a burst's posts, counting its drafts by role (see BURST_MIN_WAITING) and saying where they go. */
  private async announce(burst: Burst): Promise<void> {
    const { api, chatId, lane } = this.options;
    await lane
      .run(LANE.notice, async (turn) => {
        let text = "";
        const sent = await this.options.attempt(turn, () => {
          // Counted when its call starts; a post whose answer was still on its way is corrected at the burst's end.
          text = this.text(burst);
          return api.sendMessage(chatId, text, { ...this.options.where(), link_preview_options: NO_PREVIEW });
        });
        burst.shown = { messageId: sent.message_id, text };
      })
      .catch((err: unknown) => this.options.log.warn({ err }, "could not post the summary of a burst of drafts"));
  }

  /** The summary of a burst that ended, said again if what it says changed (one edit at most). */
  private async correct(ended: Burst): Promise<void> {
    const { api, chatId, lane } = this.options;
    await lane
      .run(LANE.notice, async (turn) => {
        const text = this.text(ended);
        if (ended.shown === null || text === ended.shown.text) return;
        const { messageId } = ended.shown;
        await this.options.attempt(turn, () => api.editMessageText(chatId, messageId, text, { link_preview_options: NO_PREVIEW }));
      })
      .catch((err: unknown) => this.options.log.warn({ err }, "could not correct the summary of a burst of drafts"));
  }

  /** The burst's summary: the posts that follow it (all of them, should every one have gone before it), and where. */
  private text(burst: Burst): string {
    const topics = this.options.topics;
    const guess = topics?.perRole === true ? "topics" : "below";
    const where = burstWhere(burst, topics?.main ?? this.options.threadId ?? null, guess);
    const following = followingRoles(burst);
    return burstSummaryText(following.length > 0 ? following : burst.roles, where) ?? "";
  }
}
