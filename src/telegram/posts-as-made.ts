import type { DraftRecord } from "../drafts/record.js";

/**
 * The review posts this process made that no status edit changed since, with
 * when each went out: such a post shows its draft awaiting the owner's
 * decision, with its buttons and no status line. Kept in memory only, the
 * newest `kept`; after a restart a post is edited as before (the cautious way).
 */
export class PostsAsMade {
  private readonly at = new Map<number, number>();

  constructor(private readonly kept: number) {}

  /** A review post went out at `now`. */
  posted(messageId: number, now: number): void {
    keepNewest(this.at, messageId, now, this.kept);
  }

  /**
   * An edit of the message is under way or made: it may no longer show the
   * post as made (an undo decided while the edit is in flight is not unseen).
   */
  edited(messageId: number): void {
    this.at.delete(messageId);
  }

  /**
   * A version of the post's draft that words he wrote decided (a note, a reply 👍) was to be shown: a
   * reply is answered by the post's edit, so a reaction taken back before that edit came still owes
   * one (the post then says what became of his words: "↩️ Undone").
   */
  wordsToAnswer(draft: DraftRecord): void {
    const byWords = draft.revision_note !== null || draft.decided_by?.channel === "reply" || draft.approval?.actor.channel === "reply";
    if (byWords && draft.review_message_id !== null) this.at.delete(draft.review_message_id);
  }

  /**
   * A decision undone before the post ever showed it, by taking the 👍 reaction
   * back at once: the post, unedited since it went out, shows the draft as it is
   * again, awaiting a decision, so "↩️ Undone" on it would change nothing the
   * owner needs (issue 35: such an edit is noise). When the post went out, or
   * undefined when an edit is owed (an ↩️ Undo shown elsewhere, `undoElsewhere`, too).
   */
  undoneUnseen(draft: DraftRecord, undoElsewhere: boolean): number | undefined {
    if (draft.status !== "pending" || draft.undone_at === null || undoElsewhere || draft.review_message_id === null) return undefined;
    // Only a reaction taken back answers itself (the owner sees his 👍 gone); a reply `undo` is answered by the edit.
    if (draft.decided_by?.channel !== "reaction") return undefined;
    return this.at.get(draft.review_message_id);
  }
}

/** Sets `key` to `value` as the newest entry of `map`, forgetting the oldest past `kept` entries. */
export function keepNewest<K, V>(map: Map<K, V>, key: K, value: V, kept: number): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > kept) map.delete(map.keys().next().value!);
}
