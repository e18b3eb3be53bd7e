import pino from "pino";
import { hideTokenShapes } from "./token-shape.js";

/** The logger everything writes to. */
export type Logger = pino.Logger;

/** How to build the logger: where it writes and which secrets it must never print. */
export interface LoggerOptions {
  readonly level: string;
  /**
   * Strings that must never appear in a log line (the bot token, the API
   * token). Read at every line, so a secret made later (a generated API
   * token) can be pushed onto the same array.
   */
  readonly secrets: (string | null | undefined)[];
  /** File descriptor to write to: 2 (stderr) keeps stdout free for test mode's answers. */
  readonly fd?: number;
  /** Human-readable output, for a terminal. */
  readonly pretty?: boolean;
}

/**
 * Replaces every secret inside a finished log line. pino's `redact` matches
 * object paths only; a token inside an error message or a URL needs this.
 */
export function scrubSecrets(line: string, secrets: readonly string[]): string {
  let out = line;
  for (const secret of secrets) if (out.includes(secret)) out = out.split(secret).join("[redacted]");
  return out;
}

/**
 * The pino logger, structured JSON (pretty on a terminal), with secrets
 * removed both by path and from the text of every line. The text scrub is
 * pino's streamWrite hook, which runs before any destination, so the pretty
 * transport (pino-pretty in a worker thread) only ever sees scrubbed lines.
 */
export function createLogger(options: LoggerOptions): Logger {
  const secrets = () => options.secrets.filter((s): s is string => typeof s === "string" && s.length >= 8);
  const fd = options.fd ?? 2;
  const destination = options.pretty
    ? pino.transport({ target: "pino-pretty", options: { destination: fd, colorize: true } })
    : pino.destination({ fd, sync: true });
  return pino(
    {
      level: options.level,
      redact: {
        paths: ["token", "*.token", "authorization", "*.authorization", "headers.authorization", "*.headers.authorization"],
        censor: "[redacted]",
      },
      hooks: {
        // Telegram URLs carry the token as /bot<token>/; anything shaped like a token goes too.
        streamWrite: (line) => hideTokenShapes(scrubSecrets(line, secrets()), "[redacted-token]"),
      },
    },
    destination,
  );
}
