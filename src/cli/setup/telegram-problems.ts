import { GrammyError, HttpError } from "grammy";

/** A problem setup cannot get past, in one sentence with the fix. */
export class SetupProblem extends Error {
  override readonly name = "SetupProblem";
}

/** Where the problem happened, to word the fix. */
export interface ProblemContext {
  readonly apiRoot: string;
  /** `@username` of the bot, when known. */
  readonly bot?: string;
}

/**
 * One sentence with the fix for what Telegram (or the network) said. Known
 * answers get their own advice; anything else is quoted. Never contains the
 * token (grammY's messages do not carry it).
 */
export function explainTelegramError(err: unknown, ctx: ProblemContext): string {
  const bot = ctx.bot ?? "the bot";
  if (err instanceof HttpError) {
    return `Cannot reach the Bot API at ${ctx.apiRoot} (${(err.error as Error)?.message ?? err.message}): check the network, or TELEGRAM_API_ROOT.`;
  }
  if (!(err instanceof GrammyError)) return `Unexpected error: ${(err as Error)?.message ?? String(err)}.`;
  const d = err.description.toLowerCase();
  if (err.error_code === 401 || err.error_code === 404) {
    return `Telegram refused TELEGRAM_BOT_TOKEN (${err.error_code} ${err.description}): copy the token again from @BotFather (/mybots → API Token) into .env.`;
  }
  if (err.error_code === 409) {
    return "Another program is polling this bot (409 Conflict), most likely the draft-review daemon: stop it while setup runs (Ctrl-C, `systemctl stop draft-review` or `launchctl unload`), then run setup again.";
  }
  if (err.error_code === 429) {
    return `Telegram is rate-limiting the bot (retry after ${err.parameters.retry_after ?? "a few"} s): wait that long and run setup again.`;
  }
  if (d.includes("blocked by the user"))
    return `You blocked ${bot}: open the chat with it, tap Restart (or Unblock), then run setup again.`;
  if (d.includes("kicked") || d.includes("not a member") || d.includes("bot was removed")) {
    return `${bot} is not in that group any more: add it back (group info → Add members), then run setup again.`;
  }
  if (d.includes("not enough rights"))
    return `${bot} may not post in that chat: allow members to send messages, or make the bot an admin, then run setup again.`;
  if (d.includes("thread not found") || d.includes("topic"))
    return "REVIEW_THREAD_ID names no topic in that chat: fix it (the topic's message_thread_id) or unset it.";
  if (d.includes("chat not found"))
    return `Telegram does not know that chat for ${bot}: send /start to the bot from the review chat again.`;
  return `Telegram answered ${err.error_code} (${err.description}).`;
}
