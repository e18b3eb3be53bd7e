import { createHash } from "node:crypto";
import type { ChannelAudienceRecord, StoredDestination } from "../drafts/destination.js";

/**
 * The audience test mode shows for a destination on another channel: made up
 * from the destination itself (contract v5: test mode works offline), never
 * read from the service. It needs no extra tap; the post says it was not read.
 */
export function offlineChannelAudience(d: StoredDestination, now: number): ChannelAudienceRecord {
  const lines = [...offlineLines(d), "🧪 test mode: not read from the service"];
  const readers = d.channel === "email" ? recipients(d).length : null;
  return {
    channel: d.channel,
    reader_count: readers,
    lines,
    confirm_reasons: [],
    problem: null,
    fingerprint: createHash("sha256").update(JSON.stringify(d)).digest("hex").slice(0, 16),
    checked_at: new Date(now).toISOString(),
  };
}

function recipients(d: StoredDestination): string[] {
  const list = (k: string) => (Array.isArray(d[k]) ? (d[k] as unknown[]).map(String) : []);
  return [...list("to"), ...list("cc"), ...list("bcc")];
}

function offlineLines(d: StoredDestination): string[] {
  switch (d.channel) {
    case "linear":
      return [
        `Linear comment on ${String(d.issue)}${d.parent_comment_id ? ` (in the thread of comment ${String(d.parent_comment_id)})` : ""}`,
      ];
    case "slack":
      return [`Slack conversation ${String(d.channel_id)}${d.thread_ts ? ` (in the thread ${String(d.thread_ts)})` : ""}`];
    case "email": {
      const label = (k: string) => (Array.isArray(d[k]) ? (d[k] as unknown[]).map((a) => `${k}: ${String(a)}`) : []);
      return [`Email “${String(d.subject)}”`, ...label("to"), ...label("cc"), ...label("bcc")];
    }
  }
}
