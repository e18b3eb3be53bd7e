import { z } from "zod";
import { audienceSchema } from "./audience.js";
import { channelAudienceSchema, storedDestinationSchema } from "./destination.js";

/**
 * The recipients the owner picks among (contract v5, "The recipients he
 * picks"): a draft with `destinations` carries each one as a choice, with
 * the audience its post showed. The draft's own destination fields are those
 * of the choice it goes to: the first (the role's recommendation) until the
 * owner picks another. Pure data and pure functions.
 */

/** One destination the owner may pick, numbered as the post numbers it (from 1). */
export const choiceSchema = z.object({
  index: z.number().int().min(1).max(5),
  /** Linear, email or Slack: the destination object; null: Telegram (the chat and topic below). */
  destination: storedDestinationSchema.nullable(),
  /** Telegram's chat id, or the other channel's label ("email", "slack:C…"). */
  destination_chat_id: z.string(),
  destination_thread_id: z.number().int().nullable(),
  /** Telegram's audience as read for the post; null on other channels. */
  audience: audienceSchema.nullable(),
  /** The other channel's audience as read for the post; null on Telegram. */
  channel_audience: channelAudienceSchema.nullable(),
});
/** One destination the owner may pick. */
export type Choice = z.infer<typeof choiceSchema>;

/** How the owner picks: one destination (default), or any of them (toggles). */
export const CHOOSE_MODES = ["one", "any"] as const;

/** One chosen destination's delivery as the record shows it (contract v5 `deliveries`). */
export const deliverySchema = z.object({
  index: z.number().int().min(1).max(5),
  status: z.string(),
  sent_ref: z.record(z.string(), z.union([z.string(), z.number(), z.null()])).nullable(),
  reason: z.string().nullable(),
});
/** One chosen destination's delivery. */
export type Delivery = z.infer<typeof deliverySchema>;

/** The fields of a draft that say where it goes: a choice sets them all. */
export interface Destined {
  readonly destination: Choice["destination"];
  readonly destination_chat_id: string;
  readonly destination_thread_id: number | null;
  readonly audience: Choice["audience"];
  readonly channel_audience: Choice["channel_audience"];
}

/** The draft's destination fields for `choice`. */
export function destinationOf(choice: Choice): Destined {
  return {
    destination: choice.destination,
    destination_chat_id: choice.destination_chat_id,
    destination_thread_id: choice.destination_thread_id,
    audience: choice.audience,
    channel_audience: choice.channel_audience,
  };
}

/** The delivery a draft's status and record say, once a destination is chosen or it was sent; empty before. */
export function deliveriesOf(d: {
  readonly choices: readonly Choice[] | null;
  readonly chosen: number | null;
  readonly status: string;
  readonly sent_ref: Delivery["sent_ref"];
  readonly reason: string | null;
}): Delivery[] {
  // Awaiting a decision (again, after an undo), nothing is chosen: no delivery.
  if (d.choices === null || d.chosen === null || ["queued", "pending", "deferred"].includes(d.status)) return [];
  return [{ index: d.chosen, status: d.status, sent_ref: d.sent_ref, reason: d.reason }];
}

/** What `withChoice` needs of a draft: its choices and where it goes now. */
type Choosing<D> = D & Destined & { readonly choices: readonly Choice[] | null; readonly chosen: number | null };

/**
 * The draft as it would go to choice `index`: its destination fields those of
 * the choice, `chosen` set. Null when there is no such choice (a number out of
 * range, or a draft with one destination).
 */
export function withChoice<D>(d: Choosing<D>, index: number): Choosing<D> | null {
  const choice = d.choices?.find((c) => c.index === index);
  return choice === undefined ? null : { ...d, ...destinationOf(choice), chosen: index };
}

/**
 * The destination a plain 👍 (a reaction, a reply 👍) sends to: the one a
 * halted approval had picked, so that approving again resumes that send; else
 * the first, the role's recommendation. The post says which.
 */
export function thumbsUpChoice(d: { readonly status: string; readonly chosen: number | null }): number {
  return d.status === "halted" && d.chosen !== null ? d.chosen : 1;
}
