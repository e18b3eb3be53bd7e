import { randomBytes } from "node:crypto";
import type { InlineKeyboardMarkup } from "grammy/types";

/** How long a /resume confirmation button stays valid. */
export const CONFIRM_TTL_MS = 5 * 60_000;

/**
 * The one-time confirmation buttons that /resume asks for. Each /resume makes
 * a fresh random token; a tap counts once, within CONFIRM_TTL_MS. A tap on an
 * old button (or on a copy of its data) finds no token and changes nothing.
 */
export class ResumeConfirmations {
  /** Callback data of a confirmation button; the token is group 1. */
  readonly pattern = /^owner:resume:([0-9a-f]{16})$/;
  private readonly open = new Map<string, number>();

  constructor(private readonly options: { readonly now: () => number }) {}

  /** The question /resume answers with. */
  question(): string {
    return "⚠️ Resume sends? Approved drafts go out at once. Drafts halted meanwhile still need a new 👍. Tap the button to confirm (valid 5 minutes).";
  }

  /** A new confirmation button. */
  ask(): InlineKeyboardMarkup {
    const now = this.options.now();
    for (const [token, until] of this.open) if (until <= now) this.open.delete(token);
    const token = randomBytes(8).toString("hex");
    this.open.set(token, now + CONFIRM_TTL_MS);
    return { inline_keyboard: [[{ text: "▶️ Yes, resume sends", callback_data: `owner:resume:${token}` }]] };
  }

  /** Uses up `token`: true when it was open and not expired. */
  take(token: string): boolean {
    const until = this.open.get(token);
    this.open.delete(token);
    return until !== undefined && until > this.options.now();
  }
}
