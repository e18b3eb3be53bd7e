/**
 * Where a Linear comment goes, as the payload's `destination` says it
 * (contract v5): an issue by identifier or UUID, and the comment it answers
 * when it is a reply. Strict: an unknown field is refused, and each refusal
 * names the field and what it takes.
 */
import { z } from "zod";

/** An issue identifier as Linear forms it: a team key (A-Z, 0-9, _; up to 10) and the issue's number. */
export const LINEAR_ISSUE_IDENTIFIER = /^[A-Z][A-Z0-9_]{0,9}-[1-9]\d{0,8}$/;
/** A Linear id: a UUID, lowercase hex 8-4-4-4-12. */
export const LINEAR_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The `destination` object of a payload that goes to Linear. */
export const linearDestinationSchema = z.strictObject({
  channel: z.literal("linear"),
  issue: z
    .string({ error: "must be the issue's identifier (ENG-123) or its UUID" })
    .refine((v) => LINEAR_ISSUE_IDENTIFIER.test(v) || LINEAR_UUID.test(v), {
      error: "must be the issue's identifier (ENG-123: team key in capitals, a dash, the number) or its UUID (lowercase hex 8-4-4-4-12)",
    }),
  parent_comment_id: z
    .string({ error: "must be null or the UUID of the comment this one answers" })
    .regex(LINEAR_UUID, { error: "must be null or the UUID of the comment this one answers (lowercase hex 8-4-4-4-12)" })
    .nullable()
    .default(null),
});

/** A parsed Linear destination. */
export type LinearDestination = z.infer<typeof linearDestinationSchema>;

/** The issue as a short label: its identifier, or the start of its UUID. */
export function linearIssueLabel(issue: string): string {
  return LINEAR_UUID.test(issue) ? `issue ${issue.slice(0, 8)}…` : issue;
}

/** A one-line label of where it goes, for lists and notices: "ENG-123 comment", "ENG-123 reply". */
export function describeLinearDestination(d: LinearDestination): string {
  return `${linearIssueLabel(d.issue)} ${d.parent_comment_id === null ? "comment" : "reply"}`;
}

/** The longest comment this channel sends, in characters: Linear publishes no limit, so this one is ours. */
export const LINEAR_MAX_COMMENT_LENGTH = 100_000;
