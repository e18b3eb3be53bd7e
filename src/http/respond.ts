import type { ServerResponse } from "node:http";

/** A JSON answer: the status code, the body, and any extra headers. */
export interface JsonReply {
  readonly status: number;
  readonly body: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}

/** Builds a reply; keeps route handlers one line each. */
export function reply(status: number, body: unknown, headers?: Record<string, string>): JsonReply {
  return headers === undefined ? { status, body } : { status, body, headers };
}

/** An error reply in the API's one error shape: `{"error": "...", "field"?: "..."}`. */
export function errorReply(status: number, error: string, field?: string, headers?: Record<string, string>): JsonReply {
  return reply(status, field === undefined ? { error } : { error, field }, headers);
}

/**
 * Writes a reply as JSON. Does nothing when the client has gone, so a late
 * answer to an aborted request never throws.
 */
export function writeReply(res: ServerResponse, answer: JsonReply): void {
  if (res.headersSent || res.writableEnded || res.destroyed) return;
  const text = `${JSON.stringify(answer.body)}\n`;
  res.statusCode = answer.status;
  res.setHeader("Content-Type", "application/json; charset=utf-8");
  res.setHeader("Content-Length", Buffer.byteLength(text, "utf8"));
  res.setHeader("Cache-Control", "no-store");
  res.setHeader("X-Content-Type-Options", "nosniff");
  for (const [name, value] of Object.entries(answer.headers ?? {})) res.setHeader(name, value);
  res.end(text);
}
