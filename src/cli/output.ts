import type { CliIo } from "./io.js";

/** Prints a JSON value as exactly one line on stdout: what scripts and the swarm parse. */
export function printJsonLine(io: CliIo, value: unknown): void {
  io.stdout.write(`${JSON.stringify(value)}\n`);
}

/** Prints a message for a person on stderr, prefixed with the program's name. */
export function printProblem(io: CliIo, message: string): void {
  io.stderr.write(`draft-review: ${message}\n`);
}

/**
 * What to tell the operator about an answer that is neither accepted nor a
 * refused payload; a 5xx whose body says why (a damaged archive file) says so.
 */
export function explainStatus(status: number, url: string, body?: unknown): string {
  if (status === 401) {
    return `the daemon at ${url} refused the API token: set DRAFT_API_TOKEN to the daemon's, or unset it so the CLI reads HARNESS_DIR/api_token (same HARNESS_DIR as the daemon)`;
  }
  const error = (body as { error?: unknown } | null | undefined)?.error;
  if (status >= 500 && typeof error === "string" && error !== "internal error")
    return `the daemon at ${url} could not answer (HTTP ${status}): ${error}`;
  if (status >= 500) return `the daemon at ${url} failed to handle the request (HTTP ${status}); see its log`;
  return `the daemon at ${url} answered HTTP ${status}; is DRAFT_API_PORT the daemon's port, and are the CLI and the daemon the same version?`;
}
