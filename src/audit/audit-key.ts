import { createSecretKey, randomBytes } from "node:crypto";
import { open } from "node:fs/promises";
import { DataRefusalError } from "../store/data-refusal.js";
import { errCode, errMessage, NOFOLLOW, writeFileDurably } from "../store/fs-util.js";
import type { AuditKey } from "./line-proof.js";

/**
 * HARNESS_DIR/audit_key: the secret that proves which lines of the shared
 * audit log this project wrote (see line-proof.ts). 32 random bytes as 64 hex
 * digits, made once at the daemon's first start (mode 0600, written durably),
 * never logged, never changed. The daemon and the CLI read it; a file others
 * can read, another user's file, a symbolic link or a damaged key is refused
 * with what to do, as for the API token.
 */

/** What reading the key file gave (a file that cannot be trusted throws a DataRefusalError instead). */
export type AuditKeyRead =
  | { readonly kind: "key"; readonly key: AuditKey; readonly secret: string }
  | { readonly kind: "missing"; readonly empty: boolean };

const HEX_KEY = /^[0-9a-f]{64}$/;

/** What to do when the key is lost for good: the proven lines stay history, a new log starts. */
export function lostKeyRemedy(path: string): string {
  return (
    `Restore ${path} from a backup and start again. If it is lost for good, stop the daemon, move swarm.jsonl and ` +
    "audit_index.json aside (they stay readable as history) and start again: a new key and a new audit log are made, and " +
    "the drafts in the store are audited again as recovered."
  );
}

/** Reads the key. Missing or empty: "missing". Throws a DataRefusalError when the file cannot be trusted or is damaged. */
export async function readAuditKey(path: string): Promise<AuditKeyRead> {
  let fh;
  try {
    fh = await open(path, NOFOLLOW.read);
  } catch (err) {
    if (errCode(err) === "ENOENT") return { kind: "missing", empty: false };
    if (errCode(err) === "ELOOP")
      throw new DataRefusalError(
        path,
        null,
        "it is a symbolic link, not the key this daemon made",
        `Remove the link (look at where it points first). ${lostKeyRemedy(path)}`,
      );
    throw new DataRefusalError(
      path,
      null,
      `it cannot be read (${errMessage(err)})`,
      "Run as the user the daemon runs as, and check its ownership.",
      { cause: err },
    );
  }
  try {
    const st = await fh.stat();
    const uid = typeof process.getuid === "function" ? process.getuid() : null;
    if (uid !== null && st.uid !== uid)
      throw new DataRefusalError(
        path,
        null,
        `it belongs to uid ${st.uid}, not to this user (uid ${uid}): another user may have planted it`,
        lostKeyRemedy(path),
      );
    const mode = st.mode & 0o777;
    if ((mode & 0o077) !== 0)
      throw new DataRefusalError(
        path,
        null,
        `it can be read by other users (mode 0${mode.toString(8)}), so whoever read it can forge the daemon's audit lines`,
        `If no one else could have read it, \`chmod 600 ${path}\` and start again. Otherwise stop the daemon, move swarm.jsonl, ` +
          "audit_index.json and audit_key aside (they stay readable as history) and start again: a new key and a new audit log are made.",
      );
    const text = (await fh.readFile("utf8")).trim();
    if (text === "") return { kind: "missing", empty: true };
    if (!HEX_KEY.test(text))
      throw new DataRefusalError(path, null, "it is damaged (it must hold 64 hexadecimal digits)", lostKeyRemedy(path));
    return { kind: "key", key: createSecretKey(Buffer.from(text, "hex")), secret: text };
  } finally {
    await fh.close();
  }
}

/**
 * Makes a new key (mode 0600, durably: temp file, fsync, link, directory
 * fsync). Never replaces a key another start wrote meanwhile (that one is
 * returned), except an empty file (`replaceEmpty`).
 */
export async function createAuditKey(path: string, replaceEmpty: boolean): Promise<{ key: AuditKey; secret: string }> {
  const secret = randomBytes(32).toString("hex");
  if (await writeFileDurably(path, `${secret}\n`, { mode: 0o600, place: replaceEmpty ? "replace" : "if-absent" })) {
    return { key: createSecretKey(Buffer.from(secret, "hex")), secret };
  }
  const theirs = await readAuditKey(path);
  if (theirs.kind === "key") return theirs;
  return createAuditKey(path, true);
}
