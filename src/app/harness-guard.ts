import { chmod, lstat, mkdir, readdir, stat } from "node:fs/promises";
import { join, resolve } from "node:path";

/** HARNESS_DIR cannot be trusted: another user could write into it. The message says how to fix it. */
export class HarnessDirError extends Error {
  override readonly name = "HarnessDirError";
}

/** Where the guard reports what it did (pino fits). */
export interface GuardLog {
  info(obj: object, msg: string): void;
}

const WRITABLE_BY_OTHERS = 0o022;

/** The uid this process runs as, or null where there is none (Windows: no check). */
function myUid(): number | null {
  return typeof process.getuid === "function" ? process.getuid() : null;
}

/**
 * Makes sure HARNESS_DIR is ours alone before anything in it is read: the
 * directory and every entry in it are owned by this user and not writable by
 * group or others, and no entry is a symbolic link (an audit line appended
 * through a planted link would land in another file). A directory that does
 * not exist is created with mode 0700. Throws a HarnessDirError listing each
 * problem with the command that fixes it.
 */
export async function guardHarnessDir(dir: string, log?: GuardLog): Promise<void> {
  const uid = myUid();
  const abs = resolve(dir);
  const existed = await stat(abs).then(
    () => true,
    (err: NodeJS.ErrnoException) => {
      if (err.code === "ENOENT") return false;
      throw new HarnessDirError(`cannot read HARNESS_DIR ${abs} (${err.message}): check the path and its permissions.`);
    },
  );
  if (!existed) {
    await mkdir(abs, { recursive: true, mode: 0o700 });
    await chmod(abs, 0o700);
    log?.info({ harness_dir: abs, mode: "0700" }, "created HARNESS_DIR, readable and writable by this user only");
  }
  if (uid === null) return;

  const problems: string[] = [];
  const dirStat = await stat(abs);
  if (!dirStat.isDirectory())
    throw new HarnessDirError(`HARNESS_DIR ${abs} is not a directory: point HARNESS_DIR at a directory (it is created if missing).`);
  if (dirStat.uid !== uid) {
    problems.push(
      `${abs} is owned by uid ${dirStat.uid}, not by this user (uid ${uid}): \`chown -R ${uid} ${abs}\` (as root), or use another HARNESS_DIR.`,
    );
  }
  if ((dirStat.mode & WRITABLE_BY_OTHERS) !== 0) {
    problems.push(
      `${abs} is writable by ${who(dirStat.mode)} (mode ${octal(dirStat.mode)}): \`chmod 700 ${abs}\`, then check that nothing in it was planted.`,
    );
  }
  for (const name of await readdir(abs)) {
    const path = join(abs, name);
    const st = await lstat(path).catch(() => null);
    if (st === null) continue; // removed meanwhile
    if (st.isSymbolicLink()) {
      problems.push(
        `${path} is a symbolic link; HARNESS_DIR holds only files this daemon made: \`rm ${path}\` (look at where it points first).`,
      );
      continue;
    }
    if (st.uid !== uid)
      problems.push(
        `${path} is owned by uid ${st.uid}, not by this user (uid ${uid}): remove it, or \`chown ${uid} ${path}\` if you trust its content.`,
      );
    else if ((st.mode & WRITABLE_BY_OTHERS) !== 0)
      problems.push(`${path} is writable by ${who(st.mode)} (mode ${octal(st.mode)}): \`chmod go-w ${path}\`.`);
  }
  if (problems.length > 0) {
    throw new HarnessDirError(
      `HARNESS_DIR must be this user's alone (another local user could forge drafts, approvals or the audit log):\n` +
        problems.map((p) => `  - ${p}`).join("\n"),
    );
  }
}

function octal(mode: number): string {
  return (mode & 0o7777).toString(8).padStart(4, "0");
}

function who(mode: number): string {
  const group = (mode & 0o020) !== 0;
  const others = (mode & 0o002) !== 0;
  return group && others ? "group and others" : group ? "its group" : "others";
}
