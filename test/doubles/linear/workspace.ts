/**
 * The Linear double's data: one workspace (organization) with users, teams,
 * issues and comments, seeded by the test and changed by `commentCreate`.
 * Plain objects; `resolvers.ts` turns them into what the GraphQL schema asks.
 */
import { randomUUID } from "node:crypto";

/** A Linear user. `displayName` is the @handle mentions and profile URLs use. */
export interface UserSeed {
  readonly id: string;
  readonly name: string;
  readonly displayName: string;
  readonly email: string;
  readonly active: boolean;
}

/** A team: its key prefixes issue identifiers; `visibility` as Team.visibility says it. */
export interface TeamSeed {
  readonly id: string;
  readonly key: string;
  readonly name: string;
  visibility: "public" | "private" | "restricted";
  memberIds: string[];
}

/** Where an issue is synced outside Linear (Issue.syncedWith), with the service's metadata. */
export type SyncSeed =
  | { readonly service: "slack"; readonly id: string; readonly channelName: string | null }
  | { readonly service: "github"; readonly id: string; readonly owner: string; readonly repo: string; readonly number: number }
  | { readonly service: "jira"; readonly id: string; readonly issueKey: string };

/** An issue; its identifier is `<team key>-<number>`. */
export interface IssueSeed {
  readonly id: string;
  teamId: string;
  readonly number: number;
  title: string;
  subscriberIds: string[];
  syncedWith: SyncSeed[];
}

/** A comment, seeded or created by `commentCreate` (then exactly as the client sent it). */
export interface CommentSeed {
  readonly id: string;
  readonly issueId: string;
  readonly parentId: string | null;
  readonly body: string;
  readonly userId: string;
  readonly createdAt: string;
}

/** The whole workspace the double serves; tests change it directly. */
export class Workspace {
  organization = { id: randomUUID(), name: "Acme", urlKey: "acme" };
  readonly users = new Map<string, UserSeed>();
  readonly teams = new Map<string, TeamSeed>();
  readonly issues = new Map<string, IssueSeed>();
  readonly comments = new Map<string, CommentSeed>();
  /** The user the API key belongs to (Query.viewer); set by `addUser(…, { viewer: true })`. */
  viewerId: string | null = null;

  /** Adds a user; `viewer: true` makes it the key's owner. */
  addUser(user: Partial<UserSeed> & { readonly name: string }, opts: { viewer?: boolean } = {}): UserSeed {
    const handle = user.name.split(" ")[0]?.toLowerCase() ?? "user";
    const seeded: UserSeed = {
      id: randomUUID(),
      displayName: handle,
      email: `${handle}@example.org`,
      active: true,
      ...user,
    };
    this.users.set(seeded.id, seeded);
    if (opts.viewer === true) this.viewerId = seeded.id;
    return seeded;
  }

  /** Adds a team with these members (users added before). */
  addTeam(team: { key: string; name: string; visibility?: TeamSeed["visibility"]; members?: readonly UserSeed[] }): TeamSeed {
    const seeded: TeamSeed = {
      id: randomUUID(),
      key: team.key,
      name: team.name,
      visibility: team.visibility ?? "public",
      memberIds: (team.members ?? []).map((u) => u.id),
    };
    this.teams.set(seeded.id, seeded);
    return seeded;
  }

  /** Adds an issue to a team; its number is the team's next. */
  addIssue(team: TeamSeed, issue: { title: string; subscribers?: readonly UserSeed[]; syncedWith?: SyncSeed[] }): IssueSeed {
    const number = [...this.issues.values()].filter((i) => i.teamId === team.id).length + 1;
    const seeded: IssueSeed = {
      id: randomUUID(),
      teamId: team.id,
      number,
      title: issue.title,
      subscriberIds: (issue.subscribers ?? []).map((u) => u.id),
      syncedWith: issue.syncedWith ?? [],
    };
    this.issues.set(seeded.id, seeded);
    return seeded;
  }

  /** Adds a comment written by `author` (the parent of a reply, in tests). */
  addComment(issue: IssueSeed, author: UserSeed, body: string, parentId: string | null = null): CommentSeed {
    const seeded: CommentSeed = {
      id: randomUUID(),
      issueId: issue.id,
      parentId,
      body,
      userId: author.id,
      createdAt: new Date().toISOString(),
    };
    this.comments.set(seeded.id, seeded);
    return seeded;
  }

  /** The issue's identifier, e.g. ENG-7. */
  identifier(issue: IssueSeed): string {
    return `${this.teams.get(issue.teamId)?.key ?? "?"}-${issue.number}`;
  }

  /** An issue by UUID or identifier (Linear's `issue(id:)` takes either). */
  findIssue(idOrIdentifier: string): IssueSeed | undefined {
    const byId = this.issues.get(idOrIdentifier);
    if (byId !== undefined) return byId;
    return [...this.issues.values()].find((i) => this.identifier(i) === idOrIdentifier.toUpperCase());
  }

  /** The issue's web address as Linear forms it. */
  issueUrl(issue: IssueSeed): string {
    const slug = issue.title
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-|-$/g, "");
    return `https://linear.app/${this.organization.urlKey}/issue/${this.identifier(issue)}/${slug}`;
  }

  /** The comment's web address: the issue's, with the comment's anchor. */
  commentUrl(comment: CommentSeed): string {
    const issue = this.issues.get(comment.issueId);
    return `${issue === undefined ? "" : this.issueUrl(issue)}#comment-${comment.id.slice(0, 8)}`;
  }

  /** A user's profile address, the form a mention takes in Markdown. */
  profileUrl(user: UserSeed): string {
    return `https://linear.app/${this.organization.urlKey}/profiles/${user.displayName}`;
  }
}
