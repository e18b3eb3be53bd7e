import { z } from "zod";
import type { StoredDestination } from "./destination.js";
import { ROLES } from "./record.js";
import { SEND_AS } from "./sender.js";
import { isEmptyForTelegram, trimLikeTelegram } from "./telegram-text.js";

/** Telegram's limit on a message text, in UTF-16 code units (what JS `length` counts). */
/** A Telegram id the payload may leave out: a positive integer, or null (absent reads as null). */
function optionalId() {
  return z
    .number()
    .int()
    .positive()
    .nullable()
    .optional()
    .transform((v) => v ?? null);
}

export const TELEGRAM_TEXT_LIMIT = 4096;

/** A Telegram chat id as a payload may give it: a non-zero integer, or its string, or a public @username. */
export const chatIdSchema = z.union([
  z
    .number()
    .int()
    .refine((n) => n !== 0, "must not be 0"),
  z
    .string()
    .regex(/^(-?[1-9]\d{0,15}|@[A-Za-z][A-Za-z0-9_]{3,31})$/, 'must be a numeric chat id like "-1001234567890" or a public @username'),
]);

/**
 * The draft payload the swarm submits (contract: "The draft payload"). Strict:
 * an unknown field is refused, and every refusal names its field.
 */
export const draftPayloadSchema = z.strictObject({
  draft_text: z
    .string()
    // Judged as Telegram will deliver it: without the spaces it drops from both ends.
    .refine((t) => !isEmptyForTelegram(trimLikeTelegram(t)), "must not be empty")
    .superRefine((t, ctx) => {
      const sent = trimLikeTelegram(t).length;
      if (sent > TELEGRAM_TEXT_LIMIT) {
        ctx.addIssue({ code: "custom", message: `is ${sent} UTF-16 code units long; Telegram allows ${TELEGRAM_TEXT_LIMIT}` });
      }
    }),
  destination_chat_id: chatIdSchema.transform(String),
  destination_thread_id: optionalId(),
  drafted_by_role: z.enum(ROLES),
  originating_intent_id: z.string().min(1, "must not be empty").max(256),
  idempotency_key: z
    .string()
    .min(1, "must not be empty")
    .max(256)
    .nullable()
    .optional()
    .transform((v) => v ?? null),
  /** An earlier draft that this one replaces (contract v2); checked against the store at intake. */
  revises: z
    .string()
    .min(1, "must not be empty")
    .max(128)
    .nullable()
    .optional()
    .transform((v) => v ?? null),
  /** Who sends it (contract v3): the bot (default), the owner's own account, or the owner where Telegram allows it. */
  send_as: z
    .enum(SEND_AS, { error: `must be one of ${SEND_AS.map((s) => `"${s}"`).join(", ")}` })
    .nullable()
    .optional()
    .transform((v) => v ?? "bot"),
  /** A message in the destination chat that the draft answers; the send replies to it. */
  reply_to_message_id: optionalId(),
});

/**
 * A payload after validation (chat id as a string, optional fields as null).
 * `destination`: a channel other than Telegram (contract v5), checked by that
 * channel (src/channels/destination-payload.ts); absent or null: Telegram.
 */
export type DraftPayload = z.output<typeof draftPayloadSchema> & {
  readonly destination?: StoredDestination | null;
  /**
   * `destinations` (contract v5, Wave 3), each as the channel checked it, Telegram's as
   * `{channel:"telegram", chat_id, thread_id}`; the first is also the payload's own destination.
   */
  readonly destinations?: readonly (StoredDestination | TelegramChoice)[] | null;
  /** How the owner picks among `destinations`. */
  readonly choose?: "one" | "any";
};

/** A Telegram destination among `destinations`: a chat and a topic, sent as the bot. */
export interface TelegramChoice {
  readonly channel: "telegram";
  readonly chat_id: string;
  readonly thread_id: number | null;
}

/** The outcome of checking a payload: the payload, or the fields at fault (the first in `field`) and why, all in `error`. */
export type PayloadCheck =
  | { readonly ok: true; readonly payload: DraftPayload }
  | { readonly ok: false; readonly field: string; readonly error: string };

/**
 * Validates an untrusted payload. The error names every field at fault, in
 * the payload schema's order, e.g. `draft_text: must not be empty;
 * drafted_by_role: is required`, so the swarm fixes its request in one go;
 * `field` is the first of them.
 */
export function parseDraftPayload(input: unknown): PayloadCheck {
  const result = draftPayloadSchema.safeParse(input);
  if (result.success) return { ok: true, payload: result.data };
  const problems = result.error.issues.map((issue) => describeIssue(issue, input));
  // One line per field: zod may report two issues for one field (a union's branches).
  const seen = new Set<string>();
  const unique = problems.filter((p) => !seen.has(p.field) && seen.add(p.field));
  return { ok: false, field: unique[0]!.field, error: unique.map((p) => p.error).join("; ") };
}

/** One zod issue as the field it names and a sentence about it. */
function describeIssue(issue: z.core.$ZodIssue, input: unknown): { field: string; error: string } {
  if (issue.code === "unrecognized_keys") {
    const field = issue.keys.join(", ");
    const allowed = [...Object.keys(draftPayloadSchema.shape), "destination", "destinations", "choose"];
    return { field, error: `${field}: unknown field (allowed: ${allowed.join(", ")})` };
  }
  const field = issue.path.length > 0 ? issue.path.join(".") : "payload";
  // zod 4 leaves `issue.input` unset, so whether the field is absent is read from the input itself.
  const missing = issue.code === "invalid_type" && valueAt(input, issue.path) === undefined;
  return { field, error: `${field}: ${missing ? "is required" : issue.message}` };
}

/** The value at `path` in `input`, own properties only (never the prototype chain); undefined when absent. */
function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let v = input;
  for (const key of path) {
    if (typeof v !== "object" || v === null || !Object.hasOwn(v, key)) return undefined;
    v = (v as Record<PropertyKey, unknown>)[key];
  }
  return v;
}
