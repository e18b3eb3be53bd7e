/**
 * Drafts the explorer offers among several destinations (issue 34 item 9,
 * contract v5 "The recipients he picks"), and the invariant of their sends,
 * judged from what Telegram and the channels' services recorded, never from
 * the desk: a send goes only to one of the draft's destinations; to each at
 * most once (a send that may have gone counts); under `choose: "one"` to one
 * destination only; and only where an approval of the owner's, made before
 * it on a message of that draft, showed that destination chosen: the send
 * button he tapped (`v1:toN`), the number he replied, the first (or the pick
 * a halt had stopped) for a plain 👍 under choose one, the set the post
 * showed on (its numbered lines) under choose any.
 */

/** A draft with several destinations: how the owner picks, and where each index sends (Telegram's chat id, or the channel's name). */
export interface ChoiceDraft {
  readonly choose: "one" | "any";
  readonly keys: readonly string[];
}

/** An approval of a choice draft: the destinations (1-based) it allowed. */
export interface ChoicePick {
  readonly step: number;
  readonly draftId: string;
  readonly allowed: readonly number[];
  readonly how: string;
}

/** What a send looked like, as far as this invariant needs it. */
export interface ChoiceSend {
  readonly step: number;
  /** Telegram's chat id, or the channel's name (linear, email, slack). */
  readonly key: string;
  /** The send may have reached its readers (accepted, or its answer lost). */
  readonly mayHaveGone: boolean;
}

/** The choice drafts of a run, the owner's picks, and where each draft went. */
export class ChoiceLedger {
  readonly drafts = new Map<string, ChoiceDraft>();
  readonly picks: ChoicePick[] = [];
  private readonly gone = new Map<string, Set<string>>();

  /** Notes an approval of `draftId` that allowed `allowed` (nothing for a draft with one destination). */
  pick(step: number, draftId: string | null, allowed: readonly number[], how: string): void {
    if (draftId === null || !this.drafts.has(draftId) || allowed.length === 0) return;
    this.picks.push({ step, draftId, allowed, how });
  }

  /** True when the owner approved `draftId` again after `step` (the rest of its deliveries, after a halt). */
  approvedAfter(draftId: string, step: number): boolean {
    return this.picks.some((p) => p.draftId === draftId && p.step > step);
  }

  /** The indices a plain 👍 of choose one may send to: the first, or one an earlier pick named (a halt stopped it; 👍 resumes it). */
  thumbsUp(draftId: string): number[] {
    const named = this.picks.filter((p) => p.draftId === draftId).flatMap((p) => p.allowed);
    return [...new Set([1, ...named])];
  }

  /** How many sends of choice drafts were judged, per choose (the long run prints it). */
  readonly judged = { one: 0, any: 0 };

  /** The violations of one send of a choice draft (`where` names the send). */
  judge(send: ChoiceSend, draftId: string, where: string): string[] {
    const draft = this.drafts.get(draftId)!;
    this.judged[draft.choose]++;
    const out: string[] = [];
    const index = draft.keys.indexOf(send.key) + 1;
    if (index === 0) out.push(`${where}: sent to ${send.key}, which is none of ${draftId}'s destinations (${draft.keys.join(", ")})`);
    const gone = this.gone.get(draftId) ?? new Set<string>();
    if (gone.has(send.key)) out.push(`${where}: a second send of ${draftId} to ${send.key}, which had it already (or may have)`);
    const others = [...gone].filter((k) => k !== send.key);
    if (draft.choose === "one" && others.length > 0)
      out.push(`${where}: ${draftId} is choose one, and it had gone (or may have) to ${others.join(", ")} already`);
    if (send.mayHaveGone) this.gone.set(draftId, gone.add(send.key));
    const picks = this.picks.filter((p) => p.draftId === draftId && p.step < send.step);
    if (index > 0 && !picks.some((p) => p.allowed.includes(index))) {
      const seen = picks.map((p) => `step ${p.step} ${p.how}: ${p.allowed.join(", ")}`).join("; ");
      out.push(`${where}: no approval of ${draftId} showed destination ${index} chosen (${seen || "no approval at all"})`);
    }
    return out;
  }
}

/**
 * The destinations a choose-any post shows on at this moment: its numbered
 * lines whose state is on, or (after a halt in the middle) waiting or halted,
 * which a 👍 then sends. Empty when the text lists none (a reminder).
 */
export function shownOn(text: string): number[] {
  const on: number[] = [];
  for (const m of text.matchAll(/^(\d+)\. (✅ on|⏳ waiting|📤 sending|⛔ not sent \(halted\))/gmu)) on.push(Number(m[1]));
  return on;
}
