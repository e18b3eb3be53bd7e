/**
 * A refusal in Telegram's words. Handlers throw it; the server turns it into
 * `{"ok":false,"error_code":N,"description":"...","parameters":{...}}` with the
 * same HTTP status, exactly as the Bot API does.
 */
export class ApiError extends Error {
  override readonly name = "ApiError";
  constructor(
    /** The HTTP status and `error_code`, e.g. 400. */
    readonly errorCode: number,
    /** Telegram's description, e.g. "Bad Request: chat not found". */
    readonly description: string,
    /** Seconds to wait, only with 429; sent as `parameters.retry_after`. */
    readonly retryAfterSeconds?: number,
    /** Only for a group that became a supergroup; sent as `parameters.migrate_to_chat_id`. */
    readonly migrateToChatId?: number,
  ) {
    super(`${errorCode}: ${description}`);
  }
}

/** 400 with "Bad Request: " prefixed to `what`. */
export function badRequest(what: string): ApiError {
  return new ApiError(400, `Bad Request: ${what}`);
}

/** Telegram's answer for a basic group that was upgraded to a supergroup (any call on the old id). */
export function migrated(toChatId: number): ApiError {
  return new ApiError(400, "Bad Request: group chat was upgraded to a supergroup chat", undefined, toChatId);
}

/** 403 with "Forbidden: " prefixed to `what`. */
export function forbidden(what: string): ApiError {
  return new ApiError(403, `Forbidden: ${what}`);
}

/** 429 "Too Many Requests: retry after N", N whole seconds and at least 1. */
export function tooManyRequests(retryAfterSeconds: number): ApiError {
  const seconds = Math.max(1, Math.ceil(retryAfterSeconds));
  return new ApiError(429, `Too Many Requests: retry after ${seconds}`, seconds);
}

/** The answer for a token Telegram does not know. */
export const UNAUTHORIZED = (): ApiError => new ApiError(401, "Unauthorized");

/** The answer for a method Telegram does not have (or a path that is no method). */
export const NOT_FOUND = (): ApiError => new ApiError(404, "Not Found");

/** The Bot API's JSON envelope of a refusal. */
export interface ErrorBody {
  ok: false;
  error_code: number;
  description: string;
  parameters?: { retry_after?: number; migrate_to_chat_id?: number };
}

/** Renders an `ApiError` as the Bot API's JSON envelope. */
export function errorBody(error: ApiError): ErrorBody {
  const body: ErrorBody = { ok: false, error_code: error.errorCode, description: error.description };
  if (error.retryAfterSeconds !== undefined) body.parameters = { retry_after: error.retryAfterSeconds };
  if (error.migrateToChatId !== undefined) body.parameters = { migrate_to_chat_id: error.migrateToChatId };
  return body;
}
