import { open, type FileHandle } from "node:fs/promises";

/** Small file-system steps the store and the audit log share. */

/** Writes all of `data` at the handle's position (the end, for O_APPEND); loops over short writes. */
export async function writeAll(fh: FileHandle, data: Uint8Array): Promise<void> {
  let done = 0;
  while (done < data.length) {
    const { bytesWritten } = await fh.write(data, done, data.length - done);
    if (bytesWritten <= 0) throw new Error("write(2) wrote nothing");
    done += bytesWritten;
  }
}

/** fsyncs a directory, so a file created or renamed in it survives a power loss. */
export async function fsyncDir(dir: string): Promise<void> {
  const d = await open(dir, "r");
  try {
    await d.sync();
  } finally {
    await d.close();
  }
}

/**
 * Opens `path` for appending (and reading), creating it with `mode` if
 * missing. `created` tells the caller to fsync the directory.
 */
export async function openAppend(path: string, mode: number): Promise<{ fh: FileHandle; created: boolean }> {
  try {
    return { fh: await open(path, "ax+", mode), created: true };
  } catch (err) {
    if (errCode(err) !== "EEXIST") throw err;
    return { fh: await open(path, "a+", mode), created: false };
  }
}

/** The `code` of a Node system error, or undefined. */
export function errCode(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : undefined;
}

/** The message of anything thrown. */
export function errMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
