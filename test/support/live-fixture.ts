import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { startTelegramDouble, type TelegramDouble } from "../telegram-double/index.js";
import { freshDirs, startDaemon, type DaemonProcess } from "./daemon-process.js";

/** The owner: a private review chat whose user is the reviewer. */
export const OWNER = 5_550_001;
/** Someone else, in the same group or writing to the bot. */
export const STRANGER = 6_660_002;
/** The destination group drafts go to. */
export const GROUP = -1_001_234_567_890;
/** A destination private chat. */
export const FRIEND = 7_770_003;

/** A draft payload for the group. */
export function payload(text: string, extra: Record<string, unknown> = {}) {
  return { draft_text: text, destination_chat_id: String(GROUP), drafted_by_role: "Scribe", originating_intent_id: "intent-1", ...extra };
}

/** A Bot API double that knows the owner, a stranger, the destination group and a friend. */
export async function liveDouble(): Promise<TelegramDouble> {
  return startTelegramDouble({
    chats: [
      { id: OWNER, type: "private", firstName: "Owner" },
      { id: GROUP, type: "supergroup", title: "Destination" },
      { id: FRIEND, type: "private", firstName: "Friend" },
      { id: STRANGER, type: "private", firstName: "Stranger" },
    ],
    users: [
      { id: OWNER, firstName: "Owner", username: "owner" },
      { id: STRANGER, firstName: "Stranger", username: "stranger" },
    ],
  });
}

/** Starts the daemon against `double` with the owner's private chat as review chat. */
export async function liveDaemon(
  double: TelegramDouble,
  env: Record<string, string> = {},
  dirs?: { cwd: string; harnessDir: string },
): Promise<DaemonProcess> {
  const d = dirs ?? (await freshDirs());
  return startDaemon({
    cwd: d.cwd,
    harnessDir: d.harnessDir,
    env: { TELEGRAM_BOT_TOKEN: double.token, TELEGRAM_API_ROOT: double.url, REVIEW_CHAT_ID: String(OWNER), ...env },
  });
}

/** The audit log's lines. */
export async function auditLines(harnessDir: string): Promise<Array<Record<string, any>>> {
  const text = await readFile(join(harnessDir, "swarm.jsonl"), "utf8").catch(() => "");
  return text
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l));
}
