/**
 * What a transition asks the outside world to do, as plain data. The pure
 * state machine returns these; the review desk executes them after the new
 * state is on disk.
 */
export type Effect =
  /** Post the draft to the review chat (respecting its rate limit). */
  | { readonly type: "post_review"; readonly draftId: string }
  /** Hand the approved draft to the guarded send path. */
  | { readonly type: "send"; readonly draftId: string }
  /** (Re)arm the expiry timer for `at` (epoch ms). */
  | { readonly type: "arm_expiry"; readonly draftId: string; readonly at: number }
  /** Edit the review message to show the draft's current status; buttons go once it is final. */
  | { readonly type: "show_status"; readonly draftId: string }
  /** Edit the review message again at `at` (epoch ms): an undo window that ends takes its ↩️ Undo with it. */
  | { readonly type: "show_status_at"; readonly draftId: string; readonly at: number }
  /** Mark an earlier review post of this draft as replaced (its buttons go); decisions on it are refused. */
  | { readonly type: "supersede_post"; readonly draftId: string; readonly reviewMessageId: number }
  /** Tell the reviewers something in the review chat, as a reply to the review message. */
  /** `delivery`: the delivery of several it is about (its notice is audited as that delivery's, see audit-index.ts). */
  | { readonly type: "notify"; readonly draftId: string; readonly text: string; readonly delivery?: number }
  /**
   * Tell the reviewers, as `notify` does, under a "🤖 Send as the bot instead" button: a draft the
   * owner's identity could not send. The message is a one-time decision surface (asks `asbot`).
   */
  | { readonly type: "offer_as_bot"; readonly draftId: string; readonly text: string };

/** The `type` of an `Effect`. */
export type EffectType = Effect["type"];
