import { z } from "zod";
import { DataRefusalError } from "../store/data-refusal.js";
import { errCode, readNoFollow, writeFileDurably } from "../store/fs-util.js";

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

  /** The acknowledged seq; 0 when the file does not exist yet. A damaged file throws a DataRefusalError, naming it. */
  async read(): Promise<number> {
    let text: string;
    try {
      text = await readNoFollow(this.path);
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
      throw new DataRefusalError(
        this.path,
        null,
        `it is damaged (${JSON.stringify(text.slice(0, 60))}); it should hold {"acked_seq": N}`,
        "Write the last seq your receiver handled into it (or delete it to deliver every event again), then start again.",
      );
    }
    return r.data.acked_seq;
  }

  /** Records `seq` as acknowledged; resolves once it is on disk (the one durable write: never through a planted link). */
  async write(seq: number): Promise<void> {
    await writeFileDurably(this.path, `${JSON.stringify({ acked_seq: seq })}\n`, { mode: 0o600 });
  }
}
