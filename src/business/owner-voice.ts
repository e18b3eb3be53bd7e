import type { AuditEntryOf } from "../audit/audit-schema.js";
import type { Clock } from "../clock/clock.js";
import { KeyedQueue } from "../serial/keyed-queue.js";
import type { DraftRecord } from "../drafts/record.js";
import type { Audience } from "../drafts/audience.js";
import type { ChatLog, LoggedMessage } from "./chat-log.js";
import type { ConnectionStore, OwnerConnection } from "./connection-store.js";
import { accountWithId, ignoredNotice, type IgnoredConnection, type IgnoredConnections } from "./ignored-connections.js";
import { localDayTime } from "../clock/local-time.js";
import {
  chooseSender,
  isPersonChat,
  ownerProblem,
  REPLY_WINDOW_MS,
  type OwnerProblem,
  type SenderChoice,
  type SenderFacts,
} from "../drafts/sender-choice.js";
import type { SendAs } from "../drafts/sender.js";
import { businessStatusOf, type BusinessStatus } from "./saved-status.js";

/** A User as Telegram sends it (the fields the daemon reads). */
interface TelegramUser {
  readonly id: number;
  readonly first_name: string;
  readonly last_name?: string;
  readonly username?: string;
}

/** A BusinessConnection as Telegram sends it (the fields the daemon reads). */
export interface TelegramBusinessConnection {
  readonly id: string;
  readonly user: TelegramUser;
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
  readonly from?: TelegramUser;
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
  /** Other accounts' connections, ignored (each told to the review chat once). */
  readonly ignored: IgnoredConnections;
  /** OWNER_USER_ID: the only account whose connection sends as the owner. */
  readonly ownerUserId: number;
  /** REVIEWER_USER_IDS (an ignored connection's notice says whether its account is a reviewer). */
  readonly reviewerIds: ReadonlySet<number>;
  /** Tells the review chat something (an ignored connection); absent: test mode (nobody to tell). */
  readonly tell?: (text: string) => Promise<unknown>;
  readonly clock: Clock;
  readonly audit: { append(entries: readonly AuditEntryOf<"business_connection">[]): Promise<void> };
  readonly log: { info(obj: object, msg: string): void; warn(obj: object, msg: string): void };
  /** The bot's @username, as a post names it ("as @the_bot"); null when not known. */
  readonly botUsername: string | null;
  /** getBusinessConnection; absent in test mode (no network). */
  readonly fetchConnection?: (id: string) => Promise<FetchedConnection>;
}

function nameOf(u: { readonly first_name: string; readonly last_name?: string }): string {
  return u.last_name ? `${u.first_name} ${u.last_name}` : u.first_name;
}

const CHATBOTS = "Settings → Telegram Business → Chatbots";

/**
 * Telegram names another account than the owner's for the connection a
 * draft was approved to go through: it cannot go as him through it, now or
 * later (the connection is forgotten; a new one needs a new draft).
 */
function anotherAccount(u: TelegramUser): OwnerProblem {
  const who = accountWithId({ name: nameOf(u), username: u.username ?? null, user_id: u.id });
  return {
    why: `Telegram now names another account, ${who}, as the owner of the business connection this draft was to go through`,
    until: null,
  };
}

/**
 * The daemon's side of Telegram Business: the one connection it may send
 * through (the owner's, OWNER_USER_ID; any other account's is ignored,
 * audited and told to the review chat once), what people wrote to him (the
 * chat log), and the check made again at the send call. Changes run one at a time.
 */
export class OwnerVoice {
  private readonly queue = new KeyedQueue();

  constructor(private readonly options: OwnerVoiceOptions) {}

  /** The owner's connection the daemon sends through, or null (a saved connection of another account is none). */
  get connection(): OwnerConnection | null {
    const c = this.options.store.current();
    return c !== null && c.user_id === this.options.ownerUserId ? c : null;
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
      const message = { message_id: m.message_id, at: m.date * 1000, author: nameOf(m.from), text };
      await this.options.chats.record(m.chat.id, message, m.from.username ?? null);
    });
  }

  /**
   * The identity a new draft goes out as (see chooseSender), from what the
   * daemon knows now. When it goes as the bot to a person instead of as the
   * owner, `lookup` (the bot's getChat) names the person the daemon did not see.
   */
  async choose(
    p: { readonly send_as: SendAs; readonly destination_chat_id: string; readonly reply_to_message_id: number | null },
    lookup?: (chatId: string) => Promise<Audience>,
  ): Promise<SenderChoice> {
    const facts = this.facts(p);
    if (p.send_as === "bot" || !isPersonChat(p.destination_chat_id) || ownerProblem(facts) === null || !lookup) return chooseSender(facts);
    return chooseSender({ ...facts, botView: await lookup(p.destination_chat_id) });
  }

  private facts(p: {
    readonly send_as: SendAs;
    readonly destination_chat_id: string;
    readonly reply_to_message_id: number | null;
  }): SenderFacts {
    const chatId = Number(p.destination_chat_id);
    const other = this.options.ignored.latestEnabled();
    return {
      sendAs: p.send_as,
      destinationChatId: p.destination_chat_id,
      replyToMessageId: p.reply_to_message_id,
      connection: this.connection,
      other: other === null ? null : { name: other.name, username: other.username },
      chat: isPersonChat(p.destination_chat_id) ? this.options.chats.chat(chatId) : undefined,
      botUsername: this.options.botUsername,
      now: this.options.clock.now(),
    };
  }

  /**
   * At start: a saved connection of another account than the owner's (kept by
   * an earlier version, or before OWNER_USER_ID changed) is forgotten, audited
   * and told; the owner's is asked of Telegram again (a change while the
   * daemon was down is applied), or, when none is saved, one of his that was
   * ignored before OWNER_USER_ID named him.
   */
  async refresh(): Promise<void> {
    const saved = this.options.store.current();
    if (saved !== null && saved.user_id !== this.options.ownerUserId) {
      await this.queue.run("business", async () => {
        await this.forget(saved, `not the owner's account (OWNER_USER_ID is ${this.options.ownerUserId})`, null, true);
        await this.ignore({ id: saved.id, user_id: saved.user_id, name: saved.user_name, username: saved.user_username, enabled: true });
      });
    }
    const c = this.connection;
    const id = c?.id ?? this.options.ignored.enabledOf(this.options.ownerUserId)?.id;
    if (id === undefined || !this.options.fetchConnection) return;
    const fetched = await this.options.fetchConnection(id);
    if (fetched.ok) return this.onConnection(fetched.connection, null);
    if (fetched.gone && c) return this.queue.run("business", () => this.forget(c, "removed in Telegram (getBusinessConnection)", null));
    if (fetched.gone) return;
    this.options.log.warn({ reason: fetched.reason }, "could not check the business connection at start; it is checked again at each send");
  }

  /** Test mode's assumed connection of the owner, with can_reply (kept in memory only). */
  assume(): OwnerConnection {
    const known = this.connection;
    if (known) return known;
    const at = new Date(this.options.clock.now()).toISOString();
    const c = {
      id: "test-mode",
      user_id: this.options.ownerUserId,
      user_name: "the owner",
      user_username: null,
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
   * Why a draft approved to go out as the owner cannot go now, and what would
   * let it, or null. The connection must be the owner's and the very one the
   * approval bound (its id and its user). With `fresh`, Telegram is asked for
   * the connection first (no answer: it cannot go: evidence that cannot be
   * had fails closed; an answer naming another account for its id: it cannot
   * go, and the saved connection is forgotten, whatever the file says).
   */
  async problemAtSend(draft: DraftRecord, fresh: boolean): Promise<OwnerProblem | null> {
    const s = draft.sender;
    if (s?.kind !== "owner") return null;
    if (s.owner_user_id !== this.options.ownerUserId) {
      return {
        why: `it was to go from the account of user ${s.owner_user_id}, and drafts speak only as user ${this.options.ownerUserId} (OWNER_USER_ID)`,
        until: null,
      };
    }
    if (fresh && this.options.fetchConnection) {
      const fetched = await this.options.fetchConnection(s.connection_id);
      if (!fetched.ok && !fetched.gone) {
        return { why: `the business connection could not be checked (${fetched.reason})`, until: "Telegram answers again" };
      }
      if (fetched.ok) {
        await this.onConnection(fetched.connection, null);
        if (fetched.connection.user.id !== s.owner_user_id) return anotherAccount(fetched.connection.user);
      } else if (this.connection?.id === s.connection_id) {
        const c = this.connection;
        await this.queue.run("business", () => this.forget(c, "removed in Telegram (getBusinessConnection)", null));
      }
    }
    return this.connectionProblem(draft, s);
  }

  private connectionProblem(draft: DraftRecord, s: Extract<DraftRecord["sender"], { kind: "owner" }>): OwnerProblem | null {
    const c = this.connection;
    if (!c || c.id !== s.connection_id || c.user_id !== s.owner_user_id) {
      return {
        why: "your Telegram Business connection is gone (disabled or removed in Telegram)",
        until: `the same connection is back (${CHATBOTS}; a new connection needs a new draft)`,
      };
    }
    if (!c.enabled) return { why: "your Telegram Business connection is paused", until: `you resume it (${CHATBOTS})` };
    if (!c.can_reply) {
      return {
        why: "the business connection lost the right to reply (can_reply)",
        until: `you let the bot reply to messages again (${CHATBOTS})`,
      };
    }
    const chat = this.options.chats.chat(Number(draft.destination_chat_id));
    const name = s.person_name ?? "the person";
    const now = this.options.clock.now();
    if (!chat) {
      return {
        why: `${name} has not written to you in the last 24 h, so Telegram does not let you answer as yourself`,
        until: `${name} writes to you`,
      };
    }
    if (now - chat.last_incoming >= REPLY_WINDOW_MS) {
      return {
        why: `the 24 h window closed: ${name} last wrote ${localDayTime(chat.last_incoming)}, and Telegram lets you answer as yourself only within 24 h`,
        until: `${name} writes to you again`,
      };
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
    if (bc.user.id !== this.options.ownerUserId) {
      // The saved connection's own id, now another account's: the account Telegram names counts, never the one saved.
      if (known?.id === bc.id)
        await this.forget(known, `Telegram names another account for it (user ${bc.user.id}), not the owner's`, updateId);
      return this.ignoreOther(bc, facts);
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
      user_username: bc.user.username ?? null,
      can_reply: canReply,
      enabled: true,
      connected_at: new Date(bc.date * 1000).toISOString(),
      checked_at: at,
    };
    const changed = !known?.enabled || (["id", "can_reply", "user_name", "user_username"] as const).some((k) => known[k] !== next[k]);
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

  /** Another account's connection (not OWNER_USER_ID's): audited as ignored, remembered, told once. */
  private async ignoreOther(
    bc: TelegramBusinessConnection,
    facts: Omit<AuditEntryOf<"business_connection">, "kind" | "outcome" | "reason">,
  ) {
    const reason = this.options.reviewerIds.has(bc.user.id) ? "not_the_owner" : "not_a_reviewer";
    this.options.log.warn(
      { connection_id: bc.id, user_id: bc.user.id, reason },
      "a Telegram Business connection of another account than the owner's (OWNER_USER_ID): ignored",
    );
    await this.options.audit.append([{ kind: "business_connection", ...facts, outcome: "ignored", reason }]);
    const name = { name: nameOf(bc.user), username: bc.user.username ?? null };
    await this.ignore({ id: bc.id, user_id: bc.user.id, ...name, enabled: bc.is_enabled });
  }

  /**
   * Remembers another account's connection (never sends through it) and, the
   * first time it is seen enabled, tells the review chat, naming the account.
   * A failure to remember or tell is logged: the connection stays ignored.
   */
  private async ignore(c: Omit<IgnoredConnection, "told_at" | "seen_at">): Promise<void> {
    const at = new Date(this.options.clock.now()).toISOString();
    try {
      const noted = await this.options.ignored.note({ ...c, seen_at: at });
      const tell = this.options.tell;
      if (noted.told_at !== null || !noted.enabled || !tell) return;
      const o = this.connection;
      const owner = o ? { name: o.user_name, username: o.user_username, user_id: o.user_id } : { user_id: this.options.ownerUserId };
      await tell(ignoredNotice(noted, owner, this.options.reviewerIds.has(noted.user_id)));
      await this.options.ignored.told(noted.id, at);
    } catch (err) {
      this.options.log.warn({ err, connection_id: c.id }, "could not remember or tell an ignored business connection; it stays ignored");
    }
  }

  private async forget(
    c: Pick<OwnerConnection, "id" | "user_id" | "enabled" | "can_reply">,
    reason: string,
    updateId: number | null,
    saved = false,
  ): Promise<void> {
    const had = saved || this.connection !== null;
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
