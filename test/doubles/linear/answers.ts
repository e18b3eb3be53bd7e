/**
 * Linear's error answers, as the API sends them and as @linear/sdk 88.3.0's
 * `parseLinearError` reads them: the SDK takes the error's class from the
 * first error's `extensions.type` ("invalid input", "forbidden",
 * "authentication error", "ratelimited", "lock timeout", …) and only when
 * there is no GraphQL error from the HTTP status (403 forbidden, 429 rate
 * limited, other 4xx authentication, 500 internal, other 5xx network).
 *
 * Shapes gathered from Linear's answers quoted in public code (the
 * extension fields `type`, `code`, `statusCode`, `userError`,
 * `userPresentableMessage`). The HTTP status that comes with each is less
 * certain (reports differ between 200 and the status in `statusCode`); the
 * channel's classification does not rest on it. Rate limiting follows
 * Linear's documentation: HTTP 400, `extensions.code` "RATELIMITED" (no
 * `type`, so the SDK calls it Unknown) and the X-RateLimit-* headers.
 */
import { GraphQLError } from "graphql";

/** One whole HTTP answer the double sends instead of executing a request. */
export interface LinearAnswer {
  readonly status: number;
  readonly headers?: Readonly<Record<string, string>>;
  /** A JSON body (sent as application/json) or text (sent as text/html). */
  readonly body: unknown;
}

function errorBody(message: string, extensions: Record<string, unknown>): unknown {
  return { errors: [{ message, extensions }], data: null };
}

/** The GraphQL error a resolver throws for a missing entity ("Entity not found: Issue"). */
export function notFoundError(entity: string): GraphQLError {
  return new GraphQLError(`Entity not found: ${entity}`, {
    extensions: {
      type: "invalid input",
      code: "INPUT_ERROR",
      statusCode: 400,
      userError: true,
      userPresentableMessage: `Could not find referenced ${entity}.`,
    },
  });
}

/** The GraphQL error for input Linear refuses (an id already taken, an empty body). */
export function invalidInputError(message: string, userPresentableMessage: string): GraphQLError {
  return new GraphQLError(message, {
    extensions: { type: "invalid input", code: "INPUT_ERROR", statusCode: 400, userError: true, userPresentableMessage },
  });
}

/** Ready-made answers for `failNext`. */
export const linearAnswers = {
  /** The entity (Issue, Comment) does not exist or the key's owner cannot see it. */
  notFound(entity = "Issue", status = 200): LinearAnswer {
    return { status, body: errorBody(`Entity not found: ${entity}`, notFoundError(entity).extensions) };
  },
  /** The key's owner may not do this. */
  forbidden(status = 403): LinearAnswer {
    return {
      status,
      body: errorBody("Forbidden", {
        type: "forbidden",
        code: "FORBIDDEN",
        statusCode: 403,
        userError: true,
        userPresentableMessage: "You don't have permission to do this.",
      }),
    };
  },
  /** The API key is not valid (revoked, mistyped). */
  authentication(): LinearAnswer {
    return {
      status: 401,
      body: errorBody("Authentication required, not authenticated", {
        type: "authentication error",
        code: "AUTHENTICATION_ERROR",
        statusCode: 401,
        userError: true,
        userPresentableMessage: "You need to authenticate to access this operation.",
        http: { status: 401 },
      }),
    };
  },
  /** Over the request budget; the budget refills at `resetAtMs` (ms since the epoch). */
  ratelimited(resetAtMs: number, opts: { retryAfterSeconds?: number } = {}): LinearAnswer {
    const headers: Record<string, string> = {
      "X-RateLimit-Requests-Limit": "5000",
      "X-RateLimit-Requests-Remaining": "0",
      "X-RateLimit-Requests-Reset": String(resetAtMs),
    };
    if (opts.retryAfterSeconds !== undefined) headers["Retry-After"] = String(opts.retryAfterSeconds);
    return { status: 400, headers, body: errorBody("Rate limit exceeded", { code: "RATELIMITED", statusCode: 429 }) };
  },
  /** Linear's database was busy: nothing was done. */
  lockTimeout(): LinearAnswer {
    return { status: 200, body: errorBody("Lock timeout", { type: "lock timeout", code: "LOCK_TIMEOUT", userError: false }) };
  },
  /** Linear failed inside: whether it did the work is not known. */
  internal(): LinearAnswer {
    return { status: 500, body: errorBody("Internal server error", { code: "INTERNAL_SERVER_ERROR" }) };
  },
  /** A proxy in front of Linear answered (no GraphQL body). */
  badGateway(): LinearAnswer {
    return { status: 502, body: "<html><body>502 Bad Gateway</body></html>" };
  },
} as const;
