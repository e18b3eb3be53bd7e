import type { IncomingMessage } from "node:http";
import { badRequest } from "./errors.js";
import type { Params } from "./params.js";

/** Bodies above this are refused (Telegram takes photos up to 10 MB). */
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

/** A file part of a multipart upload (sendPhoto's `photo`), kept as bytes. */
export interface UploadedFile {
  readonly filename: string;
  readonly contentType: string | undefined;
  readonly data: Buffer;
}

/** Multipart fields: text parts as strings, file parts (a filename given) as `UploadedFile`, bytes intact. */
function parseMultipart(body: Buffer, boundary: string): Params {
  const params: Params = {};
  const delimiter = Buffer.from(`--${boundary}`);
  let at = body.indexOf(delimiter);
  while (at >= 0) {
    const next = body.indexOf(delimiter, at + delimiter.length);
    if (next < 0) break;
    const part = body.subarray(at + delimiter.length, next);
    at = next;
    const split = part.indexOf("\r\n\r\n");
    if (split < 0) continue;
    const head = part.toString("utf8", 0, split);
    const name = /name="([^"]*)"/i.exec(head)?.[1];
    if (name === undefined) continue;
    let content = part.subarray(split + 4);
    if (content.length >= 2 && content[content.length - 2] === 13 && content[content.length - 1] === 10) content = content.subarray(0, -2);
    // Quoted or not (grammY writes `filename=report.png`).
    const file = /filename=(?:"([^"]*)"|([^;\r\n]*))/i.exec(head);
    const filename = file ? (file[1] ?? file[2] ?? "") : undefined;
    if (filename === undefined) params[name] = content.toString("utf8");
    else
      params[name] = {
        filename,
        contentType: /content-type:\s*([^\r\n;]+)/i.exec(head)?.[1]?.trim(),
        data: Buffer.from(content),
      } satisfies UploadedFile;
  }
  return params;
}

/**
 * The call's parameters from the query string and the body (JSON,
 * url-encoded or multipart, files included), as the Bot API accepts them all.
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
    return { ...params, ...parseMultipart(body, boundary) };
  }
  return { ...params, ...Object.fromEntries(new URLSearchParams(body.toString("utf8"))) };
}
