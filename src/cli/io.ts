/**
 * Where a CLI command reads and writes, and the environment it sees. The bin
 * passes the real process; tests pass strings and objects.
 */
export interface CliIo {
  readonly stdin: NodeJS.ReadableStream & { readonly isTTY?: boolean };
  readonly stdout: { write(text: string): unknown };
  readonly stderr: { write(text: string): unknown };
  /** The environment; `.env` in `cwd` fills what it lacks (the process environment wins). */
  readonly env: Record<string, string | undefined>;
  /** Where `.env`, a relative HARNESS_DIR and a relative `--file` are found. */
  readonly cwd: string;
}

/** The real process as a `CliIo`. */
export function processIo(): CliIo {
  return { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr, env: process.env, cwd: process.cwd() };
}

/** The CLI's exit codes; `--help` prints what each means. */
export const EXIT = {
  /** Done: for submit, the draft was accepted (new, or an idempotent replay). */
  ok: 0,
  /** Anything else: the daemon is down or failed, a wrong token, a usage error. */
  failed: 1,
  /** The daemon (or the CLI before asking it) refused what it was given: invalid payload or JSON, key conflict, too large, unknown id or status. */
  refused: 2,
} as const;

/**
 * A command that cannot go on, with the exit code to use and, when there is
 * one, the JSON answer to print on stdout. The message tells the operator
 * what to do; main.ts prints it on stderr.
 */
export class CliFailure extends Error {
  override readonly name = "CliFailure";
  constructor(
    message: string,
    readonly exitCode: number = EXIT.failed,
  ) {
    super(message);
  }
}
