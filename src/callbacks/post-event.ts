import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import type { Clock } from "../clock/clock.js";

/** What one POST to the receiver came to. */
export type PostOutcome =
  | { readonly ok: true; readonly status: number }
  | {
      readonly ok: false;
      /** One line for the operator: the HTTP status and the start of the answer, or the network error. */
      readonly error: string;
      /** Seconds from a Retry-After header (429/503), if the receiver sent one. */
      readonly retryAfterSeconds?: number;
    };

/** One request to make. */
export interface CallbackRequest {
  readonly url: URL;
  readonly body: string;
  readonly headers: Readonly<Record<string, string>>;
  /** The whole exchange (connect, send, answer) must end within this. */
  readonly timeoutMs: number;
  /** Clock whose timer cuts a request that takes too long. */
  readonly clock: Clock;
  /** Aborts the request (the daemon is stopping). */
  readonly signal?: AbortSignal;
}

/** The most of an answer's body read (for the error message); the rest is never read. */
const MAX_ANSWER_BYTES = 512;

/**
 * POSTs one callback and reports the outcome; never throws. The receiver
 * cannot hold the daemon: the exchange is cut at `timeoutMs` (on the injected
 * clock), a 2xx is taken as soon as its status line arrives, and at most
 * 512 bytes of any other answer are read. Redirects are not followed.
 */
export function postCallback(r: CallbackRequest): Promise<PostOutcome> {
  return new Promise((resolve) => {
    let settled = false;
    const request = r.url.protocol === "https:" ? httpsRequest : httpRequest;
    const req = request(r.url, {
      method: "POST",
      agent: false,
      headers: { ...r.headers, "Content-Type": "application/json", "Content-Length": String(Buffer.byteLength(r.body)) },
    });
    const finish = (outcome: PostOutcome) => {
      if (settled) return;
      settled = true;
      r.clock.clearTimeout(timer);
      r.signal?.removeEventListener("abort", onAbort);
      req.destroy();
      resolve(outcome);
    };
    const timer = r.clock.setTimeout(() => finish({ ok: false, error: `no answer within ${r.timeoutMs} ms` }), r.timeoutMs);
    const onAbort = () => finish({ ok: false, error: "stopped: the daemon is shutting down" });
    r.signal?.addEventListener("abort", onAbort);
    if (r.signal?.aborted) return onAbort();
    req.on("error", (err: NodeJS.ErrnoException) => finish({ ok: false, error: err.code ? `${err.code}: ${err.message}` : err.message }));
    req.on("response", (res) => {
      const status = res.statusCode ?? 0;
      if (status >= 200 && status < 300) return finish({ ok: true, status });
      readStart(res, (text) => finish(failure(res, status, text)));
    });
    req.end(r.body);
  });
}

/** The start of an answer's body, at most MAX_ANSWER_BYTES; calls `done` once. */
function readStart(res: IncomingMessage, done: (text: string) => void): void {
  const chunks: Buffer[] = [];
  let size = 0;
  let called = false;
  const end = () => {
    if (called) return;
    called = true;
    done(Buffer.concat(chunks).subarray(0, MAX_ANSWER_BYTES).toString("utf8"));
  };
  res.on("data", (c: Buffer) => {
    chunks.push(c);
    size += c.length;
    if (size >= MAX_ANSWER_BYTES) end();
  });
  res.on("end", end);
  res.on("error", end);
  res.on("close", end);
}

function failure(res: IncomingMessage, status: number, text: string): PostOutcome {
  const snippet = text.replace(/\s+/g, " ").trim().slice(0, 200);
  const retryAfter = Number(res.headers["retry-after"]);
  return {
    ok: false,
    error: `HTTP ${status}${snippet === "" ? "" : `: ${snippet}`}`,
    ...(Number.isFinite(retryAfter) && retryAfter >= 0 ? { retryAfterSeconds: retryAfter } : {}),
  };
}
