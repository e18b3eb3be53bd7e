import { ChatLog } from "./chat-log.js";
import { ConnectionStore } from "./connection-store.js";
import { businessStatusOf, type BusinessStatus } from "./owner-voice.js";

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
