import type { AuditEntryOf } from "../audit/audit-schema.js";
import type { Clock } from "../clock/clock.js";
import { KeyedQueue } from "../desk/keyed-queue.js";
import type { DraftRecord } from "../drafts/record.js";
import type { ChatLog, LoggedMessage } from "./chat-log.js";
import type { ConnectionStore, OwnerConnection } from "./connection-store.js";
import { agoText, chooseSender, REPLY_WINDOW_MS, type SenderChoice } from "./sender-choice.js";
import type { SendAs } from "../drafts/sender.js";

/** A BusinessConnection as Telegram sends it (the fields the daemon reads). */
export interface TelegramBusinessConnection {
  readonly id: string;
  readonly user: { readonly id: number; readonly first_name: string; readonly last_name?: string; readonly username?: string };
  readonly date: number;
  readonly rights?: { readonly can_reply?: boolean };
  readonly is_enabled: boolean;
}

/** A business_message as Telegram sends it (the fields the daemon reads). */
export interface TelegramBusinessMessage {
  readonly message_id: number;
  readonly business_connection_id?: string;
  readonly date: number;
  readonly chat: { readonly id: number; readonly type: string };
  readonly from?: { readonly id: number; readonly first_name: string; readonly last_name?: string };
  readonly text?: string;
  readonly caption?: string;
}

/** What getBusinessConnection came to: the connection, gone (Telegram refused the id), or no answer. */
export type FetchedConnection =
  | { readonly ok: true; readonly connection: TelegramBusinessConnection }
  | { readonly ok: false; readonly gone: boolean; readonly reason: string };

/** What the owner's voice is built from. */
export interface OwnerVoiceOptions {
  readonly store: ConnectionStore;
  readonly chats: ChatLog;
  readonly reviewerIds: ReadonlySet<number>;
  readonly clock: Clock;
  readonly audit: { append(entries: readonly AuditEntryOf<"business_connection">[]): Promise<void> };
  readonly log: { info(obj: object, msg: string): void; warn(obj: object, msg: string): void };
  /** The bot's @username, as a post names it ("as @the_bot"); null when not known. */
  readonly botUsername: string | null;
  /** getBusinessConnection; absent in test mode (no network). */
  readonly fetchConnection?: (id: string) => Promise<FetchedConnection>;
}

/** The business connection as /status, `draft-review status` and /healthz show it. */
export interface BusinessStatus {
  readonly connected: boolean;
  readonly connection_id: string | null;
  readonly user_id: number | null;
  readonly user_name: string | null;
  readonly enabled: boolean;
  readonly can_reply: boolean;
  readonly checked_at: string | null;
  /** Private chats whose person wrote in the last 24 h (the owner can answer them as himself). */
  readonly open_chats: number;
}

/** The connection and the open chats as /status, `draft-review status` and /healthz show them (running or not). */
export function businessStatusOf(
  c: OwnerConnection | null,
  chats: { openChats(now: number, windowMs: number): number },
  now: number,
): BusinessStatus {
  return {
    connected: c !== null,
    connection_id: c?.id ?? null,
    user_id: c?.user_id ?? null,
    user_name: c?.user_name ?? null,
    enabled: c?.enabled ?? false,
    can_reply: c?.can_reply ?? false,
    checked_at: c?.checked_at ?? null,
    open_chats: chats.openChats(now, REPLY_WINDOW_MS),
  };
}

function nameOf(u: { readonly first_name: string; readonly last_name?: string }): string {
  return u.last_name ? `${u.first_name} ${u.last_name}` : u.first_name;
}

/**
 * The daemon's side of Telegram Business: which connection of the owner it
 * may send through (only a reviewer's; any other is audited and ignored), what
 * people wrote to him (the chat log), and the check made again at the send
 * call. Changes run one at a time.
 */
export class OwnerVoice {
  private readonly queue = new KeyedQueue();

  constructor(private readonly options: OwnerVoiceOptions) {}

  /** The connection the daemon sends through, or null. */
  get connection(): OwnerConnection | null {
    return this.options.store.current();
  }

  /** The chat log (what people wrote). */
  get chats(): ChatLog {
    return this.options.chats;
  }

  /** A business_connection update (or getBusinessConnection's answer): kept, forgotten, or ignored, and audited when that changes anything. */
  onConnection(bc: TelegramBusinessConnection, updateId: number | null): Promise<void> {
    return this.queue.run("business", () => this.applyConnection(bc, updateId));
  }

  /** A business_message: an incoming message of a person, through the owner's connection, is logged; anything else is not. */
  onMessage(m: TelegramBusinessMessage): Promise<void> {
    return this.queue.run("business", async () => {
      const c = this.connection;
      if (!c || m.business_connection_id !== c.id || m.chat.type !== "private" || !m.from || m.from.id === c.user_id) return;
      const text = m.text ?? m.caption ?? "(a message without text)";
      await this.options.chats.record(m.chat.id, { message_id: m.message_id, at: m.date * 1000, author: nameOf(m.from), text });
    });
  }

  /** The identity a new draft goes out as (see chooseSender), from what the daemon knows now. */
  choose(p: { readonly send_as: SendAs; readonly destination_chat_id: string; readonly reply_to_message_id: number | null }): SenderChoice {
    const chatId = Number(p.destination_chat_id);
    return chooseSender({
      sendAs: p.send_as,
      destinationChatId: p.destination_chat_id,
      replyToMessageId: p.reply_to_message_id,
      connection: this.connection,
      chat: Number.isSafeInteger(chatId) && chatId > 0 ? this.options.chats.chat(chatId) : undefined,
      botUsername: this.options.botUsername,
      now: this.options.clock.now(),
    });
  }

  /** At start: asks Telegram for the saved connection again (a change while the daemon was down is applied). */
  async refresh(): Promise<void> {
    const c = this.connection;
    if (!c || !this.options.fetchConnection) return;
    const fetched = await this.options.fetchConnection(c.id);
    if (fetched.ok) return this.onConnection(fetched.connection, null);
    if (fetched.gone) return this.queue.run("business", () => this.forget(c, "removed in Telegram (getBusinessConnection)", null));
    this.options.log.warn({ reason: fetched.reason }, "could not check the business connection at start; it is checked again at each send");
  }

  /** Test mode's assumed connection of the reviewer, with can_reply (kept in memory only). */
  assume(userId: number): OwnerConnection {
    const known = this.connection;
    if (known) return known;
    const at = new Date(this.options.clock.now()).toISOString();
    const c = {
      id: "test-mode",
      user_id: userId,
      user_name: "the owner",
      can_reply: true,
      enabled: true,
      connected_at: at,
      checked_at: at,
    };
    this.options.store.assume(c);
    return c;
  }

  /** Records a message as if it came through the connection (test mode's `business`). */
  recordIncoming(chatId: number, message: LoggedMessage): Promise<boolean> {
    return this.queue.run("business", () => this.options.chats.record(chatId, message));
  }

  /**
   * Why a draft approved to go out as the owner cannot go now, or null. With
   * `fresh`, Telegram is asked for the connection first (no answer: it
   * cannot go: evidence that cannot be had fails closed).
   */
  async problemAtSend(draft: DraftRecord, fresh: boolean): Promise<string | null> {
    const s = draft.sender;
    if (s?.kind !== "owner") return null;
    if (fresh && this.options.fetchConnection) {
      const fetched = await this.options.fetchConnection(s.connection_id);
      if (!fetched.ok && !fetched.gone) return `the business connection could not be checked (${fetched.reason})`;
      if (fetched.ok) await this.onConnection(fetched.connection, null);
      else if (this.connection?.id === s.connection_id) {
        const c = this.connection;
        await this.queue.run("business", () => this.forget(c, "removed in Telegram (getBusinessConnection)", null));
      }
    }
    const c = this.connection;
    if (!c || c.id !== s.connection_id) return "your Telegram Business connection is gone (disabled or removed in Telegram)";
    if (c.user_id !== s.owner_user_id || !this.options.reviewerIds.has(c.user_id)) return "the business connection is no longer yours";
    if (!c.enabled) return "your Telegram Business connection is paused";
    if (!c.can_reply) return "the business connection lost the right to reply (can_reply)";
    const chat = this.options.chats.chat(Number(draft.destination_chat_id));
    const name = s.person_name ?? "the person";
    const now = this.options.clock.now();
    if (!chat) return `${name} has not written to you in the last 24 h, so Telegram does not let you answer as yourself`;
    if (now - chat.last_incoming >= REPLY_WINDOW_MS) {
      return `the 24 h window closed: ${name} last wrote ${agoText(now - chat.last_incoming)}, and Telegram lets you answer as yourself only within 24 h`;
    }
    return null;
  }

  /** The connection as /status shows it. */
  status(): BusinessStatus {
    return businessStatusOf(this.connection, this.options.chats, this.options.clock.now());
  }

  private async applyConnection(bc: TelegramBusinessConnection, updateId: number | null): Promise<void> {
    const known = this.connection;
    const canReply = bc.rights?.can_reply === true;
    const facts = { connection_id: bc.id, user_id: bc.user.id, enabled: bc.is_enabled, can_reply: canReply, update_id: updateId };
    if (!this.options.reviewerIds.has(bc.user.id)) {
      this.options.log.warn(
        { connection_id: bc.id, user_id: bc.user.id },
        "a Telegram Business connection of someone who is not a reviewer: ignored",
      );
      await this.options.audit.append([{ kind: "business_connection", ...facts, outcome: "ignored", reason: "not_a_reviewer" }]);
      return;
    }
    if (!bc.is_enabled) {
      if (known && known.id !== bc.id) return;
      return this.forget(
        { id: bc.id, user_id: bc.user.id, enabled: false, can_reply: canReply },
        "disabled or removed in Telegram",
        updateId,
      );
    }
    const at = new Date(this.options.clock.now()).toISOString();
    const next: OwnerConnection = {
      id: bc.id,
      user_id: bc.user.id,
      user_name: nameOf(bc.user),
      can_reply: canReply,
      enabled: true,
      connected_at: new Date(bc.date * 1000).toISOString(),
      checked_at: at,
    };
    const changed =
      !known || known.id !== next.id || known.can_reply !== next.can_reply || known.user_name !== next.user_name || !known.enabled;
    await this.options.store.save(next);
    if (!changed) return;
    this.options.log.info(
      { connection_id: bc.id, can_reply: canReply },
      "Telegram Business connection kept: drafts may go out as the owner",
    );
    await this.options.audit.append([
      { kind: "business_connection", ...facts, outcome: "kept", reason: canReply ? "connected" : "connected without can_reply" },
    ]);
  }

  private async forget(
    c: Pick<OwnerConnection, "id" | "user_id" | "enabled" | "can_reply">,
    reason: string,
    updateId: number | null,
  ): Promise<void> {
    const had = this.connection !== null;
    await this.options.store.forget();
    if (!had) return;
    this.options.log.info({ connection_id: c.id, reason }, "Telegram Business connection forgotten: drafts go out as the bot only");
    await this.options.audit.append([
      {
        kind: "business_connection",
        connection_id: c.id,
        user_id: c.user_id,
        enabled: false,
        can_reply: c.can_reply,
        outcome: "forgotten",
        reason,
        update_id: updateId,
      },
    ]);
  }
}
