/**
 * What a failed Web API call came to, read from the errors @slack/web-api
 * throws, so that each use (a send, an audience read, a lookup, auth.test)
 * decides from one plain value instead of poking at the library's classes.
 *
 * With `rejectRateLimitedCalls: true` and `retryConfig: {retries: 0}` the
 * library (WebClient.makeRequest, 8.2.0) throws:
 * - `WebAPIPlatformError` (code slack_webapi_platform_error) when Slack
 *   answered `{"ok": false, "error": "…"}`; `data.response_metadata.retryAfter`
 *   carries a Retry-After header if there was one;
 * - `WebAPIRateLimitedError` (…rate_limited_error, `retryAfter` in seconds)
 *   for an HTTP 429 with a numeric Retry-After; a 429 without one is a plain
 *   Error "Retry header did not contain a valid timeout…";
 * - `WebAPIHTTPError` (…http_error, `statusCode`) for any other status but 200;
 * - `WebAPIRequestError` (…request_error, `original`) when fetch itself failed:
 *   the cause chain carries the socket's code (ECONNREFUSED, ECONNRESET,
 *   UND_ERR_SOCKET) or the timeout's DOMException ("TimeoutError").
 */
import { ErrorCode } from "@slack/web-api";
import { UNREACHED_CODES } from "../unreached.js";

/** One failed call, as the channel reasons about it. */
export type SlackFailure =
  /** Slack answered ok:false with this error code. */
  | { readonly kind: "platform"; readonly code: string; readonly retryAfterSeconds: number | null; readonly needed?: string }
  /** HTTP 429: wait this many seconds (null: Slack sent no usable Retry-After). */
  | { readonly kind: "rate_limited"; readonly retryAfterSeconds: number | null }
  /** Another HTTP status than 200. */
  | { readonly kind: "http"; readonly status: number }
  /** The request could not be made: nothing reached Slack (connection refused, DNS, TLS). */
  | { readonly kind: "unreached"; readonly detail: string }
  /** The connection failed after the request was written, or the call timed out: Slack may have acted. */
  | { readonly kind: "lost"; readonly detail: string }
  /** Anything else (a bug, an unexpected throw): said as it is. */
  | { readonly kind: "other"; readonly detail: string };

/** The failure a thrown value stands for. */
export function readSlackError(error: unknown): SlackFailure {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === ErrorCode.PlatformError) {
    const data = (error as { data?: { error?: unknown; needed?: unknown; response_metadata?: { retryAfter?: unknown } } }).data;
    const retryAfter = data?.response_metadata?.retryAfter;
    return {
      kind: "platform",
      code: typeof data?.error === "string" ? data.error : "unknown_error",
      retryAfterSeconds: typeof retryAfter === "number" ? retryAfter : null,
      // missing_scope answers name the scope the method needs.
      ...(typeof data?.needed === "string" && /^[a-z:.,_]+$/.test(data.needed) ? { needed: data.needed } : {}),
    };
  }
  if (code === ErrorCode.RateLimitedError) {
    const seconds = (error as { retryAfter?: unknown }).retryAfter;
    return { kind: "rate_limited", retryAfterSeconds: typeof seconds === "number" ? seconds : null };
  }
  if (code === ErrorCode.HTTPError) return { kind: "http", status: Number((error as { statusCode?: unknown }).statusCode) };
  if (code === ErrorCode.RequestError) return readRequestError((error as { original?: unknown }).original);
  const message = error instanceof Error ? error.message : String(error);
  if (message.startsWith("Retry header did not contain a valid timeout")) return { kind: "rate_limited", retryAfterSeconds: null };
  return { kind: "other", detail: message };
}

/** fetch's own failure: unreached when every code in its cause chain says so, lost otherwise. */
function readRequestError(original: unknown): SlackFailure {
  const codes = socketCodes(original);
  const name = (original as { name?: unknown } | null)?.name;
  if (name === "TimeoutError" || name === "AbortError") return { kind: "lost", detail: "no answer in time" };
  if (codes.length > 0 && codes.every((c) => UNREACHED_CODES.has(c))) return { kind: "unreached", detail: codes[0]! };
  return { kind: "lost", detail: codes[0] ?? (original instanceof Error ? original.message : "the connection failed") };
}

/** Every `code` along the cause chain (and inside an AggregateError, as happy eyeballs throws one). */
function socketCodes(error: unknown, depth = 0): string[] {
  if (error === null || typeof error !== "object" || depth > 5) return [];
  const own = (error as { code?: unknown }).code;
  const codes = typeof own === "string" ? [own] : [];
  const inner = (error as { errors?: unknown }).errors;
  if (Array.isArray(inner)) for (const e of inner) codes.push(...socketCodes(e, depth + 1));
  codes.push(...socketCodes((error as { cause?: unknown }).cause, depth + 1));
  return codes;
}

/** Codes by which Slack says the token itself is refused: the channel is halted until it is replaced. */
export const TOKEN_REFUSED_CODES = new Set(["invalid_auth", "not_authed", "token_revoked", "token_expired", "account_inactive"]);

/** A short phrase for a failure, for reasons and lines (never a token: none is ever in these values). */
export function describeFailure(failure: SlackFailure): string {
  switch (failure.kind) {
    case "platform":
      if (TOKEN_REFUSED_CODES.has(failure.code)) return `Slack refused the token (${failure.code})`;
      return failure.needed === undefined
        ? `Slack answered ${failure.code}`
        : `Slack answered ${failure.code} (the token needs ${failure.needed})`;
    case "rate_limited":
      return "Slack rate-limited the call";
    case "http":
      return `Slack answered HTTP ${failure.status}`;
    case "unreached":
      return `Slack could not be reached (${failure.detail})`;
    case "lost":
      return `the answer from Slack was lost (${failure.detail})`;
    case "other":
      return `the Slack call failed (${failure.detail})`;
  }
}
