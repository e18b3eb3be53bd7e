/**
 * The daemon refuses to start because of what a file in HARNESS_DIR holds
 * (damaged, older than another record, unsafe to use): an operator's matter,
 * never a bug. `src/main.ts` prints its message as it is, without a stack
 * trace, and exits 78 (EX_CONFIG), which the service files do not restart.
 * Every such refusal uses this one class (or a subclass), so the message
 * always names the file, the line where one is to blame, and what to do.
 */
export class DataRefusalError extends Error {
  override readonly name: string = "DataRefusalError";

  constructor(
    /** The file in HARNESS_DIR whose data is refused. */
    readonly path: string,
    /** 1-based line to blame, or null when the file as a whole is. */
    readonly line: number | null,
    /** What is wrong, as a clause ("it is older than the audit log"). */
    readonly problem: string,
    /** What the operator should do, as a sentence or two. */
    readonly remedy: string,
    options?: { readonly cause?: unknown },
  ) {
    super(`${path}${line === null ? "" : ` line ${line}`}: ${problem}. ${remedy}`, options);
  }
}

/** The exit code of a refusal to start because of data (EX_CONFIG: the unit files do not restart on it). */
export const DATA_REFUSAL_EXIT = 78;
