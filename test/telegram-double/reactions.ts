import type { ReactionTypeEmoji } from "grammy/types";

/**
 * The emoji Telegram accepts as a ReactionTypeEmoji (Bot API 9.x). Note what is
 * missing: no ❌ and no ⏳, and the heart is "❤" without a variation selector.
 */
export const REACTION_EMOJI: ReadonlySet<string> = new Set([
  "👍",
  "👎",
  "❤",
  "🔥",
  "🥰",
  "👏",
  "😁",
  "🤔",
  "🤯",
  "😱",
  "🤬",
  "😢",
  "🎉",
  "🤩",
  "🤮",
  "💩",
  "🙏",
  "👌",
  "🕊",
  "🤡",
  "🥱",
  "🥴",
  "😍",
  "🐳",
  "❤‍🔥",
  "🌚",
  "🌭",
  "💯",
  "🤣",
  "⚡",
  "🍌",
  "🏆",
  "💔",
  "🤨",
  "😐",
  "🍓",
  "🍾",
  "💋",
  "🖕",
  "😈",
  "😴",
  "😭",
  "🤓",
  "👻",
  "👨‍💻",
  "👀",
  "🎃",
  "🙈",
  "😇",
  "😨",
  "🤝",
  "✍",
  "🤗",
  "🫡",
  "🎅",
  "🎄",
  "☃",
  "💅",
  "🤪",
  "🗿",
  "🆒",
  "💘",
  "🙉",
  "🦄",
  "😘",
  "💊",
  "🙊",
  "😎",
  "👾",
  "🤷‍♂",
  "🤷",
  "🤷‍♀",
  "😡",
]);

/** Whether `emoji` is one Telegram allows as a reaction. */
export function isReactionEmoji(emoji: string): emoji is ReactionTypeEmoji["emoji"] {
  return REACTION_EMOJI.has(emoji);
}

/** Emoji strings as the ReactionTypeEmoji array a message_reaction update carries. */
export function toReactions(emojis: readonly string[]): ReactionTypeEmoji[] {
  return emojis.map((emoji) => {
    if (!isReactionEmoji(emoji)) throw new Error(`telegram double: "${emoji}" is not a reaction Telegram allows`);
    return { type: "emoji", emoji };
  });
}
