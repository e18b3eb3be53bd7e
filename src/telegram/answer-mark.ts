import type { Transformer } from "grammy";
import type { UpdateJournal } from "./update-journal.js";
import { currentUpdate } from "./update-scope.js";

/**
 * A grammY API transformer: before the first message, edit or callback answer
 * that an update's handling makes in the review chat, the journal notes
 * (fsync'd) that the update is answered. A crash after that point does not
 * make the next start handle it again, so no answer goes out twice. Reads
 * (get*) and calls outside an update, or to other chats (a destination), pass
 * straight through.
 */
export function markAnswers(journal: UpdateJournal, reviewChatId: string): Transformer {
  return async (prev, method, payload, signal) => {
    const scope = currentUpdate();
    if (scope !== undefined && answersInReviewChat(method, payload, reviewChatId)) await journal.markAnswered(scope.updateId);
    return prev(method, payload, signal);
  };
}

function answersInReviewChat(method: string, payload: unknown, reviewChatId: string): boolean {
  if (method === "answerCallbackQuery") return true;
  if (method.startsWith("get")) return false;
  const chatId = (payload as { chat_id?: unknown } | undefined)?.chat_id;
  return chatId !== undefined && String(chatId) === reviewChatId;
}
