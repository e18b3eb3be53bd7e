import { z } from "zod";

/** One stdin line of test mode (contract: "Test mode"). A line without `cmd` is a payload. */
export const testCommandSchema = z.discriminatedUnion("cmd", [
  z.strictObject({ cmd: z.literal("submit"), draft: z.unknown() }),
  z.strictObject({
    cmd: z.literal("react"),
    review_message_id: z.number().int(),
    emoji: z.string().min(1),
    user_id: z.number().int().optional(),
    /** Among several destinations: a tap on that one's send button (from 1). */
    destination: z.number().int().min(1).max(5).optional(),
  }),
  z.strictObject({
    cmd: z.literal("reply"),
    review_message_id: z.number().int(),
    text: z.string(),
    user_id: z.number().int().optional(),
  }),
  z.strictObject({
    cmd: z.literal("edit"),
    review_message_id: z.number().int(),
    text: z.string(),
    user_id: z.number().int().optional(),
  }),
  // `choose: "any"`: a tap on that destination's toggle on the draft's live post (contract v5, "The recipients he picks").
  z.strictObject({
    cmd: z.literal("toggle"),
    draft_id: z.string(),
    destination: z.number().int().min(1).max(5),
    user_id: z.number().int().optional(),
  }),
  // A tap on a post's "🔓 Keep the removed items" (contract v4, "His own details, one tap").
  z.strictObject({ cmd: z.literal("keep"), review_message_id: z.number().int(), user_id: z.number().int().optional() }),
  z.strictObject({
    cmd: z.literal("unreact"),
    review_message_id: z.number().int(),
    emoji: z.string().min(1),
    user_id: z.number().int().optional(),
  }),
  // Without `by`: to the end of the last running undo window (nothing to wait for: no move).
  z.strictObject({ cmd: z.literal("advance"), by: z.string().optional() }),
  z.strictObject({ cmd: z.literal("get"), draft_id: z.string() }),
  z.strictObject({ cmd: z.literal("list"), status: z.string().optional() }),
  // A person's message to the owner, through the business connection test mode assumes (with can_reply).
  z.strictObject({
    cmd: z.literal("business"),
    from_id: z.number().int().positive(),
    text: z.string().min(1),
    ago: z.string().optional(),
    name: z.string().min(1).optional(),
  }),
]);

/** A parsed test-mode command. */
export type TestCommand = z.infer<typeof testCommandSchema>;

/** Reads one line: a command, a bare payload (to submit), or an error to answer with. */
export function parseTestLine(line: string): { ok: true; command: TestCommand } | { ok: false; error: string } {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return { ok: false, error: "not a JSON line; send one JSON object per line" };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return { ok: false, error: 'expected a JSON object: a draft payload or {"cmd": ...}' };
  }
  if (!("cmd" in value)) return { ok: true, command: { cmd: "submit", draft: value } };
  const parsed = testCommandSchema.safeParse(value);
  if (parsed.success) return { ok: true, command: parsed.data };
  const issue = parsed.error.issues[0]!;
  const where = issue.path.length > 0 ? `${issue.path.join(".")}: ` : "";
  const known = "submit, react, unreact, reply, edit, keep, toggle, advance, get, list, business";
  const message = issue.code === "invalid_union" ? `unknown cmd; known: ${known}` : issue.message;
  return { ok: false, error: `${where}${message}` };
}
