/**
 * The messages of one review post: the draft as one message, or a header and the draft as a reply
 * to it, with the post's buttons and link preview, in its role's topic (a new one if the owner
 * deleted it). Kept apart from TelegramReviewChat, which decides when a post goes (its lane, its
 * burst line); this file says which sendMessage calls a post is, and where they go.
 */
import type { Api } from "grammy";
import type { LinkPreviewOptions, Message } from "grammy/types";
import type { DraftRecord } from "../drafts/record.js";
import { isReplyTargetGone, isThreadGone } from "./classify.js";
import { linkPreviewFor } from "./link-preview.js";
import { reviewKeyboard } from "./review-buttons.js";
import { reviewPost, type ReviewFormatOptions } from "./review-format.js";
import type { PacedCall, ReviewTopics } from "./review-topics.js";

/** No preview for the daemon's own messages (they carry no links of the draft). */
const NO_PREVIEW: LinkPreviewOptions = { is_disabled: true };

/** The post's messages: the one that holds the draft, and the header before it (null: one message). */
export interface PostMessages {
  readonly message: Message.TextMessage;
  readonly header: Message.TextMessage | null;
  /** A draft longer than one message: its parts before the last (the last is `message`), in order; else empty. */
  readonly parts: readonly Message.TextMessage[];
}

/** Where a post is sent and how it looks. */
export interface PostTarget {
  readonly api: Api;
  readonly chatId: string;
  readonly format: ReviewFormatOptions;
}

/** Where the review chat's posts go: its main thread and, with REVIEW_TOPICS=role, a topic per role. */
export interface PostPlace extends PostTarget {
  readonly threadId: number | null;
  readonly topics?: ReviewTopics;
  readonly log: { warn(obj: object, msg: string): void };
  /** The main thread, as sendMessage's options take it. */
  readonly where: () => { message_thread_id?: number };
}

/**
 * Posts the draft in its role's thread; `posted` hears where each post went. The owner deleted
 * the role's topic: a new one is made, and the post goes there.
 */
export async function postInThread(
  place: PostPlace,
  draft: DraftRecord,
  paced: PacedCall,
  posted: (thread: number | null, messageId: number) => void,
): Promise<{ sent: PostMessages; thread: number | null }> {
  const thread = await threadForPost(place, draft, paced);
  try {
    const sent = await sendPost(place, draft, thread, paced);
    posted(thread, sent.message.message_id);
    return { sent, thread };
  } catch (err) {
    if (thread === null || place.topics === undefined || !isThreadGone(err)) throw err;
    await place.topics.lost(thread);
    const again = await threadForPost(place, draft, paced);
    const sent = await sendPost(place, draft, again, paced);
    posted(again, sent.message.message_id);
    return { sent, thread: again };
  }
}

/** The thread of the role's post (its topic, made if need be), after what the owner must be told about the topics. */
async function threadForPost(place: PostPlace, draft: DraftRecord, paced: PacedCall): Promise<number | null> {
  const { topics, api, chatId } = place;
  if (topics === undefined) return place.threadId;
  const choice = await topics.threadFor(draft.drafted_by_role, paced);
  for (const notice of choice.notices) {
    try {
      await paced(() => api.sendMessage(chatId, notice.text, { ...place.where(), link_preview_options: NO_PREVIEW }));
      await topics.told(notice);
    } catch (err) {
      place.log.warn({ err }, "could not tell the review chat about its topics");
    }
  }
  return choice.thread;
}

/**
 * The post itself: one message, or a header and the draft as a reply to it,
 * in `thread`. A new version (payload `revises`) replies to the earlier
 * draft's post: its quote leads there; where Telegram cannot reply to it
 * (deleted, or in another topic) the post says "an earlier draft" instead.
 */
async function sendPost(target: PostTarget, draft: DraftRecord, thread: number | null, paced: PacedCall): Promise<PostMessages> {
  try {
    return await sendPostMessages(target, draft, thread, paced);
  } catch (err) {
    if (draft.revises_post === null || !isReplyTargetGone(err)) throw err;
    return sendPostMessages(target, { ...draft, revises_post: null }, thread, paced);
  }
}

/** The post's messages, sent in `thread` (null: the chat itself), each call paced by the review chat. */
async function sendPostMessages(target: PostTarget, draft: DraftRecord, thread: number | null, paced: PacedCall): Promise<PostMessages> {
  const { api, chatId, format } = target;
  const post = reviewPost(draft, format);
  const markup = reviewKeyboard({ ...draft, status: "pending" }, format);
  const preview = linkPreviewFor(draft.draft_text);
  const where = thread === null ? {} : { message_thread_id: thread };
  const earlier =
    draft.revises_post === null ? {} : { reply_parameters: { message_id: draft.revises_post, allow_sending_without_reply: true } };
  if (post.kind === "single") {
    const message = await paced(() =>
      api.sendMessage(chatId, post.message.text, {
        ...where,
        entities: post.message.entities,
        link_preview_options: preview,
        reply_markup: markup,
        ...earlier,
      }),
    );
    return { message, header: null, parts: [] };
  }
  const header = await paced(() =>
    api.sendMessage(chatId, post.header.text, { ...where, entities: post.header.entities, link_preview_options: NO_PREVIEW, ...earlier }),
  );
  // A draft longer than one message: its parts before the last, in order, each a reply to the header (no buttons, no preview).
  const parts: Message.TextMessage[] = [];
  for (const part of post.earlier) {
    const sent = await paced(() =>
      api.sendMessage(chatId, part.text, {
        ...where,
        entities: part.entities,
        link_preview_options: NO_PREVIEW,
        reply_parameters: { message_id: header.message_id, allow_sending_without_reply: true },
      }),
    );
    parts.push(sent);
  }
  const message = await paced(() =>
    api.sendMessage(chatId, post.draft.text, {
      ...where,
      entities: post.draft.entities,
      link_preview_options: preview,
      reply_markup: markup,
      reply_parameters: { message_id: header.message_id, allow_sending_without_reply: true },
    }),
  );
  return { message, header, parts };
}
