/**
 * Which review-chat messages belong to which draft: its live review post,
 * the posts of its earlier text versions, and the bot's edit prompts. The
 * reviewer's actions (reviewer-actions.ts) find the draft they act on here.
 * Its size follows the live drafts (archived ones are forgotten).
 */
export class DecisionSurfaces {
  private readonly byMessage = new Map<number, string>();

  /** `editPrompts`: the audit index's map of the bot's edit prompts (message id -> draft and version). */
  constructor(private readonly editPrompts: ReadonlyMap<number, { readonly draftId: string; readonly textVersion: number }>) {
    for (const [messageId, prompt] of editPrompts) this.byMessage.set(messageId, prompt.draftId);
  }

  /** Notes a draft's review posts (live and replaced). */
  index(draft: {
    readonly draft_id: string;
    readonly review_message_id: number | null;
    readonly superseded_posts: readonly number[];
  }): void {
    if (draft.review_message_id !== null) this.byMessage.set(draft.review_message_id, draft.draft_id);
    for (const old of draft.superseded_posts) this.byMessage.set(old, draft.draft_id);
  }

  /** Notes a message of the bot's that belongs to a draft (an edit prompt). */
  add(messageId: number, draftId: string): void {
    this.byMessage.set(messageId, draftId);
  }

  /** The id of the draft a message belongs to, if any. */
  draftIdOf(messageId: number): string | undefined {
    return this.byMessage.get(messageId);
  }

  /** True when the message belongs to some live draft. */
  has(messageId: number): boolean {
    return this.byMessage.has(messageId);
  }

  /** True when `messageId` is an edit prompt the bot sent. */
  isEditPrompt(messageId: number): boolean {
    return this.editPrompts.has(messageId);
  }

  /** Forgets the messages of drafts that left the store (archived). */
  forget(gone: ReadonlySet<string>): void {
    for (const [messageId, id] of this.byMessage) if (gone.has(id)) this.byMessage.delete(messageId);
  }
}
