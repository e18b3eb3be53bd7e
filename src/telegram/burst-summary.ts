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
  /** The roles of its posts that went out before its summary (the summary counts those that follow it). */
  readonly early: string[];
  /** True from the moment its summary's call starts: posts after it follow the summary in the chat. */
  summaryStarted: boolean;
  /** The summary as the review chat shows it, once it went out. */
  shown: { readonly messageId: number; readonly text: string } | null;
}

/**
 * Tracks the review posts waiting for their turn in the review chat, so that
 * a burst gets exactly one summary line before its posts. The burst ends when
 * nothing waits any more; the next one gets its own summary.
 */
export class BurstTracker {
  private readonly waiting = new Map<object, string>();
  private current: Burst | null = null;

  /**
   * Notes a post that starts waiting: the burst it belongs to (null: none), and whether this post made that
   * burst, so that it has no summary yet (the caller says it).
   */
  add(token: object, role: string): { readonly burst: Burst | null; readonly started: boolean } {
    this.waiting.set(token, role);
    if (this.current !== null) {
      this.current.roles.push(role);
      return { burst: this.current, started: false };
    }
    if (this.waiting.size < BURST_MIN_WAITING) return { burst: null, started: false };
    this.current = { roles: [...this.waiting.values()], threads: new Set(), early: [], summaryStarted: false, shown: null };
    return { burst: this.current, started: true };
  }

  /** The post's turn came (or it failed): it no longer waits. Returns the burst that ended with it, if one did. */
  remove(token: object): Burst | null {
    this.waiting.delete(token);
    if (this.waiting.size > 0 || this.current === null) return null;
    const ended = this.current;
    this.current = null;
    return ended;
  }
}

/** The roles of the posts a burst's summary counts: those that follow it (all but the ones posted before it). */
export function followingRoles(burst: Burst): string[] {
  const early = [...burst.early];
  return burst.roles.filter((role) => {
    const at = early.indexOf(role);
    if (at < 0) return true;
    early.splice(at, 1);
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
