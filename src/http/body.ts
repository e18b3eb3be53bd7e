import type { IncomingMessage } from "node:http";
import { errorReply, type JsonReply } from "./respond.js";

/** The largest request body accepted: a draft is at most 4096 characters, so 64 KiB is ample. */
export const MAX_BODY_BYTES = 64 * 1024;

/** What reading a JSON body came to: the parsed value, a refusal to send back, or a client that left. */
export type BodyResult =
  | { readonly kind: "json"; readonly value: unknown }
  | { readonly kind: "refused"; readonly reply: JsonReply }
  | { readonly kind: "aborted" };

/** True for `application/json`, with or without parameters; any charset other than UTF-8 is refused. */
export function isJsonContentType(header: string | undefined): boolean {
  if (header === undefined) return false;
  const [type, ...params] = header.split(";").map((p) => p.trim().toLowerCase());
  if (type !== "application/json") return false;
  const charset = params
    .find((p) => p.startsWith("charset="))
    ?.slice("charset=".length)
    .replace(/"/g, "");
  return charset === undefined || charset === "utf-8" || charset === "utf8";
}

function tooLarge(limitBytes: number): BodyResult {
  return {
    kind: "refused",
    reply: errorReply(
      413,
      `the request body is larger than ${limitBytes} bytes; send one draft payload (draft_text is at most 4096 characters)`,
      undefined,
      {
        Connection: "close",
      },
    ),
  };
}

/**
 * How much of an oversized body is read and thrown away before the 413 is
 * answered. curl, Python's urllib and Node's fetch all send the whole body
 * before they read an answer; a server that answers and closes mid-upload
 * gives urllib a "Broken pipe" instead of the 413. Past this (or past
 * DISCARD_WINDOW_MS) the 413 is answered anyway and the connection closed.
 */
export const MAX_DISCARD_BYTES = 16 * 1024 * 1024;
/** How long the rest of an oversized body is waited for before the 413 is answered regardless. */
export const DISCARD_WINDOW_MS = 2_000;

/**
 * Reads a JSON request body without ever holding more than `limitBytes` of it.
 * A body over the limit is refused with a 413 once it has been read to its
 * end and discarded (not buffered), so every common client reads the answer;
 * a declared Content-Length past MAX_DISCARD_BYTES is refused at once.
 * Malformed JSON and invalid UTF-8 are refused with a 400 that says so.
 */
export function readJsonBody(req: IncomingMessage, limitBytes: number = MAX_BODY_BYTES): Promise<BodyResult> {
  const declared = Number(req.headers["content-length"]);
  if (Number.isFinite(declared) && declared > limitBytes + MAX_DISCARD_BYTES) return Promise.resolve(tooLarge(limitBytes));
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    let window: NodeJS.Timeout | undefined;
    const finish = (result: BodyResult) => {
      if (done) return;
      done = true;
      clearTimeout(window);
      req.off("data", onData);
      req.off("end", onEnd);
      chunks.length = 0;
      resolve(result);
    };
    const discarding = () => size > limitBytes || (Number.isFinite(declared) && declared > limitBytes);
    const startWindow = () => {
      window ??= setTimeout(() => {
        finish(tooLarge(limitBytes));
        // Keep the stream flowing with no listener: Node discards the rest instead of buffering it.
        req.resume();
      }, DISCARD_WINDOW_MS);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (!discarding()) return void chunks.push(chunk);
      chunks.length = 0;
      startWindow();
      if (size > limitBytes + MAX_DISCARD_BYTES) {
        finish(tooLarge(limitBytes));
        req.resume();
      }
    };
    const onEnd = () => finish(discarding() ? tooLarge(limitBytes) : parseJson(Buffer.concat(chunks, size)));
    if (discarding()) startWindow();
    req.on("data", onData);
    req.on("end", onEnd);
    req.on("error", () => finish({ kind: "aborted" }));
    req.on("close", () => finish({ kind: "aborted" }));
  });
}

function parseJson(bytes: Buffer): BodyResult {
  const malformed = (why: string): BodyResult => ({
    kind: "refused",
    reply: errorReply(400, `the request body is not valid JSON (${why}); send one draft payload as a JSON object`, "body"),
  });
  if (bytes.length === 0) return malformed("it is empty");
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return malformed("it is not UTF-8");
  }
  try {
    return { kind: "json", value: JSON.parse(text) as unknown };
  } catch (err) {
    return malformed((err as Error).message);
  }
}
