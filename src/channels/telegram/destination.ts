import { z } from "zod";
import { chatIdSchema } from "../../drafts/payload.js";

/**
 * Telegram as one channel among four (contract v5): its `destination`
 * objects. The channel itself is telegram-channel.ts; what every channel
 * shares (approval, halts, undo, audit, events) is one code for all four.
 */

/**
 * `destination` for Telegram: the v1-v4 fields in one object. Each field is
 * checked by the v1-v4 payload schema it maps onto, so a refusal reads the same.
 */
export const telegramDestinationSchema = z.strictObject({
  channel: z.literal("telegram"),
  chat_id: z.unknown(),
  thread_id: z.unknown().optional(),
  reply_to_message_id: z.unknown().optional(),
  send_as: z.unknown().optional(),
});

/**
 * A Telegram destination among several (`destinations`): a chat and a topic; it goes as the bot, replying
 * to nothing. It takes the whole object of `destination` (contract v5), so `reply_to_message_id` and
 * `send_as` may be given with those values; another value is refused naming the field, since among
 * several destinations the post cannot yet show a reply target or the owner's voice for each.
 */
export const telegramChoiceSchema = z
  .strictObject({
    channel: z.literal("telegram"),
    chat_id: chatIdSchema.transform(String),
    thread_id: z
      .number()
      .int()
      .positive()
      .nullable()
      .optional()
      .transform((v) => v ?? null),
    reply_to_message_id: z.null({ error: "must be null among several destinations (a reply goes in `destination`, alone)" }).optional(),
    send_as: z
      .literal("bot", { error: 'must be "bot" among several destinations (the owner\'s voice goes in `destination`, alone)' })
      .optional(),
  })
  .transform(({ channel, chat_id, thread_id }) => ({ channel, chat_id, thread_id }));
