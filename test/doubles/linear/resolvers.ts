/**
 * The root resolvers of the Linear double: what each query and mutation the
 * channel uses answers from the workspace. Objects are views of the seeded
 * data with the fields the schema names; a field a view lacks is filled by
 * `execute.ts` with an empty value of its type, so the SDK's large fragments
 * (every field of Comment, of User) execute against the real schema.
 */
import { randomUUID } from "node:crypto";
import { invalidInputError, notFoundError } from "./answers.js";
import type { CommentSeed, IssueSeed, SyncSeed, TeamSeed, UserSeed, Workspace } from "./workspace.js";

type Args = Record<string, unknown>;
type View = Record<string, unknown>;

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
/** Linear's largest page (`first` above it is refused). */
const MAX_PAGE = 250;

/** A connection (nodes, edges, pageInfo) over `items`, paged by `first` and `after` as Linear pages. */
function connection(items: readonly View[], args: Args): View {
  const first = typeof args.first === "number" ? args.first : 50;
  if (first > MAX_PAGE) throw invalidInputError("first must be at most 250", "Page size too large.");
  const start = typeof args.after === "string" ? Number(args.after) + 1 : 0;
  const page = items.slice(start, start + first);
  const cursor = (i: number) => String(start + i);
  return {
    nodes: page,
    edges: page.map((node, i) => ({ node, cursor: cursor(i) })),
    pageInfo: {
      hasNextPage: start + first < items.length,
      hasPreviousPage: start > 0,
      startCursor: page.length > 0 ? cursor(0) : null,
      endCursor: page.length > 0 ? cursor(page.length - 1) : null,
    },
  };
}

/** The views of one workspace. */
class Views {
  constructor(private readonly w: Workspace) {}

  user(u: UserSeed): View {
    return { __typename: "User", ...u, url: this.w.profileUrl(u), isMe: u.id === this.w.viewerId, organization: () => this.org() };
  }

  org(): View {
    return { __typename: "Organization", ...this.w.organization };
  }

  users(ids: readonly string[]): View[] {
    return ids.flatMap((id) => {
      const u = this.w.users.get(id);
      return u === undefined || !u.active ? [] : [this.user(u)];
    });
  }

  team(t: TeamSeed): View {
    return {
      __typename: "Team",
      ...t,
      private: t.visibility === "private",
      members: (args: Args) => connection(this.users(t.memberIds), args),
    };
  }

  sync(s: SyncSeed): View {
    const metadata =
      s.service === "slack"
        ? { __typename: "ExternalEntitySlackMetadata", channelName: s.channelName, channelId: null, isFromSlack: false }
        : s.service === "github"
          ? { __typename: "ExternalEntityInfoGithubMetadata", owner: s.owner, repo: s.repo, number: s.number }
          : { __typename: "ExternalEntityInfoJiraMetadata", issueKey: s.issueKey, issueTypeId: null, projectId: null };
    return { __typename: "ExternalEntityInfo", id: s.id, service: s.service, metadata };
  }

  issue(i: IssueSeed): View {
    const team = this.w.teams.get(i.teamId);
    return {
      __typename: "Issue",
      id: i.id,
      number: i.number,
      title: i.title,
      identifier: this.w.identifier(i),
      url: this.w.issueUrl(i),
      team: () => (team === undefined ? null : this.team(team)),
      subscribers: (args: Args) => connection(this.users(i.subscriberIds), args),
      syncedWith: i.syncedWith.map((s) => this.sync(s)),
    };
  }

  comment(c: CommentSeed): View {
    const author = this.w.users.get(c.userId);
    const parent = c.parentId === null ? undefined : this.w.comments.get(c.parentId);
    const issue = this.w.issues.get(c.issueId);
    return {
      __typename: "Comment",
      ...c,
      updatedAt: c.createdAt,
      url: this.w.commentUrl(c),
      user: () => (author === undefined ? null : this.user(author)),
      parent: () => (parent === undefined ? null : this.comment(parent)),
      issue: () => (issue === undefined ? null : this.issue(issue)),
    };
  }
}

/** What `commentCreate` refuses, as Linear would: no issue, a parent elsewhere, a taken or malformed id, no body. */
function checkCommentInput(w: Workspace, input: Args): { issue: IssueSeed; id: string } {
  const issue = typeof input.issueId === "string" ? w.findIssue(input.issueId) : undefined;
  if (issue === undefined) throw notFoundError("Issue");
  if (typeof input.parentId === "string" && w.comments.get(input.parentId)?.issueId !== issue.id) throw notFoundError("Comment");
  if (typeof input.body !== "string" || input.body.trim() === "")
    throw invalidInputError("body must not be empty", "The comment is empty.");
  const id = typeof input.id === "string" ? input.id : randomUUID();
  if (!UUID_V4.test(id)) throw invalidInputError("id must be a UUID v4", "Invalid id.");
  if (w.comments.has(id)) throw invalidInputError("Duplicate id", "A comment with this id already exists.");
  return { issue, id };
}

/** The root value for `execute`: Query and Mutation fields the double serves. */
export function rootResolvers(w: Workspace): View {
  const views = new Views(w);
  let syncId = 1000;
  const viewer = () => {
    const me = w.viewerId === null ? undefined : w.users.get(w.viewerId);
    if (me === undefined) throw notFoundError("User");
    return me;
  };
  return {
    viewer: () => views.user(viewer()),
    organization: () => views.org(),
    team: (args: Args) => {
      const team = w.teams.get(String(args.id)) ?? [...w.teams.values()].find((t) => t.key === args.id);
      if (team === undefined) throw notFoundError("Team");
      return views.team(team);
    },
    issue: (args: Args) => {
      const issue = w.findIssue(String(args.id));
      if (issue === undefined) throw notFoundError("Issue");
      return views.issue(issue);
    },
    comment: (args: Args) => {
      const c = typeof args.id === "string" ? w.comments.get(args.id) : undefined;
      if (c === undefined) throw notFoundError("Comment");
      return views.comment(c);
    },
    commentCreate: (args: Args) => {
      const input = (args.input ?? {}) as Args;
      const { issue, id } = checkCommentInput(w, input);
      const me = viewer();
      const parentId = typeof input.parentId === "string" ? input.parentId : null;
      const created: CommentSeed = {
        id,
        issueId: issue.id,
        parentId,
        body: String(input.body),
        userId: me.id,
        createdAt: new Date().toISOString(),
      };
      w.comments.set(id, created);
      // Commenting subscribes the author to the issue, as in Linear.
      if (!issue.subscriberIds.includes(me.id)) issue.subscriberIds.push(me.id);
      syncId += 1;
      return { __typename: "CommentPayload", success: true, lastSyncId: syncId, comment: views.comment(created) };
    },
  };
}
