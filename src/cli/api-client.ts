import type { ApiTarget } from "./api-target.js";
import { CliFailure } from "./io.js";

/** The daemon's answer: HTTP status and the parsed JSON body. */
export interface ApiAnswer {
  readonly status: number;
  readonly body: unknown;
}

/** How long the CLI waits for an answer; a submit waits for the review post, so this is generous. */
export const API_TIMEOUT_MS = 60_000;

/**
 * One request to the daemon's API (fetch, with `AbortSignal.timeout`).
 * Resolves with any HTTP answer (the caller maps statuses to exit codes);
 * rejects with a CliFailure that says what to do when there is no answer: the
 * daemon not running, no answer in time, or something that does not speak the
 * API on that port.
 */
export async function callApi(
  target: ApiTarget,
  token: string,
  call: { readonly method: "GET" | "POST"; readonly path: string; readonly body?: string; readonly timeoutMs?: number },
): Promise<ApiAnswer> {
  const timeoutMs = call.timeoutMs ?? API_TIMEOUT_MS;
  const headers: Record<string, string> = { authorization: `Bearer ${token}`, accept: "application/json" };
  if (call.body !== undefined) headers["content-type"] = "application/json";
  let status: number;
  let text: string;
  try {
    const res = await fetch(`${target.url}${call.path}`, {
      method: call.method,
      headers,
      body: call.body,
      signal: AbortSignal.timeout(timeoutMs),
    });
    status = res.status;
    text = await res.text();
  } catch (err) {
    throw noAnswer(target, err, timeoutMs);
  }
  try {
    return { status, body: JSON.parse(text) as unknown };
  } catch {
    throw new CliFailure(
      `${target.url} answered ${status} with something that is not JSON: is another program listening on DRAFT_API_PORT=${target.port}?`,
    );
  }
}

/** The daemon's port refused the connection: nothing listens there, so the daemon is not running. */
export class DaemonNotRunning extends CliFailure {
  /** Marks the failure for callers that have another way (the CLI reads the store). */
  readonly daemonNotRunning = true;
}

/** The operator's message for a request that got no answer. */
function noAnswer(target: ApiTarget, err: unknown, timeoutMs: number): CliFailure {
  const codes = errorCodes(err);
  if (codes.includes("ECONNREFUSED")) {
    return new DaemonNotRunning(`the daemon is not running at ${target.url}: start it with \`npm start\``);
  }
  if (codes.includes("TimeoutError")) {
    return new CliFailure(
      `no answer from the daemon at ${target.url} within ${Math.round(timeoutMs / 1000)}s; a submitted draft may or may not have been accepted: if it had an idempotency_key, submit it again to find out`,
    );
  }
  if (codes.includes("ENOTFOUND") || codes.includes("EAI_AGAIN")) {
    return new CliFailure(`DRAFT_API_HOST=${target.host} does not resolve; use the daemon's address (default 127.0.0.1)`);
  }
  const detail = codes[0] ?? (err instanceof Error ? err.message : String(err));
  return new CliFailure(
    `the daemon at ${target.url} could not be reached or hung up (${detail}); check that it is running (\`npm start\`) and see its log`,
  );
}

/**
 * The error codes in an error: its own, its cause's (fetch wraps the socket
 * error), those of an AggregateError (IPv4 and IPv6 both tried), and the name
 * of a timeout.
 */
function errorCodes(err: unknown): string[] {
  const e = err as { code?: unknown; name?: unknown; errors?: unknown; cause?: unknown } | null;
  if (e === null || typeof e !== "object") return [];
  const own = typeof e.code === "string" ? [e.code] : e.name === "TimeoutError" ? ["TimeoutError"] : [];
  const inner = Array.isArray(e.errors) ? e.errors.flatMap(errorCodes) : [];
  return [...own, ...inner, ...errorCodes(e.cause)];
}
