import { randomBytes } from "node:crypto";
import { closeSync, constants, openSync, readFileSync } from "node:fs";
import { link, open, rename, unlink, type FileHandle } from "node:fs/promises";
import { basename, dirname, join } from "node:path";

const { O_RDONLY, O_WRONLY, O_RDWR, O_APPEND, O_CREAT, O_EXCL, O_TRUNC } = constants;
/** 0 where the platform has no O_NOFOLLOW (Windows). */
const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0;

/**
 * open(2) flags for files in HARNESS_DIR, all with O_NOFOLLOW: a symbolic link
 * planted at one of our names makes the open fail (ELOOP) instead of writing
 * through it into another file.
 */
export const NOFOLLOW = {
  /** "r" */
  read: O_RDONLY | O_NOFOLLOW,
  /** "a+" */
  append: O_RDWR | O_APPEND | O_CREAT | O_NOFOLLOW,
  /** "ax+" */
  appendNew: O_RDWR | O_APPEND | O_CREAT | O_EXCL | O_NOFOLLOW,
  /** "w" */
  write: O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW,
  /** "wx" */
  writeNew: O_WRONLY | O_CREAT | O_EXCL | O_TRUNC | O_NOFOLLOW,
} as const;

/** Reads a whole file as UTF-8 without following a symbolic link at `path`. */
export async function readNoFollow(path: string): Promise<string> {
  const fh = await open(path, NOFOLLOW.read);
  try {
    return await fh.readFile("utf8");
  } finally {
    await fh.close();
  }
}

/**
 * readNoFollow, synchronously: for a tiny local file read on the path of every send call, where a
 * read through libuv's thread pool would queue behind the fsyncs of other changes.
 */
export function readNoFollowNow(path: string): string {
  const fd = openSync(path, NOFOLLOW.read);
  try {
    return readFileSync(fd, "utf8");
  } finally {
    closeSync(fd);
  }
}

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

/** Errors of a file system that cannot fsync a directory (the file itself is durable then). */
const DIR_SYNC_UNSUPPORTED = new Set(["EINVAL", "ENOTSUP", "EOPNOTSUPP", "EISDIR", "EBADF"]);

/**
 * fsyncs a directory, so a file created, renamed or removed in it survives a
 * power loss. A file system that cannot fsync directories is tolerated.
 */
export async function fsyncDir(dir: string): Promise<void> {
  const d = await open(dir, "r");
  try {
    await d.sync();
  } catch (err) {
    if (!DIR_SYNC_UNSUPPORTED.has(errCode(err) ?? "")) throw err;
  } finally {
    await d.close();
  }
}

/** How `writeFileDurably` puts its file in place. */
export interface DurableWriteOptions {
  /** The file's mode (it is created with it). */
  readonly mode: number;
  /**
   * "replace" (default): renamed over `path`. "if-absent": hard-linked to
   * `path` only if nothing is there (false is returned otherwise), falling
   * back to a rename where the file system has no hard links.
   */
  readonly place?: "replace" | "if-absent";
}

/**
 * The one durable whole-file write: `data` goes to a fresh temp file next to
 * `path` (exclusive create, so a planted file or symlink is never followed),
 * is fsync'd, then put in place atomically and the directory fsync'd. A
 * reader sees the old file or the whole new one, never half of one, and the
 * temp file never outlives the call. Returns false only for "if-absent" when
 * `path` already existed.
 */
export async function writeFileDurably(path: string, data: string | Uint8Array, options: DurableWriteOptions): Promise<boolean> {
  const dir = dirname(path);
  const temp = join(dir, `.${basename(path)}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`);
  try {
    await writeNewFile(temp, data, options.mode);
    if ((options.place ?? "replace") === "replace") await rename(temp, path);
    else if (!(await linkIfAbsent(temp, path, data, options.mode))) return false;
    await fsyncDir(dir);
    return true;
  } finally {
    await unlink(temp).catch(() => undefined);
  }
}

/**
 * Hard-links `from` to `to` unless `to` exists (false then). Where the file
 * system has no hard links, creates `to` exclusively and writes `data` to it
 * (still never replacing someone else's file).
 */
async function linkIfAbsent(from: string, to: string, data: string | Uint8Array, mode: number): Promise<boolean> {
  try {
    await link(from, to);
    return true;
  } catch (err) {
    const code = errCode(err);
    if (code === "EEXIST") return false;
    if (code !== "EPERM" && code !== "ENOTSUP" && code !== "EOPNOTSUPP") throw err;
  }
  try {
    await writeNewFile(to, data, mode);
    return true;
  } catch (err) {
    if (errCode(err) === "EEXIST") return false;
    throw err;
  }
}

/** Creates `path` exclusively (never through a symlink), writes `data`, fsyncs and closes it. */
async function writeNewFile(path: string, data: string | Uint8Array, mode: number): Promise<void> {
  const fh = await open(path, NOFOLLOW.writeNew, mode);
  try {
    await writeAll(fh, typeof data === "string" ? Buffer.from(data) : data);
    await fh.sync();
  } finally {
    await fh.close();
  }
}

/** Reads a whole file without following a symbolic link at `path`; throws RangeError past `maxBytes`. */
export async function readFileNoFollow(path: string, maxBytes = 64 << 20): Promise<Buffer> {
  const fh = await open(path, NOFOLLOW.read);
  try {
    const { size } = await fh.stat();
    if (size > maxBytes) throw new RangeError(`${path} is ${size} bytes, more than the ${maxBytes} expected`);
    return await fh.readFile();
  } finally {
    await fh.close();
  }
}

/**
 * Opens `path` for appending (and reading), creating it with `mode` if
 * missing; never through a symbolic link. `created` tells the caller to fsync the directory.
 */
export async function openAppend(path: string, mode: number): Promise<{ fh: FileHandle; created: boolean }> {
  try {
    return { fh: await open(path, NOFOLLOW.appendNew, mode), created: true };
  } catch (err) {
    if (errCode(err) !== "EEXIST") throw err;
    return { fh: await open(path, NOFOLLOW.append, mode), created: false };
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
