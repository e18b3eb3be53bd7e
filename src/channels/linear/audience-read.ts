/**
 * Reads what a Linear comment's audience rests on in one GraphQL request
 * (the SDK's lazy models would make one per relation): the viewer, the
 * issue with its team, the team's members, the issue's subscribers and
 * where it is synced, and the comment it answers. A team of more than 250
 * members (Linear's largest page) takes one more request per 250; the
 * subscribers are read up to 250, and the post says when there are more.
 */
import type { LinearClient } from "@linear/sdk";

/** A person as the audience names them. */
export interface LinearPerson {
  readonly id: string;
  readonly name: string;
  readonly displayName: string;
}

/** Where an issue or a comment thread is synced outside Linear. */
export interface LinearSync {
  readonly service: string;
  readonly id: string;
  /** The service's own name for it: "#eng-alerts", "acme/web#12", "PROJ-7"; null when unknown. */
  readonly label: string | null;
}

/** Everything the audience lines and fingerprint are made from. */
export interface LinearAudienceFacts {
  readonly viewer: LinearPerson;
  readonly issue: { readonly id: string; readonly identifier: string; readonly title: string };
  readonly team: { readonly id: string; readonly name: string; readonly key: string; readonly visibility: string };
  /** Every member of the team (all pages); null when more pages than we read. */
  readonly members: readonly LinearPerson[] | null;
  readonly subscribers: readonly LinearPerson[];
  /** False when the issue has more than the 250 subscribers read. */
  readonly allSubscribers: boolean;
  readonly synced: readonly LinearSync[];
  readonly parent: {
    readonly id: string;
    readonly issueId: string | null;
    readonly body: string;
    readonly author: string | null;
    readonly synced: readonly LinearSync[];
  } | null;
}

const SYNC_FIELDS = `id service metadata { __typename
  ... on ExternalEntitySlackMetadata { channelName }
  ... on ExternalEntityInfoGithubMetadata { owner repo number }
  ... on ExternalEntityInfoJiraMetadata { issueKey } }`;
const PERSON = "id name displayName";

/** The one query: `comment` only when the destination answers a comment. */
export const AUDIENCE_QUERY = `query LinearAudience($issue: String!, $parent: String, $withParent: Boolean!) {
  viewer { ${PERSON} }
  issue(id: $issue) {
    id identifier title
    team { id name key visibility members(first: 250) { nodes { ${PERSON} } pageInfo { hasNextPage endCursor } } }
    subscribers(first: 250) { nodes { ${PERSON} } pageInfo { hasNextPage } }
    syncedWith { ${SYNC_FIELDS} }
  }
  comment(id: $parent) @include(if: $withParent) { id body issueId user { name } syncedWith { ${SYNC_FIELDS} } }
}`;

/** The next page of a large team's members. */
export const MEMBERS_QUERY = `query LinearTeamMembers($team: String!, $after: String) {
  team(id: $team) { members(first: 250, after: $after) { nodes { ${PERSON} } pageInfo { hasNextPage endCursor } } }
}`;

/** At most this many extra pages of members are read (250 each); beyond, the count is unknown. */
const MAX_MEMBER_PAGES = 40;

type Page = { nodes: LinearPerson[]; pageInfo: { hasNextPage: boolean; endCursor: string | null } };
type RawSync = { id: string; service: string; metadata: Record<string, unknown> | null };
type AudienceData = {
  viewer: LinearPerson;
  issue: {
    id: string;
    identifier: string;
    title: string;
    team: { id: string; name: string; key: string; visibility: string; members: Page };
    subscribers: { nodes: LinearPerson[]; pageInfo: { hasNextPage: boolean } };
    syncedWith: RawSync[] | null;
  };
  comment?: { id: string; body: string; issueId: string | null; user: { name: string } | null; syncedWith: RawSync[] | null };
};

/** A sync's label in the service's own terms. */
function syncLabel(s: RawSync): LinearSync {
  const m = s.metadata ?? {};
  const label =
    s.service === "slack"
      ? typeof m.channelName === "string"
        ? `#${m.channelName}`
        : null
      : s.service === "github" && typeof m.owner === "string" && typeof m.repo === "string"
        ? `${m.owner}/${m.repo}${typeof m.number === "number" ? `#${m.number}` : ""}`
        : s.service === "jira" && typeof m.issueKey === "string"
          ? m.issueKey
          : null;
  return { service: s.service, id: s.id, label };
}

/** Follows the team's member pages past the first; null when there are more than we read. */
async function allMembers(client: () => LinearClient, teamId: string, first: Page): Promise<LinearPerson[] | null> {
  const members = [...first.nodes];
  let page = first.pageInfo;
  for (let n = 0; page.hasNextPage; n += 1) {
    if (n >= MAX_MEMBER_PAGES) return null;
    const next = await client().client.rawRequest<{ team: { members: Page } }, Record<string, unknown>>(MEMBERS_QUERY, {
      team: teamId,
      after: page.endCursor,
    });
    const got = next.data?.team.members;
    if (got === undefined) return null;
    members.push(...got.nodes);
    page = got.pageInfo;
  }
  return members;
}

/** Reads the facts; throws what the SDK throws (the caller classifies it). */
export async function readAudienceFacts(client: () => LinearClient, issue: string, parentId: string | null): Promise<LinearAudienceFacts> {
  const answer = await client().client.rawRequest<AudienceData, Record<string, unknown>>(AUDIENCE_QUERY, {
    issue,
    parent: parentId,
    withParent: parentId !== null,
  });
  const data = answer.data as AudienceData;
  const i = data.issue;
  const parent = data.comment;
  return {
    viewer: data.viewer,
    issue: { id: i.id, identifier: i.identifier, title: i.title },
    team: { id: i.team.id, name: i.team.name, key: i.team.key, visibility: i.team.visibility },
    members: await allMembers(client, i.team.id, i.team.members),
    subscribers: i.subscribers.nodes,
    allSubscribers: !i.subscribers.pageInfo.hasNextPage,
    synced: (i.syncedWith ?? []).map(syncLabel),
    parent:
      parent === undefined
        ? null
        : {
            id: parent.id,
            issueId: parent.issueId,
            body: parent.body,
            author: parent.user?.name ?? null,
            synced: (parent.syncedWith ?? []).map(syncLabel),
          },
  };
}
