import { execFileSync } from "node:child_process";
import { mkdtemp, open, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll } from "vitest";

/** A 256 KiB tmpfs for the full-disk tests, or why none could be mounted. */
export interface TinyTmpfs {
  readonly mountPoint: string;
  readonly mounted: boolean;
  /** Why the mount failed (not root, no tmpfs), when it did. */
  readonly problem: string;
}

/**
 * Mounts a 256 KiB tmpfs at a fresh temp dir (root only: elsewhere `mounted`
 * is false and the tests that need it say they were skipped), and unmounts it
 * after the test file.
 */
export async function tinyTmpfs(prefix: string): Promise<TinyTmpfs> {
  const mountPoint = await mkdtemp(join(tmpdir(), prefix));
  let mounted = false;
  let problem = "";
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=256k,mode=0700", "tmpfs", mountPoint], { stdio: "pipe" });
    mounted = true;
  } catch (err) {
    problem =
      String((err as { stderr?: Buffer }).stderr ?? err)
        .trim()
        .split("\n")[0] ?? "";
  }
  afterAll(async () => {
    if (mounted) execFileSync("umount", ["-l", mountPoint], { stdio: "pipe" });
    await rm(mountPoint, { recursive: true, force: true });
  });
  return { mountPoint, mounted, problem };
}

/** Fills the file system with one file at `path` until ENOSPC, then gives `spareBytes` back; returns the bytes it keeps. */
export async function fillDisk(path: string, spareBytes = 0): Promise<number> {
  const fh = await open(path, "w");
  const chunk = Buffer.alloc(4096, 0x20);
  let written = 0;
  try {
    for (;;) written += (await fh.write(chunk)).bytesWritten;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOSPC") throw err;
  } finally {
    if (spareBytes > 0) await fh.truncate(Math.max(0, written - spareBytes));
    await fh.close();
  }
  return Math.max(0, written - spareBytes);
}
