import { chmod, readFile, stat } from "node:fs/promises";
import { parse as parseDotenv } from "dotenv";
import { hideTokenShapes } from "../log/token-shape.js";

/** The `.env` variables that hold secrets. */
const SECRET_NAMES = ["TELEGRAM_BOT_TOKEN", "DRAFT_API_TOKEN", "LINEAR_API_KEY", "SLACK_TOKEN", "SMTP_URL"] as const;

/** Whether a `.env` text holds a secret: a token variable with a value, or anything shaped like a bot token. */
export function envTextHoldsSecret(text: string): boolean {
  const values = parseDotenv(text);
  if (SECRET_NAMES.some((n) => (values[n] ?? "").trim() !== "")) return true;
  return hideTokenShapes(text, "") !== text;
}

/** What a `.env` file with a secret and a mode wider than 0600 is: its path and mode, or null when it is fine (or absent). */
export async function looseSecretEnvFile(path: string): Promise<{ path: string; mode: number } | null> {
  const st = await stat(path).catch(() => null);
  if (st === null || !st.isFile() || (st.mode & 0o077) === 0) return null;
  const text = await readFile(path, "utf8").catch(() => "");
  return envTextHoldsSecret(text) ? { path, mode: st.mode & 0o777 } : null;
}

/** The warning the daemon logs at start for such a file. */
export function looseEnvWarning(found: { path: string; mode: number }): string {
  return `${found.path} holds a token and other users can read it (mode 0${found.mode.toString(8)}): run \`chmod 600 ${found.path}\` (npx draft-review setup does it too).`;
}

/** Tightens such a file to owner-only (keeping the owner's bits); resolves with the old mode, or null when nothing changed. */
export async function tightenSecretEnvFile(path: string): Promise<number | null> {
  const found = await looseSecretEnvFile(path);
  if (found === null) return null;
  await chmod(path, found.mode & 0o600);
  return found.mode;
}
