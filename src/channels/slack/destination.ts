/**
 * The Slack `destination` object of a payload (contract v5): which
 * conversation, and which thread in it. Strict, and every refusal names the
 * field and what a right value looks like, because the swarm that sent it
 * has to fix it without a person to ask.
 */
import { z } from "zod";

/** A conversation id: a public channel (C…), a private channel or group DM (G…), a DM (D…). */
export const SLACK_CONVERSATION_ID = /^[CGD][A-Z0-9]{8,}$/;
/** A message timestamp as Slack writes it: seconds, a dot, six digits ("1700000000.123456"). */
export const SLACK_TS = /^\d{10}\.\d{6}$/;
/** A user id (U… or, on Enterprise Grid, W…): people are not conversations. */
const SLACK_USER_ID = /^[UW][A-Z0-9]{8,}$/;

const channelId = z.string().superRefine((id, ctx) => {
  if (SLACK_CONVERSATION_ID.test(id)) return;
  const message = SLACK_USER_ID.test(id)
    ? "is a user id; a DM's conversation id starts with D (conversations.open gives it)"
    : 'must be a Slack conversation id: C…, G… or D… followed by at least 8 capital letters or digits, e.g. "C0123ABCDE" (not a #name)';
  ctx.addIssue({ code: "custom", message });
});

const threadTs = z
  .string()
  .regex(SLACK_TS, 'must be the thread\'s first message ts, e.g. "1700000000.123456", or null')
  .nullable()
  .optional()
  .transform((v) => v ?? null);

/** The payload's `destination` for Slack; unknown fields are refused. */
export const slackDestinationSchema = z.strictObject({
  channel: z.literal("slack"),
  channel_id: channelId,
  thread_ts: threadTs,
});

/** A Slack destination after validation (`thread_ts` null when absent). */
export type SlackDestination = z.output<typeof slackDestinationSchema>;

/**
 * A one-line label for lists and notices. It names the id, not the channel's
 * name: the name needs a call, and the review post's audience lines carry it.
 */
export function describeSlackDestination(d: SlackDestination): string {
  const kind = d.channel_id.startsWith("D") ? "DM" : "conversation";
  const where = `Slack ${kind} ${d.channel_id}`;
  return d.thread_ts === null ? where : `${where}, in thread ${d.thread_ts}`;
}

/** Slack's limit on a message's text, in characters (JS `length`). */
export const SLACK_TEXT_LIMIT = 40_000;
