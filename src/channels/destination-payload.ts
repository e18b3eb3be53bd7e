import type { z } from "zod";
import { reviewParts } from "../drafts/text-parts.js";
import { CHANNEL_NAMES, type OtherChannelName, type StoredDestination } from "../drafts/destination.js";
import { draftPayloadSchema, parseDraftPayload, TELEGRAM_TEXT_LIMIT, type DraftPayload, type PayloadCheck } from "../drafts/payload.js";
import { isEmptyForTelegram, trimLikeTelegram } from "../drafts/telegram-text.js";
import { telegramDestinationSchema } from "./telegram/destination.js";
import { CHANNEL_VARIABLES, type ChannelSet } from "./channel-set.js";
import { firstAsPayload, isRefusal, parseChoices, type Refusal, refusal } from "./choices-payload.js";

/** The v1-v4 fields that name a Telegram destination: a payload with `destination` carries none of them. */
const TELEGRAM_FIELDS = ["destination_chat_id", "destination_thread_id", "reply_to_message_id", "send_as"] as const;

/** The payload's fields other than where it goes, for a draft to another channel (draft_text checked by the channel's limit). */
const otherChannelPayloadSchema = draftPayloadSchema.omit({
  draft_text: true,
  destination_chat_id: true,
  destination_thread_id: true,
  reply_to_message_id: true,
  send_as: true,
});

/**
 * Validates a payload that may name its destination with `destination`
 * (contract v5): Telegram's maps onto the v1-v4 fields; another channel's is
 * checked by that channel's own schema, refused when that channel is not
 * configured (naming the variables to set), and the text by that channel's
 * limit. Without `destination` it is the v1-v4 payload, unchanged.
 */
export function parsePayload(input: unknown, channels: ChannelSet | null): PayloadCheck {
  if (typeof input !== "object" || input === null || Array.isArray(input)) return parseDraftPayload(input);
  const fields = input as Record<string, unknown>;
  if ((fields.destinations !== undefined && fields.destinations !== null) || Object.hasOwn(fields, "choose"))
    return choicesPayload(fields, channels);
  if (!Object.hasOwn(input, "destination")) return parseDraftPayload(input);
  const { destination, ...rest } = input as Record<string, unknown>;
  if (destination === null || destination === undefined) return parseDraftPayload(rest);
  const both = TELEGRAM_FIELDS.filter((f) => Object.hasOwn(rest, f));
  if (both.length > 0)
    return refusal(
      "destination",
      `give either destination or ${both.join(", ")}, not both (destination names where it goes, on any channel)`,
    );
  if (typeof destination !== "object" || Array.isArray(destination))
    return refusal("destination", 'must be an object like {"channel":"email",…}');
  const channel = (destination as Record<string, unknown>).channel;
  if (channel === "telegram") return telegramPayload(destination, rest);
  if (typeof channel !== "string" || !(CHANNEL_NAMES as readonly string[]).includes(channel))
    return refusal("destination.channel", `must be one of ${CHANNEL_NAMES.map((c) => `"${c}"`).join(", ")}`);
  return otherChannelPayload(channel as OtherChannelName, destination, rest, channels);
}

/**
 * `destinations` (Wave 3): 2 to 5 destinations on any channels, each checked
 * as a single `destination` would be, and `choose`. The first is the payload's
 * own destination (the role's recommendation); the text fits every channel.
 */
function choicesPayload(input: Record<string, unknown>, channels: ChannelSet | null): PayloadCheck {
  const { destinations, choose, destination, ...rest } = input;
  if (destinations === undefined || destinations === null) return refusal("choose", "is given only with destinations");
  if (destination !== undefined && destination !== null)
    return refusal("destinations", "give either destination or destinations, not both");
  const both = TELEGRAM_FIELDS.filter((f) => Object.hasOwn(rest, f));
  if (both.length > 0) return refusal("destinations", `give either destinations or ${both.join(", ")}, not both`);
  const parsed = parseChoices(destinations, choose, (d, field) => otherDestination(d, field, channels));
  if (isRefusal(parsed)) return parsed;
  let text: string | Refusal = typeof rest.draft_text === "string" ? rest.draft_text : "";
  for (const d of parsed.destinations) {
    if (d.channel === "telegram") continue;
    const channel = channels!.get(d.channel)!;
    text = draftText(rest.draft_text, channel.maxLength, d.channel);
    if (typeof text !== "string") return text;
  }
  const { draft_text: _t, ...others } = rest;
  // Telegram's own limit only where a Telegram chat is among them; the others' limits were checked above.
  const toTelegram = parsed.destinations.some((d) => d.channel === "telegram");
  const asChecked = toTelegram ? rest.draft_text : "x";
  const parsedPayload = parseDraftPayload({ ...others, draft_text: asChecked, destination_chat_id: "1" });
  if (!parsedPayload.ok) return parsedPayload;
  const checked = toTelegram ? parsedPayload : { ...parsedPayload, payload: { ...parsedPayload.payload, draft_text: text as string } };
  const first = firstAsPayload(parsed.destinations[0]!, destinationLabel);
  const payload: DraftPayload = { ...checked.payload, ...first, destinations: parsed.destinations, choose: parsed.choose };
  return { ok: true, payload };
}

/** One destination on Linear, email or Slack: that channel configured, its own schema; refusals name `field`. */
function otherDestination(destination: unknown, field: string, channels: ChannelSet | null): StoredDestination | Refusal {
  const name = (destination as Record<string, unknown>).channel;
  if (typeof name !== "string" || !(CHANNEL_NAMES as readonly string[]).includes(name))
    return refusal(`${field}.channel`, `must be one of ${CHANNEL_NAMES.map((c) => `"${c}"`).join(", ")}`);
  const channel = channels?.get(name as OtherChannelName);
  if (channel === undefined)
    return refusal(
      `${field}.channel`,
      `"${name}" is not configured on this daemon: set ${CHANNEL_VARIABLES[name as OtherChannelName]} and restart it`,
    );
  const d = channel.destinationSchema.safeParse(destination);
  if (!d.success) return refusal(`${field}.${fieldOf(d.error)}`, firstMessage(d.error));
  return d.data as StoredDestination;
}

/** Telegram's `destination` object, as the v1-v4 fields it stands for. */
function telegramPayload(destination: object, rest: Record<string, unknown>): PayloadCheck {
  const d = telegramDestinationSchema.safeParse(destination);
  if (!d.success) return refusal(`destination.${fieldOf(d.error)}`, firstMessage(d.error));
  const mapped: Record<string, unknown> = { ...rest, destination_chat_id: d.data.chat_id };
  if (d.data.thread_id !== undefined) mapped.destination_thread_id = d.data.thread_id;
  if (d.data.reply_to_message_id !== undefined) mapped.reply_to_message_id = d.data.reply_to_message_id;
  if (d.data.send_as !== undefined) mapped.send_as = d.data.send_as;
  const check = parseDraftPayload(mapped);
  if (check.ok) return check;
  // The refusal names the field as the payload spelled it.
  const rename = (s: string) =>
    s
      .replace(/\bdestination_chat_id\b/g, "destination.chat_id")
      .replace(/\bdestination_thread_id\b/g, "destination.thread_id")
      .replace(/(^|[^.])\breply_to_message_id\b/g, "$1destination.reply_to_message_id")
      .replace(/(^|[^.])\bsend_as\b/g, "$1destination.send_as");
  return { ok: false, field: rename(check.field), error: rename(check.error) };
}

/** A payload to Linear, email or Slack: that channel configured, its destination and text limit checked. */
function otherChannelPayload(
  name: OtherChannelName,
  destination: object,
  rest: Record<string, unknown>,
  channels: ChannelSet | null,
): PayloadCheck {
  const channel = channels?.get(name);
  if (channel === undefined)
    return refusal("destination.channel", `"${name}" is not configured on this daemon: set ${CHANNEL_VARIABLES[name]} and restart it`);
  const d = channel.destinationSchema.safeParse(destination);
  if (!d.success) return refusal(`destination.${fieldOf(d.error)}`, firstMessage(d.error));
  const text = draftText(rest.draft_text, channel.maxLength, name);
  const { draft_text: _text, ...fields } = rest;
  const others = otherChannelPayloadSchema.safeParse(fields);
  if (typeof text === "string" && others.success) {
    const payload: DraftPayload = {
      ...others.data,
      draft_text: text,
      destination_chat_id: destinationLabel(d.data as StoredDestination),
      destination_thread_id: null,
      reply_to_message_id: null,
      send_as: "bot",
      destination: d.data as StoredDestination,
    };
    return { ok: true, payload };
  }
  if (typeof text !== "string") return text;
  // The other fields' refusal, worded as for any payload.
  const check = parseDraftPayload({ ...rest, draft_text: "x", destination_chat_id: "1" });
  return check.ok ? refusal("payload", "is not valid") : check;
}

/** draft_text for a channel other than Telegram: not empty, within the channel's limit (in characters). */
function draftText(value: unknown, max: number, channel: string): string | Refusal {
  if (value === undefined) return refusal("draft_text", "is required");
  if (typeof value !== "string") return refusal("draft_text", "must be a string");
  const trimmed = trimLikeTelegram(value);
  if (isEmptyForTelegram(trimmed)) return refusal("draft_text", "must not be empty");
  const length = [...trimmed].length;
  if (length > max)
    return refusal("draft_text", `is ${length.toLocaleString("en-US")} characters long; ${channel} allows ${max.toLocaleString("en-US")}`);
  // Longer than one Telegram message, the review post shows it in parts (text-parts.ts); what it could not show exactly is never sent.
  if (trimmed.length > TELEGRAM_TEXT_LIMIT && reviewParts(trimmed) === null)
    return refusal(
      "draft_text",
      `has a stretch of ${TELEGRAM_TEXT_LIMIT.toLocaleString("en-US")} UTF-16 code units with no place to cut it between review messages (whitespace throughout, which Telegram drops at a message's ends); the owner could not read it as it would be sent`,
    );
  return value;
}

/**
 * A short label of a non-Telegram destination, kept in `destination_chat_id`
 * (the limiter, logs and lists group by it): `email`, `slack:C0123`,
 * `linear:ENG-123`.
 */
export function destinationLabel(d: StoredDestination): string {
  if (d.channel === "slack") return `slack:${String(d.channel_id)}`;
  if (d.channel === "linear") return `linear:${String(d.issue)}`;
  return "email";
}

function fieldOf(error: z.ZodError): string {
  const issue = error.issues[0];
  if (issue?.code === "unrecognized_keys") return issue.keys.join(", ");
  return issue && issue.path.length > 0 ? issue.path.join(".") : "channel";
}

function firstMessage(error: z.ZodError): string {
  const issue = error.issues[0];
  if (issue?.code === "unrecognized_keys") return "unknown field";
  return issue?.message ?? "is not valid";
}
