import { DataRefusalError } from "./data-refusal.js";

/**
 * A line in the middle of a store file (the draft store, the update journal)
 * is damaged: not a torn write at the end (which is cut off by itself), so
 * the daemon refuses to start rather than guess: a refusal because of data
 * (exit 78, no restart loop). Nothing is changed or deleted; the operator
 * decides, as `remedy` says for that file.
 */
export class StoreCorruptError extends DataRefusalError {
  override readonly name = "StoreCorruptError";

  constructor(
    /** The store file. */
    path: string,
    /** 1-based number of the first damaged line. */
    line: number,
    /** What is wrong with it. */
    readonly reason: string,
    /** What the operator should do; default: move the file aside or restore it. */
    remedy = `Stop the daemon, move ${path} aside (or restore it from a backup), then start again; the moved file keeps every line for inspection.`,
  ) {
    super(
      path,
      line,
      `damaged (${reason}), and not a torn write at the end of the file, so it was not cut off and nothing was changed`,
      remedy,
    );
    // The wording operators (and their scripts) know: "<file> line <n> is damaged (...)".
    this.message = `${path} line ${line} is damaged (${reason}) and is not a torn write at the end of the file, so it was not cut off and nothing was changed. ${remedy}`;
  }
}

/**
 * A write or fsync failed and the store could not undo it, so it refuses
 * further appends rather than risk a half-written line. Restarting re-reads
 * the file and cuts off anything unacknowledged.
 */
export class StoreBrokenError extends Error {
  override readonly name = "StoreBrokenError";

  constructor(
    readonly path: string,
    cause: unknown,
  ) {
    super(
      `${path} is not writable any more after a failed write (${cause instanceof Error ? cause.message : String(cause)}). ` +
        `Nothing unacknowledged was kept. Fix the disk problem (space, permissions, I/O errors), then restart the daemon.`,
      { cause },
    );
  }
}
