/**
 * HTTP as a hostile client speaks it: raw bytes over a socket (duplicate
 * headers, oversized headers, lying lengths, invalid UTF-8), and a small
 * fetch wrapper that never throws on a non-JSON answer.
 */
import { connect } from "node:net";

/** What came back on a raw connection: the first response's status, headers and body (status 0: nothing). */
export interface RawAnswer {
  readonly status: number;
  readonly head: string;
  readonly body: string;
  /** Everything read, every response included. */
  readonly raw: string;
}

/**
 * Writes `request` to the server behind `baseUrl` as it is, half-closes after
 * `endAfterWrite`, and reads until the server closes or `timeoutMs` passes.
 */
export function rawRequest(baseUrl: string, request: Buffer | string, options: { timeoutMs?: number } = {}): Promise<RawAnswer> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve) => {
    const socket = connect({ host: hostname, port: Number(port) });
    const chunks: Buffer[] = [];
    let settled = false;
    const finish = () => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      const raw = Buffer.concat(chunks).toString("latin1");
      const headEnd = raw.indexOf("\r\n\r\n");
      const head = headEnd < 0 ? raw : raw.slice(0, headEnd);
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(raw)?.[1] ?? 0);
      const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? NaN);
      const rest = headEnd < 0 ? "" : Buffer.from(raw.slice(headEnd + 4), "latin1");
      const body = rest === "" ? "" : (Number.isFinite(length) ? rest.subarray(0, length) : rest).toString("utf8");
      resolve({ status, head, body, raw });
    };
    const timer = setTimeout(finish, options.timeoutMs ?? 5_000);
    socket.on("data", (c: Buffer) => {
      chunks.push(c);
      // One full response with a Content-Length is enough.
      const raw = Buffer.concat(chunks).toString("latin1");
      const headEnd = raw.indexOf("\r\n\r\n");
      if (headEnd < 0) return;
      const length = Number(/\r\ncontent-length: *(\d+)/i.exec(raw.slice(0, headEnd))?.[1] ?? NaN);
      if (Number.isFinite(length) && Buffer.byteLength(raw, "latin1") - headEnd - 4 >= length) finish();
    });
    socket.on("error", finish);
    socket.on("close", finish);
    socket.write(request);
  });
}

/** An HTTP/1.1 request as bytes: request line, headers as given (duplicates kept), body. */
export function httpBytes(
  method: string,
  path: string,
  headers: ReadonlyArray<readonly [string, string]>,
  body: Buffer | string = "",
): Buffer {
  const b = typeof body === "string" ? Buffer.from(body, "utf8") : body;
  const head = [`${method} ${path} HTTP/1.1`, "Host: 127.0.0.1", "Connection: close", ...headers.map(([k, v]) => `${k}: ${v}`)].join(
    "\r\n",
  );
  return Buffer.concat([Buffer.from(`${head}\r\n\r\n`, "latin1"), b]);
}

/** A fetch that returns status, raw text and the parsed JSON (or null). */
export async function fetchJson(url: string, init: RequestInit): Promise<{ status: number; text: string; json: any }> {
  const res = await fetch(url, init);
  const text = await res.text();
  let json: unknown = null;
  try {
    json = JSON.parse(text);
  } catch {
    json = null;
  }
  return { status: res.status, text, json };
}
