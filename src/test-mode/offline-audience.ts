import type { Clock } from "../clock/clock.js";
import type { AudienceSource } from "../desk/ports.js";

/**
 * Test mode's audience: nobody is asked (no network), the post says
 * "unknown audience (test mode)", no warning is given, and the send call's
 * check finds nothing to compare.
 */
export function offlineAudience(clock: Clock): AudienceSource {
  return {
    async resolve(chatId) {
      return {
        chat_id: chatId,
        kind: "unknown",
        title: "unknown audience (test mode)",
        username: null,
        member_count: null,
        can_post: null,
        problem: null,
        checked_at: new Date(clock.now()).toISOString(),
      };
    },
    async fresh() {
      return null;
    },
  };
}
