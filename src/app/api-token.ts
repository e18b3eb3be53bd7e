import { harnessPaths } from "./paths.js";
import { randomBytes } from "node:crypto";
import { mkdir, open } from "node:fs/promises";
import { NOFOLLOW, writeFileDurably } from "../store/fs-util.js";

/** The token file inside HARNESS_DIR. */
export function apiTokenPath(harnessDir: string): string {
  return harnessPaths(harnessDir).apiToken;
}

/** Why no API token could be had; the message says what to do. */
export class ApiTokenError extends Error {
  override readonly name = "ApiTokenError";
}

/** The log the daemon's token handling warns on (pino fits). */
export interface TokenLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

/** A usable token: 16+ printable ASCII characters, no spaces (what fits in a Bearer header). */
const USABLE = /^[\x21-\x7e]{16,}$/;
const FILE_MODE = 0o600;

/**
 * The bearer token the daemon's API requires: DRAFT_API_TOKEN when set,
 * otherwise the one in HARNESS_DIR/api_token, generated there on first start
 * (32 random bytes, hex, mode 0600) so the CLI on this machine can read it.
 * A token file that others can read (or that another user owns, or that is
 * a symbolic link) is refused: anyone could have read or planted it.
 */
export async function resolveApiToken(
  config: { readonly api: { readonly token: string | null } },
  harnessDir: string,
  log?: TokenLog,
): Promise<string> {
  if (config.api.token !== null) return config.api.token;
  const path = apiTokenPath(harnessDir);
  const existing = await readDaemonTokenFile(path, log);
  if (existing !== null && existing !== "") return existing;
  await mkdir(harnessDir, { recursive: true, mode: 0o700 });
  const token = randomBytes(32).toString("hex");
  // An empty file is useless to everyone: replace it; otherwise never overwrite a token another start wrote.
  const written = await writeTokenFile(path, token, existing === "");
  log?.info({ path }, written === token ? "generated the intake API token" : "using the intake API token another start wrote");
  return written;
}

/**
 * The token for a client on this machine (the CLI): DRAFT_API_TOKEN, or the
 * daemon's HARNESS_DIR/api_token. Throws an ApiTokenError that says what to
 * do when there is neither.
 */
export async function readApiTokenForClient(env: Readonly<Record<string, string | undefined>>): Promise<string> {
  const fromEnv = env.DRAFT_API_TOKEN?.trim();
  if (fromEnv) return fromEnv;
  const path = apiTokenPath(env.HARNESS_DIR?.trim() || ".harness");
  let text: string;
  try {
    const fh = await open(path, NOFOLLOW.read);
    try {
      const problem = tokenFileProblem(await fh.stat(), path);
      if (problem !== null) throw new ApiTokenError(`${problem} The daemon refuses this file too.`);
      text = (await fh.readFile("utf8")).trim();
    } finally {
      await fh.close();
    }
  } catch (err) {
    if (err instanceof ApiTokenError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ELOOP") {
      throw new ApiTokenError(
        `${path} is a symbolic link, not the token file the daemon writes: remove it and restart the daemon so it writes a new one, or set DRAFT_API_TOKEN.`,
      );
    }
    if (code === "ENOENT") {
      throw new ApiTokenError(
        `no API token: DRAFT_API_TOKEN is not set and ${path} does not exist: start the daemon once (\`npm start\`) so it writes one, or set DRAFT_API_TOKEN.`,
      );
    }
    if (code === "EACCES" || code === "EPERM") {
      throw new ApiTokenError(
        `cannot read the API token in ${path} (permission denied): run as the user the daemon runs as, or set DRAFT_API_TOKEN.`,
      );
    }
    throw new ApiTokenError(`cannot read the API token in ${path} (${(err as Error).message}): set DRAFT_API_TOKEN, or check HARNESS_DIR.`);
  }
  if (!USABLE.test(text)) {
    throw new ApiTokenError(
      `${path} holds no usable token: start the daemon once (\`npm start\`) so it writes one, or set DRAFT_API_TOKEN.`,
    );
  }
  return text;
}

/**
 * Why a token file cannot be trusted, or null: it must belong to this user
 * and be readable by nobody else (a token others could read is no secret; a
 * file another user owns could be their token, planted).
 */
function tokenFileProblem(st: { mode: number; uid: number }, path: string): string | null {
  const uid = typeof process.getuid === "function" ? process.getuid() : null;
  if (uid !== null && st.uid !== uid) {
    return `${path} belongs to uid ${st.uid}, not to this user (uid ${uid}): another user may have planted it. Delete it and restart the daemon so it writes a new one, or set DRAFT_API_TOKEN.`;
  }
  const mode = st.mode & 0o777;
  if ((mode & 0o077) !== 0) {
    return `${path} can be read by other users (mode 0${mode.toString(8)}), so the token is no secret: delete it and restart the daemon so it writes a new one (mode 0600), or set DRAFT_API_TOKEN. (\`chmod 600 ${path}\` keeps the old, possibly seen token.)`;
  }
  return null;
}

/** The daemon's read of the token file: its token, "" when empty, null when absent. Refuses a file others can read. */
async function readDaemonTokenFile(path: string, _log?: TokenLog): Promise<string | null> {
  let fh;
  try {
    fh = await open(path, NOFOLLOW.read);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return null;
    if ((err as NodeJS.ErrnoException).code === "ELOOP") {
      throw new ApiTokenError(
        `${path} is a symbolic link, not a token file this daemon wrote: remove it (a new token is made at start), or set DRAFT_API_TOKEN.`,
      );
    }
    throw new ApiTokenError(
      `cannot read the API token in ${path} (${(err as Error).message}): fix its ownership, delete it so a new one is made, or set DRAFT_API_TOKEN.`,
      { cause: err },
    );
  }
  try {
    const problem = tokenFileProblem(await fh.stat(), path);
    if (problem !== null) throw new ApiTokenError(problem);
    const text = (await fh.readFile("utf8")).trim();
    if (text !== "" && !USABLE.test(text)) {
      throw new ApiTokenError(
        `${path} holds no usable token (16+ characters without spaces are needed): delete it so the daemon makes a new one, or set DRAFT_API_TOKEN.`,
      );
    }
    return text;
  } finally {
    await fh.close();
  }
}

/**
 * Writes the token durably (src/store/fs-util.ts: temp file, mode 0600,
 * fsync, then linked into place), so a reader sees no file or the whole token,
 * never half of one. With `replace` false an existing file wins and its token
 * is returned.
 */
async function writeTokenFile(path: string, token: string, replace: boolean): Promise<string> {
  if (await writeFileDurably(path, `${token}\n`, { mode: FILE_MODE, place: replace ? "replace" : "if-absent" })) return token;
  // Another start won the race: use its token, unless that file is empty too.
  const theirs = await readDaemonTokenFile(path);
  return theirs ? theirs : writeTokenFile(path, token, true);
}
