import type { ChannelSet } from "../channels/channel-set.js";
import type { StoredDestination } from "../drafts/destination.js";
import type { DraftEvent } from "../drafts/events.js";
import type { Actor, DraftRecord } from "../drafts/record.js";
import { mayBeLong, prepareDraftText, type PreparedText, type Redactor } from "./draft-text.js";

/**
 * A draft's next text version, as a reviewer makes it (an ✏️ edit, or "🔓 Keep
 * the removed items"): the `edit` event bound to the text version the post
 * showed, with who the new text reaches on Linear, email and Slack read again.
 * Kept apart from reviewer-actions.ts, which decides whether an action counts.
 */

/** An ✏️ edit as the desk applies it. */
export type EditEvent = Extract<DraftEvent, { type: "edit" }>;

/** The `edit` event of `prepared` on `draft`, for the text version its message showed. */
export async function textVersionEvent(
  draft: DraftRecord,
  shownVersion: number | null,
  actor: Actor,
  prepared: Extract<PreparedText, { ok: true }>,
  restored: boolean,
  reach: { readonly channels?: ChannelSet | null | undefined; readonly now: () => number },
): Promise<EditEvent> {
  return {
    type: "edit",
    text: prepared.text,
    textSha256: prepared.textSha256,
    redaction: prepared.redaction,
    actor,
    textVersion: shownVersion ?? draft.text_version,
    ...(restored ? { restored: true } : {}),
    ...(await channelAudiencesFor(draft, prepared.text, reach)),
  };
}

/**
 * Who the new text reaches on Linear, email and Slack, read again as at intake: a mention or an
 * @channel the edit added notifies others, and the new post must show it (the approval binds it).
 */
async function channelAudiencesFor(
  draft: DraftRecord,
  text: string,
  reach: { readonly channels?: ChannelSet | null | undefined; readonly now: () => number },
): Promise<Pick<EditEvent, "channelAudience" | "choiceAudiences">> {
  const { channels, now } = reach;
  if (!channels) return {};
  const read = (d: StoredDestination) => channels.readAudience(d, text, now);
  if (draft.choices !== null) {
    const choiceAudiences = [];
    for (const c of draft.choices)
      if (c.destination !== null) choiceAudiences.push({ index: c.index, channel_audience: await read(c.destination) });
    return { choiceAudiences };
  }
  return draft.destination === null ? {} : { channelAudience: await read(draft.destination) };
}

/** True when `original`, redacted as intake redacts, is exactly the draft's text (the post's); true when no redactor is known. */
export function redactsToShown(original: string, draft: DraftRecord, redact: Redactor | null | undefined): boolean {
  if (!redact) return true;
  const prepared = prepareDraftText(original, redact, mayBeLong(draft));
  return prepared.ok && prepared.text === draft.draft_text;
}
