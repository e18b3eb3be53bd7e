import { lstat, mkdir, readdir, unlink } from "node:fs/promises";
import { dirname, join } from "node:path";
import { z } from "zod";
import { errCode, errMessage, fsyncDir, readFileNoFollow, writeFileDurably } from "./fs-util.js";

/**
 * What redaction removed from a draft, kept aside for "🔓 Keep the removed
 * items" (contract v4): the text as submitted (trimmed, before redaction),
 * bound to the sha256 of the text redaction made of it. Only that text, as
 * the draft still shows it, can be given its items back.
 */
export const keptOriginalSchema = z
  .object({
    draft_id: z.string().min(1),
    /** sha256 (hex) of the redacted text this original became: the draft's `text_sha256` while it is unchanged. */
    redacted_sha256: z.string().regex(/^[0-9a-f]{64}$/),
    /** The text before redaction. */
    text: z.string().min(1),
  })
  .strict();
/** One draft's kept original. */
export type KeptOriginal = z.infer<typeof keptOriginalSchema>;

/** A kept original read back, or why there is none: never kept (or dropped), or a file that does not read back whole. */
export type ReadKept =
  | { readonly ok: true; readonly kept: KeptOriginal }
  | { readonly ok: false; readonly reason: "missing" | "damaged"; readonly detail: string };

/** Draft ids as the daemon makes them (and tests inject): safe as a file name. */
const FILE_ID = /^[A-Za-z0-9_-]{1,100}$/;

/** The largest kept file read back: far above any payload the intake accepts. */
const MAX_FILE_BYTES = 1 << 20;

/**
 * The originals of redacted drafts, one private file per draft in
 * HARNESS_DIR/removed_items/ (directory 0700, files 0600, written through
 * `writeFileDurably`, read back with zod). They never go to the draft store,
 * the audit log (shared with other writers) or the logs. A file is written
 * before the intake answers and dropped once its draft can no longer use it
 * (final, or a new text version); `sweep` drops what a crash left, so the
 * files follow the live drafts.
 */
export class RemovedItemsStore {
  constructor(private readonly dir: string) {}

  /** Keeps a draft's original, durably (fsync'd file and directory) before resolving. */
  async keep(kept: KeptOriginal): Promise<void> {
    const path = this.pathOf(kept.draft_id);
    if (path === null) throw new Error(`draft id ${JSON.stringify(kept.draft_id)} cannot name a file; removed items not kept`);
    await this.ensureDir();
    await writeFileDurably(path, `${JSON.stringify(keptOriginalSchema.parse(kept))}\n`, { mode: 0o600 });
  }

  /** A draft's kept original; a missing, unreadable or malformed file is said so, never thrown. */
  async read(draftId: string): Promise<ReadKept> {
    const path = this.pathOf(draftId);
    if (path === null) return { ok: false, reason: "missing", detail: "not a draft id" };
    let raw: Buffer;
    try {
      raw = await readFileNoFollow(path, MAX_FILE_BYTES);
    } catch (err) {
      if (errCode(err) === "ENOENT") return { ok: false, reason: "missing", detail: `${path} does not exist` };
      return { ok: false, reason: "damaged", detail: `${path}: ${errMessage(err)}` };
    }
    let value: unknown;
    try {
      value = JSON.parse(raw.toString("utf8"));
    } catch (err) {
      return { ok: false, reason: "damaged", detail: `${path} is not JSON (${errMessage(err)})` };
    }
    const parsed = keptOriginalSchema.safeParse(value);
    if (!parsed.success) return { ok: false, reason: "damaged", detail: `${path}: ${parsed.error.issues[0]?.message ?? "invalid"}` };
    if (parsed.data.draft_id !== draftId) return { ok: false, reason: "damaged", detail: `${path} names draft ${parsed.data.draft_id}` };
    return { ok: true, kept: parsed.data };
  }

  /** Drops a draft's kept original (nothing there is fine). */
  async drop(draftId: string): Promise<void> {
    const path = this.pathOf(draftId);
    if (path === null) return;
    if (await removed(path)) await fsyncDir(this.dir);
  }

  /**
   * Drops every kept original whose draft `keep` says no longer needs it (a
   * draft the store no longer holds, one that became final or got a new
   * version while a drop was lost in a crash), and temp files a crash left.
   * Returns how many files went.
   */
  async sweep(keep: (draftId: string) => boolean): Promise<number> {
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch (err) {
      if (errCode(err) === "ENOENT") return 0;
      throw err;
    }
    let gone = 0;
    for (const name of names) {
      const id = /^(.+)\.json$/.exec(name)?.[1];
      const stale = name.endsWith(".tmp") || (id !== undefined && FILE_ID.test(id) && !keep(id));
      if (stale && (await removed(join(this.dir, name)))) gone++;
    }
    if (gone > 0) await fsyncDir(this.dir);
    return gone;
  }

  private pathOf(draftId: string): string | null {
    return FILE_ID.test(draftId) ? join(this.dir, `${draftId}.json`) : null;
  }

  /** Creates the directory (0700) once; a directory that is something else (a link, a file) is refused. */
  private async ensureDir(): Promise<void> {
    try {
      await mkdir(this.dir, { mode: 0o700 });
      await fsyncDir(dirname(this.dir));
      return;
    } catch (err) {
      if (errCode(err) !== "EEXIST") throw err;
    }
    const st = await lstat(this.dir);
    if (!st.isDirectory()) throw new Error(`${this.dir} is not a directory: remove it; the daemon makes it again`);
  }
}

/** Unlinks `path`; false when nothing was there. */
async function removed(path: string): Promise<boolean> {
  try {
    await unlink(path);
    return true;
  } catch (err) {
    if (errCode(err) === "ENOENT") return false;
    throw err;
  }
}
