import type { LinkPreviewOptions } from "grammy/types";

/** A link as Telegram finds one in plain text: with a scheme, or a www. host. */
const FIRST_LINK = /\b(?:https?:\/\/|www\.)[^\s<>"'«»“”‘’]+/i;

/**
 * The link preview of a draft, the same for its review post and its send, so
 * the reviewer sees the preview the recipients will get: the first link of
 * the draft's text, named explicitly (the review post's own lines never pick
 * it), shown below the text; no link, no preview. Trailing punctuation is
 * not part of the link, as in Telegram.
 */
export function linkPreviewFor(draftText: string): LinkPreviewOptions {
  const match = FIRST_LINK.exec(draftText)?.[0]?.replace(/[.,;:!?)\]}]+$/, "");
  if (match === undefined || match === "") return { is_disabled: true };
  const url = /^www\./i.test(match) ? `http://${match}` : match;
  return { url, prefer_small_media: true, show_above_text: false };
}
