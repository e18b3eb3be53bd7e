import { createHash, randomBytes } from "node:crypto";
import { lstat, readFile } from "node:fs/promises";
import type { InlineKeyboardMarkup } from "grammy/types";

/** How long a /resume confirmation button stays valid. */
export const CONFIRM_TTL_MS = 5 * 60_000;

/** Callback data of a /resume confirmation button; the token is group 1. */
export const RESUME_PATTERN = /^owner:resume:([0-9a-f]{16})$/;

/** What /resume asks, kept in the question's text once it is answered or no longer valid. */
export const RESUME_ASKED = "⚠️ Resume sends? Approved drafts go out at once. Drafts halted meanwhile still need a new 👍.";

/** The question /resume answers with. */
export const RESUME_QUESTION = `${RESUME_ASKED} Tap the button to confirm (valid 5 minutes).`;

/**
 * A new /resume confirmation button: a fresh random token in its data. The
 * button is a decision surface (src/desk/surfaces.ts) bound to the halt it
 * was asked about, used once and valid CONFIRM_TTL_MS; the token only has to
 * match the one recorded for the message tapped.
 */
export function resumeButton(): { token: string; markup: InlineKeyboardMarkup } {
  const token = randomBytes(8).toString("hex");
  return { token, markup: { inline_keyboard: [[{ text: "▶️ Yes, resume sends", callback_data: `owner:resume:${token}` }]] } };
}

/**
 * Which halt the owner's HALT entry is, so a /resume confirmation binds to the
 * halt it was asked about: a newer halt (the file made again) is another one.
 * Null when there is none. An entry that cannot be read is still named (by
 * inode and time), so the answer fails closed rather than open.
 */
export async function haltIdentity(path: string): Promise<string | null> {
  let stat;
  try {
    stat = await lstat(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return null;
    return `unreadable:${(err as Error).message}`;
  }
  const content = await readFile(path).catch(() => Buffer.from("unreadable"));
  const hash = createHash("sha256").update(content).digest("hex").slice(0, 16);
  return `${stat.ino}:${stat.mtimeMs}:${hash}`;
}
