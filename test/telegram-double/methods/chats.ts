import type { ChatFullInfo, ChatMember, ChatMemberAdministrator, User } from "grammy/types";
import { badRequest } from "../errors.js";
import { chatIdParam, optInt, optJson } from "../params.js";
import { isReactionEmoji } from "../reactions.js";
import type { ChatState, World } from "../world.js";
import { checkNotBlocked, messageIdParam } from "./send.js";
import type { Handler } from "./state.js";

/** getChat: the chat's full info (the fields our daemon could read). */
export const getChat: Handler = (params, state) => {
  const chat = state.world.resolveChat(chatIdParam(params));
  const info = { ...state.world.chatObject(chat), accent_color_id: 0, max_reaction_count: 11, accepted_gift_types: {} };
  return info as unknown as ChatFullInfo;
};

function administrator(user: User, isBot: boolean, canManageTopics = true): ChatMemberAdministrator {
  return {
    status: "administrator",
    user,
    can_be_edited: false,
    is_anonymous: false,
    can_manage_chat: true,
    can_delete_messages: true,
    can_manage_video_chats: true,
    can_restrict_members: true,
    can_promote_members: !isBot,
    can_change_info: true,
    can_invite_users: true,
    can_post_stories: true,
    can_edit_stories: true,
    can_delete_stories: true,
    can_pin_messages: true,
    can_manage_topics: canManageTopics,
    can_send_welcome_messages: false,
  };
}

/** The bot's own membership: left when removed; restricted (group) or a non-posting admin/member (channel) when it may not post. */
function botMember(world: World, chat: ChatState): ChatMember {
  const user = world.botUser();
  const c = chat.config;
  if (c.blocked) return { status: c.type === "private" ? "kicked" : "left", user, until_date: 0 } as ChatMember;
  const canPost = c.botCanPost !== false;
  if (c.type === "channel") {
    if (!c.botIsAdmin) return { status: "left", user } as ChatMember;
    return { ...administrator(user, true), can_post_messages: canPost, can_edit_messages: canPost } as ChatMember;
  }
  if (c.type !== "private" && !canPost) {
    return { status: "restricted", user, is_member: true, can_send_messages: false, until_date: 0 } as unknown as ChatMember;
  }
  return c.botIsAdmin && c.type !== "private" ? administrator(user, true, c.botCanManageTopics !== false) : { status: "member", user };
}

function memberOf(world: World, chat: ChatState, userId: number): ChatMember {
  if (userId === world.bot.id) return botMember(world, chat);
  const user = world.userObject(userId);
  if (chat.config.type === "private") return chat.config.id === userId ? { status: "member", user } : { status: "left", user };
  const member = chat.config.members?.find((m) => m.userId === userId);
  if (!member) return { status: "left", user };
  if (member.status === "creator") return { status: "creator", user, is_anonymous: false };
  return member.status === "administrator" ? administrator(user, false) : { status: "member", user };
}

/** getChatMemberCount: `memberCount`, or the configured members plus the bot; a private chat has 2 (the user and the bot). */
export const getChatMemberCount: Handler = (params, state) => {
  const chat = state.world.resolveChat(chatIdParam(params));
  if (chat.config.type === "private") return 2;
  return chat.config.memberCount ?? (chat.config.members?.length ?? 0) + 1;
};

/** getChatMember: the bot (admin per `botIsAdmin`), a configured member, or "left". */
export const getChatMember: Handler = (params, state) => {
  const chat = state.world.resolveChat(chatIdParam(params));
  const userId = optInt(params, "user_id");
  if (userId === undefined) throw badRequest("user_id is empty");
  return memberOf(state.world, chat, userId);
};

/** getChatAdministrators: creator and admins among the members, and the bot if it is one. */
export const getChatAdministrators: Handler = (params, state) => {
  const chat = state.world.resolveChat(chatIdParam(params));
  if (chat.config.type === "private") throw badRequest("there are no administrators in the private chat");
  const ids = (chat.config.members ?? []).filter((m) => m.status !== "member").map((m) => m.userId);
  if (chat.config.botIsAdmin) ids.push(state.world.bot.id);
  return ids.map((id) => memberOf(state.world, chat, id));
};

const CHAT_ACTIONS = new Set([
  "typing",
  "upload_photo",
  "record_video",
  "upload_video",
  "record_voice",
  "upload_voice",
  "upload_document",
  "choose_sticker",
  "find_location",
  "record_video_note",
  "upload_video_note",
]);

/** sendChatAction: true for a known action in a reachable chat. */
export const sendChatAction: Handler = (params, state) => {
  const chat = state.world.resolveChat(chatIdParam(params));
  checkNotBlocked(chat);
  if (!CHAT_ACTIONS.has(String(params["action"] ?? ""))) throw badRequest("wrong parameter action in request");
  return true;
};

/** setMessageReaction: the bot reacts (at most one emoji from Telegram's list) to a stored message. */
export const setMessageReaction: Handler = (params, state) => {
  const chat = state.world.resolveChat(chatIdParam(params));
  checkNotBlocked(chat);
  const messageId = messageIdParam(params);
  if (!chat.messages.has(messageId)) throw badRequest("message to react not found");
  const reaction = optJson(params, "reaction", "can't parse reaction types JSON object") ?? [];
  if (!Array.isArray(reaction)) throw badRequest('field "reaction" must be of type Array');
  if (reaction.length > 1) throw badRequest("REACTIONS_TOO_MANY");
  for (const r of reaction as Array<{ type?: string; emoji?: string }>) {
    if (r.type !== "emoji" || typeof r.emoji !== "string" || !isReactionEmoji(r.emoji)) throw badRequest("REACTION_INVALID");
  }
  return true;
};
