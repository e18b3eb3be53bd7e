import { ChatLog } from "./chat-log.js";
import { ConnectionStore } from "./connection-store.js";
import type { BusinessStatus } from "./owner-voice.js";
import { REPLY_WINDOW_MS } from "./sender-choice.js";

/**
 * The business connection as HARNESS_DIR keeps it, for `draft-review status`
 * when the daemon is not running: read only, nothing written.
 */
export async function savedBusinessStatus(
  paths: { readonly businessConnection: string; readonly businessChats: string },
  now: number,
  log: { warn(obj: object, msg: string): void },
): Promise<BusinessStatus> {
  const c = (await ConnectionStore.open(paths.businessConnection, log)).current();
  const chats = await ChatLog.open(paths.businessChats, () => now, log);
  return {
    connected: c !== null,
    connection_id: c?.id ?? null,
    user_id: c?.user_id ?? null,
    user_name: c?.user_name ?? null,
    enabled: c?.enabled ?? false,
    can_reply: c?.can_reply ?? false,
    checked_at: c?.checked_at ?? null,
    open_chats: chats.openChats(now, REPLY_WINDOW_MS),
  };
}
