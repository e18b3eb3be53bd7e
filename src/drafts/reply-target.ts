import type { Answering, SendAs, Sender } from "./sender.js";

/**
 * What a draft's send answers: the one decision that both its review post
 * shows and its send call makes, so the two cannot differ.
 * - `none`: no `reply_to_message_id`; the send is no reply.
 * - `reply`: the send replies to `message_id`, and to nothing else. `seen`:
 *   the daemon saw that message (a business message, quoted on the post);
 *   otherwise the post says it was not seen here, and the send is refused by
 *   Telegram rather than go out as a plain message when that message is not there.
 * - `dropped`: the id names a message of the owner's own chat with the person,
 *   but the bot sends: the bot's chat with them is another chat, whose message
 *   ids are not those; the send is no reply, and the post says so.
 */
export type ReplyTarget =
  | { readonly kind: "none" }
  | { readonly kind: "reply"; readonly message_id: number; readonly seen: boolean }
  | { readonly kind: "dropped"; readonly message_id: number };

/** The fields of a draft the reply is decided from. */
export interface Replying {
  readonly send_as: SendAs;
  readonly sender: Sender | null;
  readonly reply_to_message_id: number | null;
  readonly answering: Answering | null;
}

/**
 * The reply a draft's send makes (see ReplyTarget). A `reply_to_message_id`
 * given with send_as `bot` is a message of the chat the bot sends to; given
 * with `owner` or `auto`, one of the owner's own chat, answered only as the owner.
 */
export function replyTarget(d: Replying): ReplyTarget {
  const id = d.reply_to_message_id;
  if (id === null) return { kind: "none" };
  const asOwner = d.sender?.kind === "owner";
  if (!asOwner && d.send_as !== "bot") return { kind: "dropped", message_id: id };
  return { kind: "reply", message_id: id, seen: asOwner && d.answering?.message_id === id };
}

/** The reply as an approval binds it (part of sendIdentity): `>4711` for a reply to 4711, empty for none. */
export function replyBinding(d: Replying): string {
  const t = replyTarget(d);
  return t.kind === "reply" ? `>${t.message_id}` : "";
}
