import { badRequest } from "./errors.js";

/**
 * The parameters of one call. JSON bodies give typed values; query strings,
 * url-encoded and multipart bodies give strings (objects JSON-encoded), so every
 * reader below accepts both, as the Bot API does.
 */
export type Params = Record<string, unknown>;

/** An integer parameter, or undefined when absent; a malformed one is refused in Telegram's words. */
export function optInt(params: Params, name: string): number | undefined {
  const value = params[name];
  if (value === undefined || value === null || value === "") return undefined;
  const n = typeof value === "number" ? value : typeof value === "string" ? Number(value.trim()) : NaN;
  if (!Number.isSafeInteger(n)) throw badRequest(`invalid ${name} specified`);
  return n;
}

/** A string parameter (numbers are stringified), or undefined when absent. */
export function optString(params: Params, name: string): string | undefined {
  const value = params[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  throw badRequest(`field "${name}" must be of type String`);
}

/** A boolean parameter ("true"/"1" from forms), or undefined when absent. */
export function optBool(params: Params, name: string): boolean | undefined {
  const value = params[name];
  if (value === undefined || value === null || value === "") return undefined;
  if (typeof value === "boolean") return value;
  return value === "true" || value === "1" || value === 1;
}

/**
 * A JSON-typed parameter (reply_markup, allowed_updates, reaction, commands):
 * the value itself from a JSON body, or the decoded string from a form.
 * `unparsable` is Telegram's description when the string is not JSON.
 */
export function optJson(params: Params, name: string, unparsable: string): unknown {
  const value = params[name];
  if (value === undefined || value === null || value === "") return undefined;
  if (typeof value !== "string") return value;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    throw badRequest(unparsable);
  }
}

/** `chat_id` as given: a number, a numeric string, or an @username. */
export function chatIdParam(params: Params): number | string {
  const value = params["chat_id"];
  if (value === undefined || value === null || value === "") throw badRequest("chat_id is empty");
  if (typeof value === "number") return value;
  if (typeof value !== "string") throw badRequest("chat not found");
  const trimmed = value.trim();
  return /^-?\d+$/.test(trimmed) ? Number(trimmed) : trimmed;
}
