/**
 * The zod field builders every environment variable is read with: unset-if-blank, whole numbers
 * and durations with their limits, URLs, and UNDO_WINDOW's and REMIND_BEFORE's "0 for none". Each
 * words its problem the same way for every variable. Apart from config.ts (the list of variables,
 * the rules across them and the Config they make) so that list reads as one table.
 */
import { z } from "zod";
import { DAY_MS, formatDuration, readDuration } from "./duration.js";

/** Unset, empty or only spaces is unset, as shells and `.env` files mean it; anything else is trimmed. */
export const unsetIfBlank = (v: unknown): unknown => (typeof v === "string" ? (v.trim() === "" ? undefined : v.trim()) : v);

/** A variable that may be unset; `schema` reads it when it is set. */
export function optional<T extends z.ZodType>(schema: T) {
  return z.preprocess(unsetIfBlank, schema.optional());
}

/** What the operator wrote, for a problem's text. */
export const got = (iss: { readonly input?: unknown }): string => `(got "${String(iss.input)}")`;

/** A whole number from `min` to `max`; `problem` says what is wrong and how to fix it. */
export function wholeNumber(min: number, max: number, problem: (got: string) => string) {
  const error = (iss: { readonly input?: unknown }) => problem(got(iss));
  return z.string().regex(/^\d+$/, { error }).transform(Number).pipe(z.number().min(min, { error }).max(max, { error }));
}

/** A whole number with a default, the problem worded the same way for every such variable. */
export function count(name: string, min: number, max: number, unsetMeans: number) {
  return wholeNumber(min, max, (g) => `${name} must be a whole number from ${min} to ${max} ${g}; leave it unset for ${unsetMeans}.`);
}

/**
 * A duration such as 90s, 15m or 24h, in milliseconds, at most `maxMs`: a
 * value past it refuses the start, naming the variable and the limit (never a
 * hang or an Invalid Date later).
 */
export function duration(name: string, maxMs: number) {
  const limit = formatDuration(maxMs);
  return z
    .string()
    .refine((text) => readDuration(text, maxMs).ok, {
      error: (iss) => `${name} must be a duration such as 90s, 15m, 24h or 30d, at most ${limit} ${got(iss)}.`,
    })
    .transform((text) => (readDuration(text, maxMs) as { ms: number }).ms);
}

/** The longest DRAFT_TTL and DEFER_FOR: a year. */
export const MAX_TTL_MS = 365 * DAY_MS;
/** The longest DRAFT_RETENTION: ten years. */
export const MAX_RETENTION_MS = 3650 * DAY_MS;
/** The longest UNDO_WINDOW: an hour (an approval should not wait longer to go out). */
export const MAX_UNDO_WINDOW_MS = 3_600_000;

/** True for an http(s) URL that `new URL` accepts. */
export function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === "http:" || url.protocol === "https:";
  } catch {
    return false;
  }
}

/** UNDO_WINDOW: a duration as DRAFT_TTL's, at most an hour, or `0`/`0s` for no window. */
export function undoWindow() {
  const error = (iss: { readonly input?: unknown }) =>
    `UNDO_WINDOW must be a duration such as 10s or 1m, at most 1h, or 0 for no undo window ${got(iss)}.`;
  return z
    .string()
    .refine((text) => /^0+(\.0*)?\s*(ms|s|m|h|d)?$/.test(text) || readDuration(text, MAX_UNDO_WINDOW_MS).ok, { error })
    .transform((text) => {
      const read = readDuration(text, MAX_UNDO_WINDOW_MS);
      return read.ok ? read.ms : 0;
    });
}

/** REMIND_BEFORE: a duration as DRAFT_TTL's (at most as long), or `0`/`0s` for no reminders. */
export function remindBefore() {
  const error = (iss: { readonly input?: unknown }) =>
    `REMIND_BEFORE must be a duration such as 30m or 1h, at most ${formatDuration(MAX_TTL_MS)}, or 0 for no reminders ${got(iss)}.`;
  return z
    .string()
    .refine((text) => /^0+(\.0*)?\s*(ms|s|m|h|d)?$/.test(text) || readDuration(text, MAX_TTL_MS).ok, { error })
    .transform((text) => {
      const read = readDuration(text, MAX_TTL_MS);
      return read.ok ? read.ms : 0;
    });
}
