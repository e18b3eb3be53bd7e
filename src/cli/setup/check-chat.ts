import type { Api } from "grammy";
import type { Chat } from "grammy/types";
import { explainTelegramError, type ProblemContext } from "./telegram-problems.js";

/** What setup found out about the review chat. */
export interface ChatCheck {
  /** The hello went out. */
  readonly canPost: boolean;
  /** The hello's message id (setup asks for a 👍 on it); null when it did not go out. */
  readonly helloMessageId: number | null;
  /** For a group: whether the bot is an admin there (reactions need it); null for a private chat or when unknown. */
  readonly botIsAdmin: boolean | null;
  /** Each problem in one sentence with its fix. */
  readonly problems: readonly string[];
}

/** The short hello setup posts to prove the bot can post in the review chat. */
export const HELLO =
  "👋 draft-review is set up: drafts will be posted here for review. Decide with 👍 send · 👎 revise · 😴 defer; /help lists the commands once the daemon runs.";

/**
 * Checks the review chat the way the daemon will use it: posts a hello there
 * (in the topic, if any), and for a group asks Telegram whether the bot is an
 * admin, since Telegram sends reactions only to admin bots.
 */
export async function checkReviewChat(
  api: Pick<Api, "sendMessage" | "getChatMember">,
  chat: Pick<Chat, "id" | "type"> & { title?: string },
  botId: number,
  threadId: number | null,
  ctx: ProblemContext,
): Promise<ChatCheck> {
  const problems: string[] = [];
  let canPost = false;
  let helloMessageId: number | null = null;
  try {
    helloMessageId = (await api.sendMessage(chat.id, HELLO, threadId === null ? {} : { message_thread_id: threadId })).message_id;
    canPost = true;
  } catch (err) {
    problems.push(explainTelegramError(err, ctx));
  }
  if (chat.type === "private") return { canPost, helloMessageId, botIsAdmin: null, problems };
  let botIsAdmin: boolean | null = null;
  try {
    const member = await api.getChatMember(chat.id, botId);
    botIsAdmin = member.status === "administrator" || member.status === "creator";
    if (!botIsAdmin) {
      problems.push(
        `${ctx.bot ?? "The bot"} is not an admin in “${chat.title ?? chat.id}”, so Telegram will not send it reactions (👍 👎 😴): make it an admin (group info → Administrators → Add Admin), then run setup again. Buttons and replies work meanwhile.`,
      );
    }
  } catch (err) {
    problems.push(`Could not check whether the bot is an admin: ${explainTelegramError(err, ctx)}`);
  }
  return { canPost, helloMessageId, botIsAdmin, problems };
}
