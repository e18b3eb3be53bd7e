/** How often a review post shows the legend of reactions (👍 send · 👎 revise · 😴 defer). */
export const LEGEND_EVERY_MS = 24 * 3_600_000;

/**
 * Which review posts show the legend of reactions: the first post of each
 * day (LEGEND_EVERY_MS after the last one that showed it, and the first after
 * a start), not all of them, since the owner reads the same line on every
 * post otherwise. A post keeps what it showed through its edits; what is kept
 * is the posts of the last two days, so the cost follows live work.
 */
export class DailyLegend {
  private readonly shown = new Map<string, number>();
  private lastAt = Number.NEGATIVE_INFINITY;

  /** A post of `draftId` is being made at `now`: it shows the legend if none did for a day (or it showed it before). */
  posting(draftId: string, now: number): void {
    if (this.shown.has(draftId) || now - this.lastAt < LEGEND_EVERY_MS) return;
    this.lastAt = now;
    this.shown.set(draftId, now);
    for (const [id, at] of this.shown) if (now - at > 2 * LEGEND_EVERY_MS) this.shown.delete(id);
  }

  /** True when the draft's post shows the legend. */
  shows(draftId: string): boolean {
    return this.shown.has(draftId);
  }
}
