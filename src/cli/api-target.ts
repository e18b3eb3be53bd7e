import { resolve } from "node:path";
import { readApiTokenForClient, ApiTokenError } from "../app/api-token.js";
import { CliFailure } from "./io.js";

/** Where the daemon's API is and the token to show it, as the CLI found them. */
export interface ApiTarget {
  /** The host to connect to (a wildcard bind address becomes loopback). */
  readonly host: string;
  readonly port: number;
  /** For messages: `http://127.0.0.1:8787`. */
  readonly url: string;
}

/**
 * Reads DRAFT_API_HOST / DRAFT_API_PORT the way the daemon does (defaults
 * 127.0.0.1:8787), without the daemon's other requirements: the CLI needs no
 * bot token.
 */
export function apiTarget(env: Readonly<Record<string, string | undefined>>): ApiTarget {
  const bind = env.DRAFT_API_HOST?.trim() || "127.0.0.1";
  const host = bind === "0.0.0.0" ? "127.0.0.1" : bind === "::" ? "::1" : bind;
  const portText = env.DRAFT_API_PORT?.trim() || "8787";
  const port = Number(portText);
  if (!/^\d+$/.test(portText) || !(port >= 1 && port <= 65535)) {
    throw new CliFailure(
      `DRAFT_API_PORT must be the daemon's port, a number from 1 to 65535 (got "${portText}"); fix it in .env or the environment.`,
    );
  }
  return { host, port, url: `http://${host.includes(":") ? `[${host}]` : host}:${port}` };
}

/** The API token for this machine's daemon, or a CliFailure that says how to get one. A relative HARNESS_DIR is taken from `cwd`. */
export async function clientToken(env: Readonly<Record<string, string | undefined>>, cwd: string): Promise<string> {
  try {
    return await readApiTokenForClient({ ...env, HARNESS_DIR: resolve(cwd, env.HARNESS_DIR?.trim() || ".harness") });
  } catch (err) {
    if (err instanceof ApiTokenError) throw new CliFailure(err.message);
    throw err;
  }
}
