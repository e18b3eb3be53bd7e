import { mkdir, unlink } from "node:fs/promises";
import { join } from "node:path";
import { errCode, readNoFollow, writeFileDurably } from "./fs-util.js";
import type { StoreLog } from "./jsonl-store.js";

/**
 * One daemon per HARNESS_DIR: two daemons appending to the same store would
 * interleave records and both post drafts. The lock is `daemon.lock`, holding
 * the owner's pid (and the boot id, so a lock left before a reboot is never
 * mistaken for a live one whose pid was reused).
 */

/** The lock file's name inside HARNESS_DIR. */
export const LOCK_FILE = "daemon.lock";

/** Another live process holds the lock. */
export class LockHeldError extends Error {
  override readonly name = "LockHeldError";

  constructor(
    /** The lock file. */
    readonly path: string,
    /** The pid written in it, alive. */
    readonly pid: number,
  ) {
    super(
      `another draft-review daemon (pid ${pid}) holds ${path}: stop it before starting this one. ` +
        `If pid ${pid} is not a draft-review daemon (a pid reused after a crash), delete ${path} and start again.`,
    );
  }
}

/** A held lock. */
export interface Lock {
  /** Removes the lock file if it is still ours. Safe to call twice. */
  release(): Promise<void>;
}

const MAX_ATTEMPTS = 5;
/** Lock files held by this process: a lock naming our own pid is ours only if listed here. */
const heldHere = new Set<string>();

/**
 * Takes `daemon.lock` in `dir` (created if missing). A lock whose pid is gone
 * (or from before a reboot) is taken over with a warning; a live one throws
 * LockHeldError. The lock file appears atomically with its content (hard
 * link of a temp file), so no one ever reads a half-written lock.
 */
export async function acquireLock(dir: string, log?: StoreLog): Promise<Lock> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const path = join(dir, LOCK_FILE);
  const mine = `${process.pid}\n${await bootId()}\n`;
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    if (await writeFileDurably(path, mine, { mode: 0o600, place: "if-absent" })) {
      heldHere.add(path);
      return { release: () => release(path, mine) };
    }
    await takeOverIfStale(path, log);
  }
  throw new Error(`could not take ${path}: it kept changing while we tried. Is another daemon starting on ${dir}?`);
}

/** Throws LockHeldError if the lock is live; removes it if stale (and unchanged since we read it). */
async function takeOverIfStale(path: string, log: StoreLog | undefined): Promise<void> {
  const content = await readOrNull(path);
  if (content === null) return; // released meanwhile: try again
  const [pidText = "", boot = ""] = content.split("\n");
  const pid = /^\d+$/.test(pidText) ? Number(pidText) : NaN;
  const sameBoot = boot === "" || boot === (await bootId());
  if (Number.isSafeInteger(pid) && sameBoot && isAlive(pid, path)) throw new LockHeldError(path, pid);
  if ((await readOrNull(path)) !== content) return; // changed under us: look again
  await unlink(path).catch((err: unknown) => {
    if (errCode(err) !== "ENOENT") throw err;
  });
  const fields = { path, stalePid: Number.isNaN(pid) ? pidText.slice(0, 40) : pid, staleBoot: !sameBoot };
  const msg = "took over a stale daemon lock (its process is gone; the previous daemon did not shut down cleanly)";
  if (log) log.warn(fields, msg);
  else process.emitWarning(`${msg}: ${JSON.stringify(fields)}`);
}

function isAlive(pid: number, path: string): boolean {
  if (pid === process.pid) return heldHere.has(path);
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return errCode(err) === "EPERM"; // exists, owned by someone else
  }
}

async function release(path: string, mine: string): Promise<void> {
  if ((await readOrNull(path)) === mine) await unlink(path).catch(() => undefined);
  heldHere.delete(path);
}

async function readOrNull(path: string): Promise<string | null> {
  try {
    return await readNoFollow(path);
  } catch (err) {
    if (errCode(err) === "ENOENT") return null;
    throw err;
  }
}

let cachedBootId: string | undefined;
/** Linux's boot id, or "" elsewhere. */
async function bootId(): Promise<string> {
  cachedBootId ??= (await readOrNull("/proc/sys/kernel/random/boot_id").catch(() => null))?.trim() ?? "";
  return cachedBootId;
}
