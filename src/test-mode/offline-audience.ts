import type { Clock } from "../clock/clock.js";
import type { AudienceSource } from "../desk/ports.js";
import type { Audience } from "../drafts/audience.js";

/**
 * Test mode's audience: nobody is asked (no network), the post says
 * "unknown audience (test mode)", no warning is given, and the send call's
 * check finds the same (kind `unknown` with no `problem`: never asked, so
 * neither a confirmation tap nor a halt for missing evidence).
 */
export function offlineAudience(clock: Clock): AudienceSource {
  const offline = (chatId: string): Audience => ({
    chat_id: chatId,
    kind: "unknown",
    title: "unknown audience (test mode)",
    username: null,
    member_count: null,
    can_post: null,
    problem: null,
    checked_at: new Date(clock.now()).toISOString(),
  });
  return {
    async resolve(chatId) {
      return offline(chatId);
    },
    async fresh(chatId) {
      return offline(chatId);
    },
  };
}
