import { mkdir, type FileHandle } from "node:fs/promises";
import { dirname } from "node:path";
import { fsyncDir, openAppend } from "./fs-util.js";

/** File mode of the logs we create. */
export const LOG_FILE_MODE = 0o600;

/**
 * Opens an append-only log (the draft store, the audit log) for appending and
 * reading: its directory is created (mode 0700) if missing, the file (mode
 * 0600) too, and a new file's directory entry is fsync'd so it survives a
 * power loss. The one way both logs open their file.
 */
export async function openAppendLog(path: string): Promise<FileHandle> {
  const dir = dirname(path);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const { fh, created } = await openAppend(path, LOG_FILE_MODE);
  try {
    if (created) await fsyncDir(dir);
    return fh;
  } catch (err) {
    await fh.close().catch(() => undefined);
    throw err;
  }
}
