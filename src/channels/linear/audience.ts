/**
 * Who reads and who is told of a Linear comment, as the review post shows it
 * (contract v5): the issue, its team and whether the team is private, the
 * people the comment notifies (the issue's subscribers other than the
 * daemon's own user, and the people @-mentioned), where the issue is synced
 * (the comment leaves Linear too), the comment it answers, and as whom. The
 * reader count is the team's member count.
 */
import { createHash } from "node:crypto";
import type { ChannelAudience } from "../channel.js";
import type { LinearAudienceFacts, LinearPerson, LinearSync } from "./audience-read.js";
import { type LinearDestination, linearIssueLabel } from "./destination.js";
import { findMentions } from "./mentions.js";

/** The confirm reason when Linear could not tell who will read the comment. */
export const AUDIENCE_UNREADABLE = "the audience could not be read";

/** At most this many names on the "notifies" line; the rest are counted. */
const MAX_NAMES = 10;
/** The answered comment is quoted up to this many characters, on one line. */
const QUOTE_CHARS = 200;

const SERVICE_NAMES: Readonly<Record<string, string>> = { slack: "Slack", github: "GitHub", jira: "Jira" };

const VISIBILITY_WORDS: Readonly<Record<string, string>> = {
  public: "visible to the workspace",
  private: "private",
  restricted: "visible to a private team's members",
};

function clip(text: string, chars: number): string {
  const one = text.replace(/\s+/g, " ").trim();
  return one.length > chars ? `${one.slice(0, chars - 1)}…` : one;
}

/** A canonical fingerprint: sha256 of JSON with sorted keys. */
export function fingerprintOf(value: Record<string, unknown>): string {
  const sorted = JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1)))
      : v,
  );
  return createHash("sha256").update(sorted).digest("hex");
}

/** The people the comment notifies, and the mentions no team member or subscriber answers to. */
function notified(facts: LinearAudienceFacts, text: string): { people: LinearPerson[]; unresolved: string[] } {
  const known = new Map<string, LinearPerson>();
  for (const p of [...facts.subscribers, ...(facts.members ?? [])]) known.set(p.id, p);
  const byHandle = new Map([...known.values()].map((p) => [p.displayName.toLowerCase(), p]));
  const people = new Map<string, LinearPerson>(facts.subscribers.map((p) => [p.id, p]));
  const unresolved: string[] = [];
  for (const m of findMentions(text)) {
    const p = byHandle.get(m.handle.toLowerCase());
    if (p === undefined) unresolved.push(m.written);
    else people.set(p.id, p);
  }
  people.delete(facts.viewer.id);
  return { people: [...people.values()], unresolved };
}

function notifiesLine(people: readonly LinearPerson[], unresolved: readonly string[], facts: LinearAudienceFacts): string {
  const names = [...people.map((p) => p.name), ...unresolved.map((u) => `${u} (not in team ${facts.team.key})`)];
  const uncounted = facts.allSubscribers ? "" : " (over 250 subscribers: not all named)";
  if (names.length === 0) return `notifies: nobody${uncounted}`;
  const shown = names.slice(0, MAX_NAMES).join(", ");
  return `notifies: ${shown}${names.length > MAX_NAMES ? ` +${names.length - MAX_NAMES} more` : ""}${uncounted}`;
}

function syncedLine(synced: readonly LinearSync[]): string | null {
  if (synced.length === 0) return null;
  const where = synced.map((s) => [SERVICE_NAMES[s.service] ?? s.service, s.label].filter((x) => x !== null).join(" "));
  return `synced to ${[...new Set(where)].join(", ")}: the comment leaves Linear too`;
}

/** The audience of a destination whose facts were read. `confirmOver`: AUDIENCE_CONFIRM_OVER (null: never). */
export function linearAudience(facts: LinearAudienceFacts, text: string, confirmOver: number | null, checkedAt: string): ChannelAudience {
  const { people, unresolved } = notified(facts, text);
  const readerCount = facts.members?.length ?? null;
  const synced = [...facts.synced, ...(facts.parent?.synced ?? [])];
  const team = facts.team;
  const visibility = VISIBILITY_WORDS[team.visibility] ?? team.visibility;
  const lines = [
    `Linear ${facts.issue.identifier} · ${clip(facts.issue.title, 80)}`,
    `team ${team.name} (${visibility}) · ${readerCount === null ? "members not counted" : `${readerCount} members`}`,
    notifiesLine(people, unresolved, facts),
    syncedLine(synced),
    facts.parent === null
      ? null
      : `answers${facts.parent.author === null ? "" : ` ${facts.parent.author}`}: “${clip(facts.parent.body, QUOTE_CHARS)}”`,
    `as ${facts.viewer.name}`,
  ].filter((l): l is string => l !== null);
  const confirmReasons: string[] = [];
  if (readerCount === null) confirmReasons.push(AUDIENCE_UNREADABLE);
  else if (confirmOver !== null && readerCount > confirmOver) {
    confirmReasons.push(`the team has ${readerCount} members, more than AUDIENCE_CONFIRM_OVER (${confirmOver})`);
  }
  const fingerprint = fingerprintOf({
    channel: "linear",
    issue: facts.issue.id,
    team: team.id,
    visibility: team.visibility,
    // The team's member count binds by the growth rule at the send (readerGrowth), not exactly: whether it is known binds here.
    readers: readerCount === null ? null : "counted",
    notifies: people.map((p) => p.id).sort(),
    unresolved: [...unresolved].sort(),
    allSubscribers: facts.allSubscribers,
    synced: synced.map((s) => `${s.service}:${s.id}`).sort(),
    parent: facts.parent?.id ?? null,
    as: facts.viewer.id,
  });
  return { channel: "linear", readerCount, lines, confirmReasons, problem: null, fingerprint, checkedAt };
}

/** The audience when the destination cannot be reached (not found, no access): the post says why. */
export function unreachableAudience(d: LinearDestination, problem: string, checkedAt: string): ChannelAudience {
  const fingerprint = fingerprintOf({ channel: "linear", issue: d.issue, parent: d.parent_comment_id, problem });
  return {
    channel: "linear",
    readerCount: null,
    lines: [`Linear ${linearIssueLabel(d.issue)}`, problem],
    confirmReasons: [],
    problem,
    fingerprint,
    checkedAt,
  };
}

/** The audience when Linear could not be read (down, rate limited, key refused): a 👍 needs the extra tap. */
export function unreadAudience(d: LinearDestination, why: string, checkedAt: string): ChannelAudience {
  const fingerprint = fingerprintOf({ channel: "linear", issue: d.issue, parent: d.parent_comment_id, unread: true });
  return {
    channel: "linear",
    readerCount: null,
    lines: [`Linear ${linearIssueLabel(d.issue)}`, `could not read who will see it: ${why}`],
    confirmReasons: [AUDIENCE_UNREADABLE],
    problem: null,
    fingerprint,
    checkedAt,
  };
}
