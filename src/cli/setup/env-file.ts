import { randomBytes } from "node:crypto";
import { open, readFile, rename, stat, unlink } from "node:fs/promises";
import { dirname } from "node:path";
import { parse as parseDotenv } from "dotenv";
import { envTextHoldsSecret } from "../../config/env-secrets.js";
import { errCode, fsyncDir } from "../../store/fs-util.js";

/** `.env`'s text and the values it sets; an absent file is empty. */
export async function readEnvFile(path: string): Promise<{ exists: boolean; text: string; values: Record<string, string> }> {
  try {
    const text = await readFile(path, "utf8");
    return { exists: true, text, values: parseDotenv(text) };
  } catch (err) {
    if (errCode(err) === "ENOENT") return { exists: false, text: "", values: {} };
    throw new Error(`cannot read ${path} (${(err as Error).message}); check its permissions`, { cause: err });
  }
}

function assignment(name: string): RegExp {
  return new RegExp(`^\\s*(export\\s+)?${name}\\s*=`);
}

function commentedAssignment(name: string): RegExp {
  return new RegExp(`^\\s*#\\s*${name}\\s*=`);
}

/**
 * Sets `NAME=value` lines in a `.env` text, keeping everything else as it is:
 * an existing assignment is replaced in place (a repeated one is removed, so
 * the value is unambiguous); a missing one goes right after its commented
 * template line (`# NAME=...`, as in .env.example), or at the end. Pure.
 */
export function setEnvValues(text: string, values: Readonly<Record<string, string>>): string {
  const lines = text === "" ? [] : text.replace(/\n$/, "").split("\n");
  for (const [name, value] of Object.entries(values)) {
    const line = `${name}=${value}`;
    const at = lines.findIndex((l) => assignment(name).test(l));
    if (at >= 0) {
      lines[at] = line;
      for (let i = lines.length - 1; i > at; i--) if (assignment(name).test(lines[i]!)) lines.splice(i, 1);
      continue;
    }
    const template = lines.findIndex((l) => commentedAssignment(name).test(l));
    if (template >= 0) lines.splice(template + 1, 0, line);
    else lines.push(line);
  }
  return `${lines.join("\n")}\n`;
}

/**
 * Replaces `.env` atomically and durably: a temp file beside it (the old
 * file's mode, or 0600 for a new one; never wider than 0600 when it holds a token), fsync'd, then
 * renamed over it, then the directory fsync'd. A reader (the daemon's kill
 * switch reads .env at every send) sees the old file or the new one, whole.
 */
export async function writeEnvFile(path: string, text: string): Promise<void> {
  const old = await stat(path).then(
    (s) => s.mode & 0o777,
    () => 0o600,
  );
  // A file with a token in it is for its owner's eyes only, whatever its mode was.
  const mode = envTextHoldsSecret(text) ? old & 0o600 : old;
  const temp = `${path}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  const fh = await open(temp, "wx", mode);
  try {
    try {
      await fh.writeFile(text, "utf8");
      await fh.chmod(mode);
      await fh.sync();
    } finally {
      await fh.close();
    }
    await rename(temp, path);
    await fsyncDir(dirname(path));
  } catch (err) {
    await unlink(temp).catch(() => undefined);
    throw new Error(`cannot write ${path} (${(err as Error).message}); add the lines yourself, or run setup where the file is writable`, {
      cause: err,
    });
  }
}
