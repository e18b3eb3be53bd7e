import { audienceUnknown, isPublic, type Audience } from "../drafts/audience.js";
import type { DraftRecord } from "../drafts/record.js";
import type { ChannelAudienceRecord, StoredDestination } from "../drafts/destination.js";
import { describeDestination } from "../channels/describe.js";

/** `text` on one line, cut to `max` characters with an ellipsis. */
function cutTo(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}

function capital(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** `1,234`. */
export function count(n: number): string {
  return n.toLocaleString("en-US");
}

const KIND_WORD: Record<Audience["kind"], string> = {
  private: "private chat",
  group: "group",
  supergroup: "supergroup",
  channel: "channel",
  unknown: "chat",
};

/** The topic part of a destination (the Bot API gives bots no topic names, only ids). */
function topicText(draft: Pick<DraftRecord, "destination_thread_id">): string {
  return draft.destination_thread_id === null ? "" : ` · forum topic #${draft.destination_thread_id}`;
}

/** What the post says of a group or channel whose member count Telegram did not give. */
export const UNKNOWN_COUNT = "⚠️ audience unknown (Telegram did not give the member count)";

/**
 * Who will read the draft, on one line: a person's name; or a group's or
 * channel's title, @username, kind and member count, ⚠️ when it is public,
 * ⚠️ audience unknown without the count; or the bare chat id when it could
 * not be resolved, with why.
 */
export function audienceLine(
  draft: Pick<DraftRecord, "destination_chat_id" | "destination_thread_id" | "audience"> &
    Partial<Pick<DraftRecord, "channel_audience" | "destination">>,
): string {
  if (draft.channel_audience) return channelAudienceText(draft.channel_audience, draft.destination ?? null);
  const a = draft.audience;
  const topic = topicText(draft);
  if (a === null) return `chat ${draft.destination_chat_id}${topic}`;
  if (a.kind === "unknown") {
    const why = a.problem === null ? (a.title ?? "audience unknown") : `⚠️ ${a.problem}`;
    return `chat ${draft.destination_chat_id}${topic} (${why})`;
  }
  if (a.kind === "private") {
    return `👤 ${a.title ?? "a person"}${a.username === null ? "" : ` (@${a.username})`} · private chat${problemText(a)}`;
  }
  const icon = a.kind === "channel" ? "📢" : "👥";
  const parts = [
    `${isPublic(a) ? "⚠️ " : ""}${icon} “${a.title ?? draft.destination_chat_id}”`,
    ...(a.username === null ? [] : [`@${a.username}`]),
    `${isPublic(a) ? "public " : ""}${KIND_WORD[a.kind]}${topic}`,
    a.member_count === null ? UNKNOWN_COUNT : `${count(a.member_count)} member${a.member_count === 1 ? "" : "s"}`,
  ];
  return parts.join(" · ") + problemText(a);
}

/** Channel names as the post says them. */
const CHANNEL_WORD: Record<ChannelAudienceRecord["channel"], string> = { linear: "Linear", email: "email", slack: "Slack" };

/**
 * Who will read a draft on Linear, email or Slack: the channel's own lines
 * (where, as whom, to whom), the readers counted, and ⚠️ why it cannot be
 * reached. The first line follows "for" in the header.
 */
export function channelAudienceText(a: ChannelAudienceRecord, destination: StoredDestination | null = null): string {
  const readers = a.reader_count === null ? "⚠️ audience unknown" : `${count(a.reader_count)} reader${a.reader_count === 1 ? "" : "s"}`;
  const where = destination === null ? `${CHANNEL_WORD[a.channel]}: ${a.lines[0] ?? "(destination)"}` : describeDestination(destination);
  const rest = destination === null ? a.lines.slice(1) : a.lines;
  return [`${where} · ${readers}`, ...rest.map((l) => `  ${l}`), ...(a.problem === null ? [] : [`⚠️ ${a.problem}`])].join("\n");
}

function problemText(a: Audience): string {
  return a.problem === null ? "" : `\n⚠️ ${a.problem}`;
}

/** A short name of the destination for a button: the title or name (cut to fit), else the chat id. */
export function shortDestination(
  draft: Pick<DraftRecord, "destination_chat_id" | "audience"> & Partial<Pick<DraftRecord, "channel_audience" | "destination">>,
  max = 28,
): string {
  if (draft.destination) return cutTo(describeDestination(draft.destination), max);
  if (draft.channel_audience) return cutTo(draft.channel_audience.lines[0] ?? draft.destination_chat_id, max);
  const a = draft.audience;
  const name = a !== null && a.kind !== "unknown" && a.title !== null ? a.title : draft.destination_chat_id;
  const cut = cutTo(name, max);
  return a !== null && isPublic(a) ? `⚠️ ${cut}` : cut;
}

/**
 * The question asked after a 👍 for a large audience: `Send to 1,234 members
 * of “Title” (@name)?`; for an audience Telegram did not tell, that it is not known.
 */
export function confirmQuestion(
  draft: Pick<DraftRecord, "destination_chat_id" | "audience"> & Partial<Pick<DraftRecord, "channel_audience" | "destination">>,
): string {
  const ca = draft.channel_audience;
  if (ca)
    return `Send to ${cutTo(draft.destination ? describeDestination(draft.destination) : (ca.lines[0] ?? draft.destination_chat_id), 60)}? ${capital(ca.confirm_reasons.join("; "))}. Your 👍 counts once you confirm.`;
  const a = draft.audience;
  const where = a?.title && a.kind !== "unknown" ? `“${a.title}”` : draft.destination_chat_id;
  const handle = a?.username ? ` (@${a.username}, public)` : "";
  if (a && audienceUnknown(a)) {
    return `Send to ${where}${handle}? Telegram did not answer, so who will read it is not known. Your 👍 counts once you confirm.`;
  }
  const members = a?.member_count === null || a?.member_count === undefined ? "the members" : `${count(a.member_count)} members`;
  return `Send to ${members} of ${where}${handle}? Your 👍 counts once you confirm.`;
}
