import type { UserFromGetMe } from "grammy/types";

/**
 * What `setup` says about sending as the owner (Telegram Business): how to
 * connect the bot to his own account, and where it stands now (Business Mode
 * as getMe reports it). Optional: without it drafts go out as the bot.
 */
export function businessHelp(me: UserFromGetMe): string {
  const mode = (me as { can_connect_to_business?: boolean }).can_connect_to_business === true;
  return [
    "",
    "Optional: answers that go out from your own account (Telegram Business).",
    mode
      ? `  ✓ Business Mode is on for @${me.username}.`
      : `  1. In @BotFather: /mybots → @${me.username} → Bot Settings → Business Mode → Turn on (it is off now).`,
    `  ${mode ? "1" : "2"}. In Telegram: Settings → Telegram Business → Chatbots → add @${me.username}, and let it reply to messages.`,
    `  ${mode ? "2" : "3"}. With the daemon running, \`draft-review status\` then says "Telegram Business: connected to …";`,
    '     a draft with "send_as": "owner" answers a person who wrote to you in the last 24 h, as you, once you approve it.',
  ].join("\n");
}
