/**
 * A burst: this many review posts (or more) waiting for the review chat at
 * once. Below it posts follow each other within a few seconds and need no
 * summary; from it on, the owner gets one line first that says what is coming.
 */
export const BURST_MIN_WAITING = 5;

/**
 * Tracks the review posts waiting for their turn in the review chat, so that
 * a burst gets exactly one summary line before its posts. The burst ends when
 * nothing waits any more; the next one gets its own summary.
 */
export class BurstTracker {
  private readonly waiting = new Map<object, string>();
  private announced = false;

  /** Notes a post that starts waiting; true when it makes a burst that has no summary yet (the caller says it). */
  add(token: object, role: string): boolean {
    this.waiting.set(token, role);
    if (this.announced || this.waiting.size < BURST_MIN_WAITING) return false;
    this.announced = true;
    return true;
  }

  /** The post's turn came (or it failed): it no longer waits. */
  remove(token: object): void {
    this.waiting.delete(token);
    if (this.waiting.size === 0) this.announced = false;
  }

  /** The summary of the posts waiting now, or null when none waits. */
  summary(): string | null {
    return burstSummaryText([...this.waiting.values()]);
  }
}

/** "📥 30 new drafts: 10 Scribe, 10 CoS, 10 Margot. They follow below." (roles in order of arrival), or null for none. */
export function burstSummaryText(roles: readonly string[]): string | null {
  if (roles.length === 0) return null;
  const counts = new Map<string, number>();
  for (const role of roles) counts.set(role, (counts.get(role) ?? 0) + 1);
  const parts = [...counts].map(([role, n]) => `${n} ${role}`);
  const noun = roles.length === 1 ? "draft" : "drafts";
  return `📥 ${roles.length} new ${noun}: ${parts.join(", ")}. They follow below.`;
}
