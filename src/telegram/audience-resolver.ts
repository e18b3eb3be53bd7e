import { GrammyError, type Api } from "grammy";
import type { ChatFullInfo, ChatMember } from "grammy/types";
import type { Clock } from "../clock/clock.js";
import type { AudienceSource } from "../desk/ports.js";
import { audienceUnknown, type Audience } from "../drafts/audience.js";
import { withoutToken } from "./classify.js";

/**
 * How long a resolved audience is trusted: the member count a review post
 * shows is at most a minute old (the daemon divides it by TELEGRAM_RATE_SCALE
 * against a test double). The send call always asks again (`fresh`).
 */
export const AUDIENCE_TTL_MS = 60_000;

/** The `problem` of an audience Telegram did not answer about (the post shows it; a 👍 then asks for the extra tap). */
export const NO_ANSWER = "audience unknown (Telegram did not answer)";

/** How long intake waits for Telegram's answers before it says the audience is unknown. */
const LOOKUP_TIMEOUT_MS = 5_000;

/** What the resolver needs: the Bot API, the bot's own id (for its membership), the clock. */
export interface AudienceResolverOptions {
  readonly api: Api;
  readonly botId: number;
  readonly clock: Clock;
  readonly ttlMs?: number;
}

/** grammY's AbortSignal type (from its abort-controller shim); the platform's is the same at run time. */
type CallSignal = NonNullable<Parameters<Api["getChat"]>[1]>;

/** Telegram's answer was an error that says something about the chat (not a network failure). */
function telegramSaid(err: unknown): err is GrammyError {
  return err instanceof GrammyError && err.error_code < 500 && err.error_code !== 429;
}

function nameOf(chat: ChatFullInfo): string | null {
  if (chat.type === "private") return [chat.first_name, chat.last_name].filter(Boolean).join(" ") || null;
  return chat.title ?? null;
}

/** Whether the bot may post, from its membership; with the reason when not. */
function postingRight(chat: ChatFullInfo, me: ChatMember | null): { can_post: boolean | null; problem: string | null } {
  if (chat.type === "private") return { can_post: null, problem: null };
  if (me === null) return { can_post: null, problem: null };
  if (me.status === "left" || me.status === "kicked")
    return { can_post: false, problem: `the bot is not a member of this ${chat.type}: add it` };
  if (chat.type === "channel") {
    const ok = me.status === "creator" || (me.status === "administrator" && me.can_post_messages === true);
    return ok ? { can_post: true, problem: null } : { can_post: false, problem: "the bot is not an admin allowed to post in this channel" };
  }
  if (me.status === "restricted" && !me.can_send_messages)
    return { can_post: false, problem: "the bot is restricted here and may not send messages" };
  const members = (chat as { permissions?: { can_send_messages?: boolean } }).permissions;
  if (me.status === "member" && members?.can_send_messages === false) {
    return { can_post: false, problem: "members may not send messages in this group, and the bot is no admin" };
  }
  return { can_post: true, problem: null };
}

/**
 * Resolves destinations with getChat, getChatMemberCount and getChatMember
 * (for the bot). A chat the bot cannot see is an audience with a `problem`;
 * a group that became a supergroup resolves to the supergroup (its new id).
 * Complete results are cached per chat for `ttlMs` on the injected clock;
 * one with a part missing (no member count) is asked again next time.
 */
export class TelegramAudienceResolver implements AudienceSource {
  private readonly cache = new Map<string, { audience: Audience; at: number }>();

  constructor(private readonly options: AudienceResolverOptions) {}

  async resolve(chatId: string): Promise<Audience> {
    const now = this.options.clock.now();
    const hit = this.cache.get(chatId);
    if (hit && now - hit.at < (this.options.ttlMs ?? AUDIENCE_TTL_MS)) return hit.audience;
    const found = await this.lookup(chatId);
    if (found === null) return this.unknown(chatId, NO_ANSWER);
    if (!audienceUnknown(found)) this.cache.set(chatId, { audience: found, at: now });
    return found;
  }

  async fresh(chatId: string): Promise<Audience | null> {
    const found = await this.lookup(chatId);
    if (found !== null && !audienceUnknown(found)) this.cache.set(chatId, { audience: found, at: this.options.clock.now() });
    return found;
  }

  /** Asks Telegram; null when it did not answer. Follows one migration. */
  private async lookup(chatId: string, hops = 0): Promise<Audience | null> {
    const { api, botId } = this.options;
    const signal = this.timeout();
    try {
      const target = /^-?\d+$/.test(chatId) ? Number(chatId) : chatId;
      const chat = await api.getChat(target, signal.signal);
      const [count, me] =
        chat.type === "private"
          ? [null, null]
          : await Promise.all([
              api.getChatMemberCount(target, signal.signal).catch(() => null),
              api.getChatMember(target, botId, signal.signal).catch(() => null),
            ]);
      const right = postingRight(chat, me);
      return {
        chat_id: String(chat.id),
        kind: chat.type,
        title: nameOf(chat),
        username: chat.username ?? null,
        member_count: count,
        ...right,
        checked_at: new Date(this.options.clock.now()).toISOString(),
      };
    } catch (err) {
      const migrateTo = err instanceof GrammyError ? err.parameters.migrate_to_chat_id : undefined;
      if (migrateTo !== undefined && hops === 0) return this.lookup(String(migrateTo), 1);
      if (telegramSaid(err)) return this.unknown(chatId, `the bot cannot see this chat (Telegram: ${withoutToken(err.description)})`);
      return null;
    } finally {
      signal.done();
    }
  }

  private unknown(chatId: string, problem: string): Audience {
    return {
      chat_id: chatId,
      kind: "unknown",
      title: null,
      username: null,
      member_count: null,
      can_post: null,
      problem,
      checked_at: new Date(this.options.clock.now()).toISOString(),
    };
  }

  /** An AbortSignal that fires after LOOKUP_TIMEOUT_MS on the injected clock. */
  private timeout(): { signal: CallSignal; done(): void } {
    const controller = new AbortController();
    const handle = this.options.clock.setTimeout(() => controller.abort(), LOOKUP_TIMEOUT_MS);
    return { signal: controller.signal as unknown as CallSignal, done: () => this.options.clock.clearTimeout(handle) };
  }
}
