import { unlink } from "node:fs/promises";
import { dirname } from "node:path";
import { z } from "zod";
import type { Update } from "grammy/types";
import { JsonlStore, type StoreLog } from "../store/jsonl-store.js";
import { fsyncDir } from "../store/fs-util.js";

const entrySchema = z.object({
  draft_id: z.string(),
  update_id: z.number().int(),
  update: z.looseObject({ update_id: z.number().int() }),
});
type Entry = z.infer<typeof entrySchema>;

/**
 * Telegram confirms an update as soon as the next getUpdates asks for a later
 * offset, and the runner asks before handlers finish. So every fetched update
 * is written here (fsync'd) before the fetch returns; what a crash left
 * unhandled is handled again at the next start. The file holds one run's
 * updates and is cleared at start once they are handled.
 */
export class UpdateJournal {
  private constructor(
    private store: JsonlStore<Entry>,
    private readonly path: string,
    private readonly log: StoreLog,
  ) {}

  static async open(path: string, log: StoreLog): Promise<UpdateJournal> {
    const store = await JsonlStore.open<Entry>({ path, parse: (v) => entrySchema.parse(v), log, compactAfterLines: 1_000_000 });
    return new UpdateJournal(store, path, log);
  }

  /** The updates of the last run, in order. */
  entries(): Update[] {
    return [...this.store.latest.values()].sort((a, b) => a.update_id - b.update_id).map((e) => e.update as unknown as Update);
  }

  /** Makes `updates` durable; resolves once fsync'd. */
  async record(updates: readonly Update[]): Promise<void> {
    if (updates.length === 0) return;
    await this.store.append(
      updates.map((u) => ({ draft_id: `u${u.update_id}`, update_id: u.update_id, update: u as unknown as Entry["update"] })),
    );
  }

  /** Empties the journal, once its updates have been handled (their decisions are in the audit log). */
  async clear(): Promise<void> {
    await this.store.close();
    await unlink(this.path).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== "ENOENT") throw err;
    });
    await fsyncDir(dirname(this.path));
    this.store = await JsonlStore.open<Entry>({
      path: this.path,
      parse: (v) => entrySchema.parse(v),
      log: this.log,
      compactAfterLines: 1_000_000,
    });
  }

  async close(): Promise<void> {
    await this.store.close();
  }
}
