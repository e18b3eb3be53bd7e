import { mkdir, open, unlink } from "node:fs/promises";
import { dirname } from "node:path";
import { errCode, fsyncDir, NOFOLLOW } from "../store/fs-util.js";

/** What the HALT file says about who halted, for a person reading it. The kill switch only checks that it exists. */
export interface HaltNote {
  readonly at: string;
  readonly channel: string;
  readonly user_id: number | null;
  readonly by?: string;
}

/**
 * Creates the owner's HALT file durably (written, fsync'd, and its directory
 * fsync'd), so a halt survives a power cut the moment this resolves. An
 * existing file is kept as it is (the first halt's note stays): resolves
 * false then. The kill switch halts every send while the file exists.
 */
export async function createHaltFile(path: string, note: HaltNote): Promise<boolean> {
  const dir = dirname(path);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  let fh;
  try {
    fh = await open(path, NOFOLLOW.writeNew, 0o600);
  } catch (err) {
    if (errCode(err) === "EEXIST") return false;
    throw new Error(`cannot create ${path} (${(err as Error).message}): check that HARNESS_DIR is writable by this user`, { cause: err });
  }
  try {
    await fh.writeFile(`${JSON.stringify(note)}\n`, "utf8");
    await fh.sync();
  } finally {
    await fh.close();
  }
  await fsyncDir(dir);
  return true;
}

/**
 * Removes the owner's HALT file durably (unlink, then the directory fsync'd).
 * Resolves false when there was none.
 */
export async function removeHaltFile(path: string): Promise<boolean> {
  try {
    await unlink(path);
  } catch (err) {
    if (errCode(err) === "ENOENT") return false;
    throw new Error(`cannot remove ${path} (${(err as Error).message}): check that HARNESS_DIR is writable by this user`, { cause: err });
  }
  await fsyncDir(dirname(path));
  return true;
}
