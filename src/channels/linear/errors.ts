/**
 * What an error from @linear/sdk means for a message: refused for good, rate
 * limited, provably not sent, or unknown. The SDK (88.3.0) throws a
 * LinearError whose `type` it takes from the first GraphQL error's
 * `extensions.type`, or from the HTTP status when there is none; a failure
 * before any answer (connection refused, timeout, reset) comes as
 * UnknownLinearError with no status and the fetch error in `raw`. Linear
 * sends a rate limit as HTTP 400 with `extensions.code` "RATELIMITED" and
 * no `type`, which the SDK calls Unknown: the code is read here too.
 */
import { LinearError, LinearErrorType } from "@linear/sdk";
import { UNREACHED_CODES } from "../unreached.js";

/** An error's meaning: the outcome kind and words for the owner. */
export interface LinearFailure {
  readonly kind: "refused" | "retry_after" | "not_sent" | "unknown";
  readonly reason: string;
  /** For `retry_after`: how long Linear asks us to wait, in whole seconds (at least 1). */
  readonly seconds: number;
  /** Linear refused the API key (or its permission to read): the channel's credentials. */
  readonly credentials: boolean;
  /** The entity Linear said it could not find ("Issue", "Comment"), with the query path it was on. */
  readonly notFound: { readonly entity: string; readonly path: string | null } | null;
  /** Linear refused the input (invalid input other than a missing entity). */
  readonly invalidInput: boolean;
}

/** Without a reset time, wait this long after a rate limit. */
const DEFAULT_WAIT_SECONDS = 60;

const failure = (kind: LinearFailure["kind"], reason: string, more: Partial<LinearFailure> = {}): LinearFailure => ({
  kind,
  reason,
  seconds: 0,
  credentials: false,
  notFound: null,
  invalidInput: false,
  ...more,
});

/** Every `code` and `name` down an error's cause chain (and an AggregateError's errors). */
function causeCodes(error: unknown, depth = 0): string[] {
  if (typeof error !== "object" || error === null || depth > 5) return [];
  const e = error as { code?: unknown; name?: unknown; cause?: unknown; errors?: unknown };
  const own = [e.code, e.name].filter((c): c is string => typeof c === "string");
  const nested = Array.isArray(e.errors) ? e.errors.flatMap((x) => causeCodes(x, depth + 1)) : [];
  return [...own, ...causeCodes(e.cause, depth + 1), ...nested];
}

/** No answer came: not sent when the connection was never made, unknown otherwise. */
function withoutAnswer(raw: unknown, timeoutSeconds: number): LinearFailure {
  const codes = causeCodes(raw);
  const before = codes.find((c) => UNREACHED_CODES.has(c));
  if (before !== undefined) return failure("not_sent", `Linear could not be reached (${before})`);
  if (codes.includes("TimeoutError") || codes.includes("AbortError")) {
    return failure("unknown", `Linear did not answer within ${timeoutSeconds} s`);
  }
  const code = codes.find((c) => c !== "TypeError" && c !== "Error") ?? "connection lost";
  return failure("unknown", `the connection to Linear broke before its answer (${code})`);
}

function headerNumber(headers: Headers | undefined, name: string): number | null {
  const text = headers?.get(name);
  if (text === null || text === undefined || text.trim() === "") return null;
  const n = Number(text);
  return Number.isFinite(n) ? n : null;
}

/**
 * How long a rate limit asks us to wait, in seconds (at least 1): Retry-After
 * when sent, else the latest reset among the exhausted budgets
 * (X-RateLimit-Requests-Reset, -Complexity-Reset: ms since the epoch; a
 * value that reads as seconds is taken as seconds), else a minute.
 */
export function rateLimitWaitSeconds(headers: Headers | undefined, nowMs: number): number {
  const retryAfter = headerNumber(headers, "retry-after");
  if (retryAfter !== null && retryAfter > 0) return Math.max(1, Math.ceil(retryAfter));
  const budgets = ["requests", "complexity", "endpoint-requests"].map((b) => ({
    reset: headerNumber(headers, `x-ratelimit-${b}-reset`),
    remaining: headerNumber(headers, `x-ratelimit-${b}-remaining`),
  }));
  const known = budgets.filter((b) => b.reset !== null);
  const exhausted = known.filter((b) => b.remaining === null || b.remaining <= 0);
  const resets = (exhausted.length > 0 ? exhausted : known).map((b) =>
    (b.reset as number) < 1e11 ? (b.reset as number) * 1000 : (b.reset as number),
  );
  if (resets.length === 0) return DEFAULT_WAIT_SECONDS;
  return Math.max(1, Math.ceil((Math.max(...resets) - nowMs) / 1000));
}

/** The raw GraphQL errors and headers of an answer, as the SDK keeps them in `raw`. */
function answerOf(e: LinearError): { codes: string[]; headers: Headers | undefined; firstPath: string | null; rawMessage: string } {
  const response = (e.raw as { response?: { errors?: unknown; headers?: unknown } } | undefined)?.response;
  const errors = Array.isArray(response?.errors) ? (response.errors as { message?: unknown; extensions?: { code?: unknown } }[]) : [];
  const codes = errors.map((x) => x?.extensions?.code).filter((c): c is string => typeof c === "string");
  const headers = response?.headers instanceof Headers ? response.headers : undefined;
  const path = e.errors?.[0]?.path?.[0];
  const rawMessage = typeof errors[0]?.message === "string" ? errors[0].message : "";
  return { codes, headers, firstPath: path === undefined ? null : String(path), rawMessage };
}

/**
 * The entity Linear could not find. The SDK keeps the user-presentable
 * message ("Could not find referenced Issue."); the raw one says
 * "Entity not found: Issue".
 */
function missingEntity(rawMessage: string, sdkMessage: string): string | null {
  return /Entity not found: (\w+)/.exec(rawMessage)?.[1] ?? /Could not find referenced (\w+)/.exec(sdkMessage)?.[1] ?? null;
}

/** Shortens and cleans a message from Linear for a phone. */
function words(text: string | undefined, scrub: (s: string) => string): string {
  const one = scrub(text ?? "")
    .replace(/\s+/g, " ")
    .trim();
  return one.length > 160 ? `${one.slice(0, 159)}…` : one;
}

/** An answer Linear gave with an error in it. */
function answered(e: LinearError, status: number | undefined, nowMs: number, scrub: (s: string) => string): LinearFailure {
  const { codes, headers, firstPath, rawMessage } = answerOf(e);
  const message = words(e.errors?.[0]?.message ?? e.message, scrub);
  if (e.type === LinearErrorType.Ratelimited || codes.includes("RATELIMITED") || status === 429) {
    const seconds = rateLimitWaitSeconds(headers, nowMs);
    return failure("retry_after", `Linear's rate limit, wait ${seconds} s`, { seconds });
  }
  switch (e.type) {
    case LinearErrorType.AuthenticationError:
      return failure("refused", "Linear refused the API key: set a valid LINEAR_API_KEY (Settings → Security & access)", {
        credentials: true,
      });
    case LinearErrorType.Forbidden:
      return failure("refused", `Linear forbids this to the key's owner: ${message || "forbidden"}`);
    case LinearErrorType.InvalidInput: {
      const entity = missingEntity(rawMessage, e.errors?.[0]?.message ?? "");
      if (entity === null) return failure("refused", `Linear refused it: ${message}`, { invalidInput: true });
      return failure("refused", `${entity.toLowerCase()} not found in Linear`, { notFound: { entity, path: firstPath } });
    }
    case LinearErrorType.LockTimeout:
      return failure("not_sent", "Linear was busy (lock timeout)");
    case LinearErrorType.InternalError:
    case LinearErrorType.NetworkError:
      return failure("unknown", `Linear failed (HTTP ${status ?? "?"})`);
    case LinearErrorType.FeatureNotAccessible:
    case LinearErrorType.UsageLimitExceeded:
    case LinearErrorType.UserError:
    case LinearErrorType.GraphqlError:
      return failure("refused", `Linear refused it: ${message}`);
    default:
      return untyped(status, message);
  }
}

/** An error of a type this code does not know (Unknown, Other, a new one): by its HTTP status. */
function untyped(status: number | undefined, message: string): LinearFailure {
  if (status !== undefined && status >= 400 && status < 500) return failure("refused", `Linear refused it (HTTP ${status}): ${message}`);
  if (status !== undefined && status >= 500) return failure("unknown", `Linear failed (HTTP ${status})`);
  return failure("unknown", `Linear answered an error (HTTP ${status ?? "?"})`);
}

/**
 * The meaning of an error thrown by the SDK. `timeoutSeconds` names the
 * request timeout in the words; `scrub` removes the API key from any text.
 */
export function classifyLinearError(error: unknown, nowMs: number, timeoutSeconds: number, scrub: (s: string) => string): LinearFailure {
  if (!(error instanceof LinearError)) return withoutAnswer(error, timeoutSeconds);
  const status = error.status;
  if (status === undefined) return withoutAnswer(error.raw, timeoutSeconds);
  return answered(error, status, nowMs, scrub);
}
