import { ChatLog } from "./chat-log.js";
import { ConnectionStore, type OwnerConnection } from "./connection-store.js";
import { REPLY_WINDOW_MS } from "../drafts/sender-choice.js";

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
  return businessStatusOf(c, await ChatLog.open(paths.businessChats, () => now, log), now);
}

/** The business connection as /status, `draft-review status` and /healthz show it. */
export interface BusinessStatus {
  readonly connected: boolean;
  readonly connection_id: string | null;
  readonly user_id: number | null;
  readonly user_name: string | null;
  readonly enabled: boolean;
  readonly can_reply: boolean;
  readonly checked_at: string | null;
  /** Private chats whose person wrote in the last 24 h (the owner can answer them as himself). */
  readonly open_chats: number;
}

/** The connection and the open chats as /status, `draft-review status` and /healthz show them (running or not). */
export function businessStatusOf(
  c: OwnerConnection | null,
  chats: { openChats(now: number, windowMs: number): number },
  now: number,
): BusinessStatus {
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
