import type { IncomingMessage } from "node:http";
import { badRequest } from "./errors.js";
import type { Params } from "./params.js";

/** Bodies above this are refused; we send text, never files. */
const MAX_BODY_BYTES = 10 * 1024 * 1024;

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new Error("telegram double: request body too large");
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

function parseMultipart(body: string, boundary: string): Params {
  const params: Params = {};
  for (const part of body.split(`--${boundary}`)) {
    const split = part.indexOf("\r\n\r\n");
    if (split < 0) continue;
    const name = /name="([^"]*)"/i.exec(part.slice(0, split))?.[1];
    if (name !== undefined) params[name] = part.slice(split + 4).replace(/\r\n$/, "");
  }
  return params;
}

/**
 * The call's parameters from the query string and the body (JSON,
 * url-encoded or multipart text fields), as the Bot API accepts them all.
 */
export async function readParams(req: IncomingMessage, url: URL): Promise<Params> {
  const params: Params = Object.fromEntries(url.searchParams);
  const body = await readBody(req);
  if (body.length === 0) return params;
  const type = (req.headers["content-type"] ?? "").toLowerCase();
  if (type.startsWith("application/json")) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(body.toString("utf8"));
    } catch {
      throw badRequest("can't parse JSON encoded request");
    }
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw badRequest("JSON object expected");
    return { ...params, ...(parsed as Params) };
  }
  if (type.startsWith("multipart/form-data")) {
    const boundary = /boundary=("?)([^";]+)\1/i.exec(req.headers["content-type"] ?? "")?.[2] ?? "";
    return { ...params, ...parseMultipart(body.toString("utf8"), boundary) };
  }
  return { ...params, ...Object.fromEntries(new URLSearchParams(body.toString("utf8"))) };
}
