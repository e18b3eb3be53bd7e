/**
 * A burst: this many review posts (or more) waiting for the review chat at
 * once. Below it posts follow each other within a few seconds and need no
 * summary; from it on, the owner gets one line first that says what is coming.
 */
export const BURST_MIN_WAITING = 5;

/**
 * One burst of review posts: every post that came while it lasted (not only
 * those waiting when its summary went out), and where they went. Its summary
 * is said once, and corrected once at its end if the burst grew or its posts
 * went elsewhere than the summary said.
 */
export interface Burst {
  /** The drafting role of each post of the burst, in order of arrival. */
  readonly roles: string[];
  /** The threads its posts went to (null: the main thread), as they were posted. */
  readonly threads: Set<number | null>;
  /** Its posts made so far: role and message id (the summary counts those that follow it in the chat). */
  readonly posted: Array<{ readonly role: string; readonly messageId: number }>;
  /** The summary as the review chat shows it, once it went out. */
  shown: { readonly messageId: number; readonly text: string } | null;
}

/**
 * How long, in review-chat gaps (one message's pace), a burst lasts after its
 * last waiting post took its turn: drafts that come within it still belong to
 * it (the owner sees one stream of posts under one summary), not to a new one.
 */
export const BURST_LINGER_GAPS = 5;

/** The shortest a burst lingers (ms), however fast the review chat is paced (a local double's scaled pace too). */
export const BURST_LINGER_MIN_MS = 2_000;

/**
 * Tracks the review posts waiting for their turn in the review chat, so that
 * a burst gets exactly one summary line before its posts. The burst ends when
 * nothing has waited for BURST_LINGER_GAPS gaps; the next one gets its own summary.
 */
export class BurstTracker {
  private readonly waiting = new Map<object, string>();
  private current: Burst | null = null;
  private drainedAt: number | null = null;

  /**
   * Notes a post that starts waiting: the burst it belongs to (null: none), and whether this post made that
   * burst, so that it has no summary yet (the caller says it).
   */
  add(token: object, role: string): { readonly burst: Burst | null; readonly started: boolean } {
    this.waiting.set(token, role);
    this.drainedAt = null;
    if (this.current !== null) {
      this.current.roles.push(role);
      return { burst: this.current, started: false };
    }
    if (this.waiting.size < BURST_MIN_WAITING) return { burst: null, started: false };
    this.current = { roles: [...this.waiting.values()], threads: new Set(), posted: [], shown: null };
    return { burst: this.current, started: true };
  }

  /** The post's turn came (or it failed): it no longer waits. True when a burst has nothing waiting now (see `end`). */
  remove(token: object, now: number): boolean {
    // A post is removed when its turn comes and again when it ends (or fails): only the first counts.
    if (!this.waiting.delete(token)) return false;
    if (this.waiting.size > 0 || this.current === null) return false;
    this.drainedAt ??= now;
    return true;
  }

  /** Ends the burst once nothing has waited for `lingerMs`: it is returned (its summary may need a correction). */
  end(now: number, lingerMs: number): Burst | null {
    if (this.current === null || this.drainedAt === null || now - this.drainedAt < lingerMs) return null;
    const ended = this.current;
    this.current = null;
    this.drainedAt = null;
    return ended;
  }
}

/**
 * The roles of the posts a burst's summary counts: those that follow it in the chat. A post made before the
 * summary (a lower message id; before it went out: every post made so far) stands above it and is not counted.
 */
export function followingRoles(burst: Burst): string[] {
  const shown = burst.shown?.messageId ?? Number.POSITIVE_INFINITY;
  const above = burst.posted.filter((p) => p.messageId < shown).map((p) => p.role);
  return burst.roles.filter((role) => {
    const at = above.indexOf(role);
    if (at < 0) return true;
    above.splice(at, 1);
    return false;
  });
}

/** Where a burst's posts go, as its summary says it: below it, or each in its role's topic. */
export type BurstWhere = "below" | "topics";

/**
 * Where the posts of `burst` went (`main` is the main thread): each in its
 * role's topic when any went to a thread other than the main one; `guess`
 * while none was posted yet.
 */
export function burstWhere(burst: Burst, main: number | null, guess: BurstWhere): BurstWhere {
  if (burst.threads.size === 0) return guess;
  return [...burst.threads].some((t) => t !== main) ? "topics" : "below";
}

/**
 * "📥 30 new drafts: 10 Scribe, 10 CoS, 10 Margot. They follow below." (roles in order of arrival), or, with
 * topics per role, "… 10 Margot, each in its role's topic."; null for none.
 */
export function burstSummaryText(roles: readonly string[], where: BurstWhere = "below"): string | null {
  if (roles.length === 0) return null;
  const counts = new Map<string, number>();
  for (const role of roles) counts.set(role, (counts.get(role) ?? 0) + 1);
  const parts = [...counts].map(([role, n]) => `${n} ${role}`);
  const noun = roles.length === 1 ? "draft" : "drafts";
  const tail = where === "topics" ? `, each in its role's topic.` : ". They follow below.";
  return `📥 ${roles.length} new ${noun}: ${parts.join(", ")}${tail}`;
}
