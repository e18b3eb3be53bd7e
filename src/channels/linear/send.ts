/**
 * Sends one comment, and finds it again after a lost answer. The comment's
 * id is the SendReference's `reference`, a UUID chosen and made durable
 * before the call (Linear's CommentCreateInput takes `id`), so "was it
 * created?" is one `comment(id:)` lookup: found, or "Entity not found".
 */
import type { ChannelSendOutcome, LostSendLookup, SendReference, SentRef } from "../channel.js";
import { failureOf, type LinearContext, outcomeOf } from "./context.js";
import { LINEAR_UUID, type LinearDestination } from "./destination.js";

/**
 * The longest comment sent, in characters. Linear publishes no limit for a
 * comment's body; a longer one it refuses comes back `refused` anyway.
 */
import { LINEAR_MAX_COMMENT_LENGTH } from "./destination.js";

export { LINEAR_MAX_COMMENT_LENGTH };

/** The comment with this id, as the SDK's `comment` query finds it; throws what the SDK throws. */
async function lookUp(ctx: LinearContext, id: string): Promise<SentRef> {
  const comment = await ctx.client().comment({ id });
  return { comment_id: comment.id, url: comment.url };
}

/** Is the comment with this id there? Found, absent ("Entity not found"), or unknown. */
export async function findComment(ctx: LinearContext, id: string): Promise<LostSendLookup> {
  try {
    return { kind: "found", sentRef: await lookUp(ctx, id) };
  } catch (error) {
    const f = failureOf(ctx, error);
    if (f.notFound?.entity === "Comment") return { kind: "absent" };
    return { kind: "unknown", reason: `could not ask Linear whether the comment exists: ${f.reason}` };
  }
}

/** The sent comment's reference: its web address from a second read, null when that read fails (it was sent all the same). */
async function sentRefOf(ctx: LinearContext, id: string): Promise<SentRef> {
  try {
    return await lookUp(ctx, id);
  } catch {
    return { comment_id: id, url: null };
  }
}

/** Sends `text` as a comment on the destination's issue (in the answered comment's thread), once. */
export async function sendComment(ctx: LinearContext, d: LinearDestination, text: string, ref: SendReference): Promise<ChannelSendOutcome> {
  if (!LINEAR_UUID.test(ref.reference)) {
    return { kind: "refused", reason: "the comment id chosen before the send is not a UUID (a bug in the daemon): not sent" };
  }
  if (text.length > LINEAR_MAX_COMMENT_LENGTH) {
    return {
      kind: "refused",
      reason: `the text is longer than Linear's ${LINEAR_MAX_COMMENT_LENGTH.toLocaleString("en-US")} characters: not sent`,
    };
  }
  const input = {
    id: ref.reference,
    issueId: d.issue,
    body: text,
    ...(d.parent_comment_id === null ? {} : { parentId: d.parent_comment_id }),
  };
  try {
    const payload = await ctx.client().createComment(input);
    if (!payload.success) return { kind: "not_sent", reason: "Linear answered that it did not create the comment" };
    return { kind: "ok", sentRef: await sentRefOf(ctx, payload.commentId ?? ref.reference) };
  } catch (error) {
    const f = failureOf(ctx, error);
    if (f.kind === "refused" && f.invalidInput) {
      // Refused input may be the id itself, taken by an earlier call of this same send: look before saying "not sent".
      const look = await findComment(ctx, ref.reference);
      if (look.kind === "found") return { kind: "ok", sentRef: look.sentRef };
    }
    if (f.notFound !== null) return { kind: "refused", reason: notFoundWords(f.notFound.entity, d) };
    return outcomeOf(f);
  }
}

/** What a missing entity means for this destination, and what to do. */
export function notFoundWords(entity: string, d: LinearDestination): string {
  if (entity === "Comment" && d.parent_comment_id !== null) {
    return "the comment it answers (parent_comment_id) is not in Linear, or not on this issue: check the id";
  }
  return `issue ${d.issue} not found in Linear, or not visible to the key's owner: check the issue`;
}
