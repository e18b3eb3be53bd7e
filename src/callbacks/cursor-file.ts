import { open, readFile, rename, unlink } from "node:fs/promises";
import { dirname } from "node:path";
import { z } from "zod";
import { errCode, fsyncDir } from "../store/fs-util.js";

/** What the cursor file holds: the last event the receiver acknowledged (2xx). */
const cursorSchema = z.object({ acked_seq: z.number().int().nonnegative() });

/**
 * The callback cursor, `HARNESS_DIR/callback_cursor.json`: one number, the
 * `seq` of the last event the receiver acknowledged. Each write is atomic and
 * durable (temp file, fsync, rename, fsync of the directory), so after a
 * crash delivery resumes from the last acknowledged event: an event may be
 * POSTed again, never skipped.
 */
export class CallbackCursorFile {
  constructor(readonly path: string) {}

  /** The acknowledged seq; 0 when the file does not exist yet. A damaged file throws, naming it. */
  async read(): Promise<number> {
    let text: string;
    try {
      text = await readFile(this.path, "utf8");
    } catch (err) {
      if (errCode(err) === "ENOENT") return 0;
      throw err;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    const r = cursorSchema.safeParse(parsed);
    if (!r.success) {
      throw new Error(
        `${this.path} is damaged (${JSON.stringify(text.slice(0, 60))}); it should hold {"acked_seq": N}. ` +
          "Write the last seq your receiver handled into it (or delete it to deliver every event again), then start again.",
      );
    }
    return r.data.acked_seq;
  }

  /** Records `seq` as acknowledged; resolves once it is on disk. */
  async write(seq: number): Promise<void> {
    const tmp = `${this.path}.tmp`;
    const fh = await open(tmp, "w", 0o600);
    try {
      await fh.writeFile(`${JSON.stringify({ acked_seq: seq })}\n`);
      await fh.sync();
    } catch (err) {
      await fh.close().catch(() => undefined);
      await unlink(tmp).catch(() => undefined);
      throw err;
    }
    await fh.close();
    await rename(tmp, this.path);
    await fsyncDir(dirname(this.path));
  }
}
