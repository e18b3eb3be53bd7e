/** The facts Telegram gives about who acted, and where. */
export interface ActorFacts {
  /** The chat the update happened in. */
  readonly chatId: number;
  /** The authenticated user, when Telegram names one. */
  readonly userId: number | null;
  /** Set when the actor is a chat (an anonymous admin, a channel), not a user. */
  readonly actorChatId: number | null;
  readonly isBot: boolean;
}

/** Why an actor's decision does not count. */
export type ActorRefusal = "other_chat" | "anonymous_actor" | "bot_actor" | "not_a_reviewer";

/**
 * Decides whether an actor may decide at all: only a reviewer's user id, in
 * the review chat, counts. Usernames, display names and message text play no
 * part. Pure: the caller audits a refusal.
 */
export function authorizeActor(
  facts: ActorFacts,
  context: { readonly reviewChatId: string; readonly reviewerIds: ReadonlySet<number> },
): { ok: true; userId: number } | { ok: false; reason: ActorRefusal } {
  if (String(facts.chatId) !== context.reviewChatId) return { ok: false, reason: "other_chat" };
  if (facts.actorChatId !== null || facts.userId === null) return { ok: false, reason: "anonymous_actor" };
  if (facts.isBot) return { ok: false, reason: "bot_actor" };
  if (!context.reviewerIds.has(facts.userId)) return { ok: false, reason: "not_a_reviewer" };
  return { ok: true, userId: facts.userId };
}
