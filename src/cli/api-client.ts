import { request } from "node:http";
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
 * One request to the daemon's API. Resolves with any HTTP answer (the caller
 * maps statuses to exit codes); rejects with a CliFailure that says what to do
 * when there is no answer: the daemon not running, no answer in time, or
 * something that does not speak the API on that port.
 */
export function callApi(
  target: ApiTarget,
  token: string,
  call: { readonly method: "GET" | "POST"; readonly path: string; readonly body?: string; readonly timeoutMs?: number },
): Promise<ApiAnswer> {
  return new Promise((resolvePromise, reject) => {
    const headers: Record<string, string | number> = { Authorization: `Bearer ${token}`, Accept: "application/json" };
    if (call.body !== undefined) {
      headers["Content-Type"] = "application/json";
      headers["Content-Length"] = Buffer.byteLength(call.body, "utf8");
    }
    const req = request({ host: target.host, port: target.port, method: call.method, path: call.path, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("error", (err) => reject(noAnswer(target, err)));
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        try {
          resolvePromise({ status: res.statusCode ?? 0, body: JSON.parse(text) as unknown });
        } catch {
          reject(new CliFailure(`${target.url} answered ${res.statusCode} with something that is not JSON: is another program listening on DRAFT_API_PORT=${target.port}?`));
        }
      });
    });
    req.setTimeout(call.timeoutMs ?? API_TIMEOUT_MS, () => {
      req.destroy(Object.assign(new Error("timeout"), { code: "ETIMEDOUT_CLI" }));
    });
    req.on("error", (err) => reject(noAnswer(target, err)));
    req.end(call.body);
  });
}

/** The daemon's port refused the connection: nothing listens there, so the daemon is not running. */
export class DaemonNotRunning extends CliFailure {
  /** Marks the failure for callers that have another way (the CLI reads the store). */
  readonly daemonNotRunning = true;
}

/** The operator's message for a request that got no answer. */
function noAnswer(target: ApiTarget, err: Error): CliFailure {
  const codes = errorCodes(err);
  if (codes.includes("ECONNREFUSED")) {
    return new DaemonNotRunning(`the daemon is not running at ${target.url}: start it with \`npm start\``);
  }
  if (codes.includes("ETIMEDOUT_CLI")) {
    return new CliFailure(
      `no answer from the daemon at ${target.url} within ${Math.round(API_TIMEOUT_MS / 1000)}s; a submitted draft may or may not have been accepted: if it had an idempotency_key, submit it again to find out`,
    );
  }
  if (codes.includes("ENOTFOUND") || codes.includes("EAI_AGAIN")) {
    return new CliFailure(`DRAFT_API_HOST=${target.host} does not resolve; use the daemon's address (default 127.0.0.1)`);
  }
  return new CliFailure(`the daemon at ${target.url} could not be reached or hung up (${codes[0] ?? err.message}); check that it is running (\`npm start\`) and see its log`);
}

/** The error codes in an error, including those of an AggregateError (IPv4 and IPv6 both tried). */
function errorCodes(err: unknown): string[] {
  const e = err as { code?: unknown; errors?: unknown };
  const own = typeof e?.code === "string" ? [e.code] : [];
  const inner = Array.isArray(e?.errors) ? e.errors.flatMap(errorCodes) : [];
  return [...own, ...inner];
}
