import { unlink } from "node:fs/promises";
import { z } from "zod";
import { errCode, readNoFollow, writeFileDurably } from "../store/fs-util.js";

/**
 * The owner's Telegram Business connection as the daemon keeps it: the one
 * connection (of OWNER_USER_ID's account) through which drafts can go out as the owner.
 */
export const ownerConnectionSchema = z.object({
  id: z.string().min(1),
  /** The connected account's user id: the owner (OWNER_USER_ID). */
  user_id: z.number().int(),
  /** The account's name, for /status and the posts that send as it. */
  user_name: z.string(),
  /** The account's @username (without @); null when it has none (older files: null). */
  user_username: z.string().nullable().default(null),
  /** The right to send and edit messages in chats that had incoming messages in the last 24 h. */
  can_reply: z.boolean(),
  enabled: z.boolean(),
  /** When Telegram says it was connected (ISO-8601 UTC). */
  connected_at: z.string(),
  /** When the daemon last heard of it from Telegram (an update, or getBusinessConnection). */
  checked_at: z.string(),
});
/** The owner's business connection. */
export type OwnerConnection = z.infer<typeof ownerConnectionSchema>;

/**
 * One small file in HARNESS_DIR holding the owner's connection, written
 * whole, atomically and fsync'd (writeFileDurably), removed when the
 * connection is disabled or revoked. A damaged file counts as no connection:
 * the next business_connection update or a reconnect writes it again.
 */
export class ConnectionStore {
  private connection: OwnerConnection | null = null;

  private constructor(private readonly path: string) {}

  /** Reads the file (absent or unreadable: no connection). */
  static async open(path: string, log: { warn(obj: object, msg: string): void }): Promise<ConnectionStore> {
    const store = new ConnectionStore(path);
    try {
      store.connection = ownerConnectionSchema.parse(JSON.parse(await readNoFollow(path)));
    } catch (err) {
      if (errCode(err) !== "ENOENT")
        log.warn({ err, path }, "the saved business connection is unreadable; waiting for Telegram to tell it again");
    }
    return store;
  }

  /** The connection, or null. */
  current(): OwnerConnection | null {
    return this.connection;
  }

  /** Keeps `connection` durably (replacing any other). */
  async save(connection: OwnerConnection): Promise<void> {
    await writeFileDurably(this.path, `${JSON.stringify(connection)}\n`, { mode: 0o600 });
    this.connection = connection;
  }

  /** Holds `connection` in memory only (test mode's assumed connection). */
  assume(connection: OwnerConnection): void {
    this.connection = connection;
  }

  /** Forgets the connection (file removed). */
  async forget(): Promise<void> {
    this.connection = null;
    await unlink(this.path).catch((err: unknown) => {
      if (errCode(err) !== "ENOENT") throw err;
    });
  }
}
