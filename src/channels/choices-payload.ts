import { telegramChoiceSchema } from "./telegram/destination.js";
import type { StoredDestination } from "../drafts/destination.js";
import type { DraftPayload, PayloadCheck, TelegramChoice } from "../drafts/payload.js";

/** `destinations` holds 2 to 5 destination objects (contract v5, Wave 3). */
const MIN_CHOICES = 2;
const MAX_CHOICES = 5;

/** A payload refused: the field at fault and why, worded `field: why`. */
export type Refusal = Extract<PayloadCheck, { ok: false }>;
/** The refusal of `field`, worded as every payload refusal is. */
export const refusal = (field: string, error: string): Refusal => ({ ok: false, field, error: `${field}: ${error}` });

/** True for a refusal (a destination object is loose: it is told apart by its shape). */
export function isRefusal(x: unknown): x is Refusal {
  return typeof x === "object" && x !== null && (x as Refusal).ok === false && typeof (x as Refusal).error === "string";
}

/** One entry of `destinations` checked by its channel: the destination, or the refusal naming its field. */
export type ParseOne = (destination: unknown, field: string) => StoredDestination | Refusal;

/**
 * Checks `destinations` and `choose`: 2 to 5 destinations, each valid for its
 * channel, no two the same place; `choose` one (default) or any. Returns the
 * destinations as the record keeps them, or the refusal naming the field.
 */
export function parseChoices(
  value: unknown,
  choose: unknown,
  parseOne: ParseOne,
): { ok: true; destinations: (StoredDestination | TelegramChoice)[]; choose: "one" | "any" } | Refusal {
  if (!Array.isArray(value)) return refusal("destinations", `must be a list of ${MIN_CHOICES} to ${MAX_CHOICES} destination objects`);
  if (value.length < MIN_CHOICES)
    return refusal("destinations", `lists ${value.length}; give at least ${MIN_CHOICES} (a single one goes in destination)`);
  if (value.length > MAX_CHOICES) return refusal("destinations", `lists ${value.length}; at most ${MAX_CHOICES} are allowed`);
  if (choose !== undefined && choose !== "one" && choose !== "any") return refusal("choose", 'must be "one" or "any"');
  const out: (StoredDestination | TelegramChoice)[] = [];
  const seen = new Map<string, number>();
  for (const [i, entry] of value.entries()) {
    const field = `destinations[${i}]`;
    const parsed = parseEntry(entry, field, parseOne);
    if (isRefusal(parsed)) return parsed;
    const place = placeOf(parsed);
    const earlier = seen.get(place);
    if (earlier !== undefined)
      return refusal(field, `is the same place as destinations[${earlier}]; each destination must be another place`);
    seen.set(place, i);
    out.push(parsed);
  }
  return { ok: true, destinations: out, choose: choose === "any" ? "any" : "one" };
}

function parseEntry(entry: unknown, field: string, parseOne: ParseOne): StoredDestination | TelegramChoice | Refusal {
  if (typeof entry !== "object" || entry === null || Array.isArray(entry))
    return refusal(field, 'must be an object like {"channel":"email",…}');
  if ((entry as Record<string, unknown>).channel !== "telegram") return parseOne(entry, field);
  const t = telegramChoiceSchema.safeParse(entry);
  if (t.success) return t.data;
  const issue = t.error.issues[0];
  const at = issue?.code === "unrecognized_keys" ? issue.keys.join(", ") : (issue?.path.join(".") ?? "");
  const why =
    issue?.code === "unrecognized_keys"
      ? 'unknown field (a Telegram destination among several takes channel, chat_id, thread_id, reply_to_message_id: null, send_as: "bot")'
      : (issue?.message ?? "is not valid");
  return refusal(`${field}${at ? `.${at}` : ""}`, why);
}

/** Where a destination delivers, so two entries that are one place are refused: the chat and topic, the recipients, the conversation and thread, the issue and thread. */
function placeOf(d: StoredDestination | TelegramChoice): string {
  const r = d as Record<string, unknown>;
  const list = (k: string) => (Array.isArray(r[k]) ? (r[k] as unknown[]).map((a) => String(a).toLowerCase()) : []);
  switch (d.channel) {
    case "telegram":
      return `telegram:${String(r.chat_id).toLowerCase()}:${String(r.thread_id ?? "")}`;
    case "email":
      return `email:${[...new Set([...list("to"), ...list("cc"), ...list("bcc")])].sort().join(",")}`;
    case "slack":
      return `slack:${String(r.channel_id)}:${String(r.thread_ts ?? "")}`;
    case "linear":
      return `linear:${String(r.issue).toLowerCase()}:${String(r.parent_comment_id ?? "")}`;
  }
}

/** The payload's own destination fields: those of the first choice (the role's recommendation). */
export function firstAsPayload(first: StoredDestination | TelegramChoice, label: (d: StoredDestination) => string): Partial<DraftPayload> {
  if (first.channel === "telegram")
    return {
      destination_chat_id: first.chat_id,
      destination_thread_id: first.thread_id,
      destination: null,
      send_as: "bot",
      reply_to_message_id: null,
    };
  return { destination_chat_id: label(first), destination_thread_id: null, destination: first, send_as: "bot", reply_to_message_id: null };
}
