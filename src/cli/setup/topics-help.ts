import type { Chat, UserFromGetMe } from "grammy/types";

/**
 * What `setup` says about a topic per role (REVIEW_TOPICS, the default `role`):
 * in a private review chat that depends on the bot's topics, which getMe
 * reports as `has_topics_enabled` and only @BotFather turns on; in a forum
 * group on the bot's right to manage topics; REVIEW_THREAD_ID puts everything
 * in one topic instead.
 */
export function topicsHelp(me: UserFromGetMe, chat: Pick<Chat, "type">, threadId: number | null): string {
  const bot = `@${me.username}`;
  if (threadId !== null) {
    return `  Topics: REVIEW_THREAD_ID puts every draft in that topic. Leave it out for a topic per role (Scribe, CoS, Margot), made by the bot.`;
  }
  if (chat.type !== "private") {
    return "  Topics: in a group with Topics turned on, the bot makes a topic per role (Scribe, CoS, Margot) if it is an admin allowed to manage topics; REVIEW_TOPICS=off keeps one stream.";
  }
  if (me.has_topics_enabled === true) {
    return `✓ Topics are on for ${bot}: each role's drafts (Scribe, CoS, Margot) get a topic of their own in your chat with it. REVIEW_TOPICS=off keeps one stream.`;
  }
  return [
    `  Topics are off for ${bot}, so every role's drafts share one stream. For a topic per role (Scribe, CoS, Margot):`,
    `     in @BotFather: /mybots → ${bot} → Bot Settings → Topics → turn them on, then start the daemon (it makes the topics).`,
  ].join("\n");
}
