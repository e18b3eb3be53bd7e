import { z } from "zod";
import { errCode, readNoFollow, writeFileDurably } from "../store/fs-util.js";

/** At most this many ignored connections are remembered (the oldest go first). */
export const IGNORED_MAX = 20;

const ignoredSchema = z.object({
  /** The connection's id, as Telegram gave it. */
  id: z.string().min(1),
  user_id: z.number().int(),
  /** The account's name and @username, as Telegram gave them: the review chat was told these. */
  name: z.string(),
  username: z.string().nullable(),
  /** False once the account removed or paused the connection. */
  enabled: z.boolean(),
  /** When the review chat was told of it (ISO-8601 UTC); null: not yet. */
  told_at: z.string().nullable(),
  /** When Telegram last told of it (ISO-8601 UTC). */
  seen_at: z.string(),
});
/** A business connection the daemon ignores (not the owner's), as it remembers it. */
export type IgnoredConnection = z.infer<typeof ignoredSchema>;

const fileSchema = z.object({ version: z.literal(1), connections: z.array(ignoredSchema).max(IGNORED_MAX) });

/**
 * The Telegram Business connections of other accounts than the owner's, which
 * the daemon ignores: remembered so the review chat is told of each once (not
 * at every update or restart), and so a post can say whose connection is
 * there instead of the owner's. One small HARNESS_DIR file written whole,
 * atomically and fsync'd; unreadable counts as empty (the worst case is one
 * more notice). Nothing here ever lets a connection send.
 */
export class IgnoredConnections {
  private connections: IgnoredConnection[] = [];

  private constructor(private readonly path: string | null) {}

  /** Reads the file (absent or unreadable: none). `path` null: kept in memory only (test mode). */
  static async open(path: string | null, log: { warn(obj: object, msg: string): void }): Promise<IgnoredConnections> {
    const store = new IgnoredConnections(path);
    if (path === null) return store;
    try {
      store.connections = fileSchema.parse(JSON.parse(await readNoFollow(path))).connections;
    } catch (err) {
      if (errCode(err) !== "ENOENT") log.warn({ err, path }, "the list of ignored business connections is unreadable; starting it afresh");
    }
    return store;
  }

  /** The connection with this id, if remembered. */
  get(id: string): IgnoredConnection | undefined {
    return this.connections.find((c) => c.id === id);
  }

  /** The most recently seen enabled connection of this account (one ignored before OWNER_USER_ID named it); null: none. */
  enabledOf(userId: number): IgnoredConnection | null {
    return this.connections.filter((c) => c.enabled && c.user_id === userId).at(-1) ?? null;
  }

  /** The most recently seen connection that is still enabled (whose account is connected instead of the owner's); null: none. */
  latestEnabled(): IgnoredConnection | null {
    return this.connections.filter((c) => c.enabled).at(-1) ?? null;
  }

  /** Remembers what Telegram said of a connection now (keeping when it was told), durably. */
  async note(c: Omit<IgnoredConnection, "told_at">): Promise<IgnoredConnection> {
    const known = this.get(c.id);
    const next = { ...c, told_at: known?.told_at ?? null };
    await this.write([...this.connections.filter((x) => x.id !== c.id), next].slice(-IGNORED_MAX));
    return next;
  }

  /** Records that the review chat was told of this connection, durably. */
  async told(id: string, at: string): Promise<void> {
    await this.write(this.connections.map((c) => (c.id === id ? { ...c, told_at: at } : c)));
  }

  private async write(connections: IgnoredConnection[]): Promise<void> {
    if (this.path !== null) {
      await writeFileDurably(this.path, `${JSON.stringify({ version: 1, connections })}\n`, { mode: 0o600 });
    }
    this.connections = connections;
  }
}

/** "Bob Reviewer (@bob, user 2002)": an account named for the review chat, with the id OWNER_USER_ID takes. */
export function accountWithId(a: { readonly name?: string; readonly username?: string | null; readonly user_id: number }): string {
  if (a.name === undefined) return `user ${a.user_id}`;
  return `${a.name} (${a.username ? `@${a.username}, ` : ""}user ${a.user_id})`;
}

/**
 * What the review chat is told, once, of another account's connection: whose
 * it is, that nothing is sent from it, who the owner is, and (for a
 * reviewer) how to make that account the owner instead.
 */
export function ignoredNotice(
  c: IgnoredConnection,
  owner: { readonly name?: string; readonly username?: string | null; readonly user_id: number },
  isReviewer: boolean,
): string {
  const who = accountWithId(c);
  if (!isReviewer) {
    return `⚠️ Telegram Business: ${who}, who is not a reviewer, connected this bot to their account. Ignored: nothing is ever sent from that account; drafts speak only as the owner (${accountWithId(owner)}).`;
  }
  return (
    `⚠️ Telegram Business: ${who} connected this bot to their account. Ignored: drafts speak only as the owner (${accountWithId(owner)}; OWNER_USER_ID), ` +
    `and nothing is sent from ${c.name}'s account. To make ${c.name} the owner instead, set OWNER_USER_ID=${c.user_id} and restart.`
  );
}
