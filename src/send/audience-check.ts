import { audienceChange, type Audience } from "../drafts/audience.js";
import type { DraftEvent } from "../drafts/events.js";
import type { DraftRecord } from "../drafts/record.js";

/** Where the send call asks who a destination is now (TelegramAudienceResolver.fresh). */
export interface FreshAudience {
  fresh(chatId: string): Promise<Audience | null>;
}

/** Why a draft is not sent after all: the halt to record and what the reviewers are told. */
export interface AudienceVerdict {
  readonly kind: "changed";
  readonly event: Extract<DraftEvent, { type: "halt" }>;
  readonly notice: string;
}

/** Telegram did not answer: who would read the draft cannot be checked now (the send path asks again, then halts). */
export interface AudienceUnchecked {
  readonly kind: "unchecked";
}

/** Checks a draft's destination again at the send call; null when it may go. */
export type AudienceCheck = (draft: DraftRecord) => Promise<AudienceVerdict | AudienceUnchecked | null>;

/**
 * The send call's audience check: the destination is resolved again, and
 * compared with what the reviewer saw when approving. It became public,
 * another chat answers to it (a group upgraded to a supergroup has a new id,
 * which then becomes the destination), or the bot may no longer post: the
 * draft is halted with the reason, and a new 👍 is needed for the audience as
 * it now is. A private chat is not asked again (it cannot become public; a
 * block shows in the send's own answer). When Telegram does not answer, the
 * draft is not sent: the audience is `unchecked` (fails closed).
 */
export function audienceCheck(source: FreshAudience): AudienceCheck {
  return async (draft) => {
    if (draft.audience?.kind === "private") return null;
    const now = await source.fresh(draft.destination_chat_id);
    if (now === null) return { kind: "unchecked" };
    const change = audienceChange(draft.audience, now);
    if (change === null) return null;
    const migrated = /^-?\d+$/.test(draft.destination_chat_id) && now.kind !== "unknown" && now.chat_id !== draft.destination_chat_id;
    const reason = `the destination changed: ${change}${migrated ? `; it now goes to ${now.chat_id}` : ""}`;
    return {
      kind: "changed",
      event: { type: "halt", reason, audience: now, ...(migrated ? { destinationChatId: now.chat_id } : {}) },
      notice: `⛔ Not sent: ${reason}. Nothing went out. Look at who will read it now (the post above), then 👍 again to send.`,
    };
  };
}
