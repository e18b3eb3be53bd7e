import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { performance } from "node:perf_hooks";
import { BEARER_CHALLENGE, BearerAuth } from "./auth.js";
import type { EventFeed } from "../drafts/feed-event.js";
import type { ApiHealth, DraftIntake, DraftReader, HandlerDeps } from "./handlers.js";
import { apiRoutes, matchRoute, type Route } from "./routes.js";
import { errorReply, writeReply, type JsonReply } from "./respond.js";

/** The logger shape the API writes to (pino's). It never receives the token or the Authorization header. */
export interface ApiLog {
  debug(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/** What the intake API is built from. */
export interface ApiServerOptions {
  /** DRAFT_API_HOST; default 127.0.0.1. */
  readonly host?: string;
  /** DRAFT_API_PORT; default 8787. 0 picks a free port (tests). */
  readonly port?: number;
  /** The bearer token every route but /healthz requires. */
  readonly token: string;
  readonly intake: DraftIntake;
  readonly desk: DraftReader;
  readonly events: EventFeed;
  /** Serves `GET /status` (the live daemon passes it). */
  readonly status?: HandlerDeps["status"];
  /** Serves `POST /owner-switch` (the live daemon passes it). */
  readonly ownerSwitchNotice?: HandlerDeps["ownerSwitchNotice"];
  /** Serves `GET /healthz` (the live daemon passes it); absent: always ok. */
  readonly health?: ApiHealth;
  readonly log: ApiLog;
  /** Largest accepted request body; default 64 KiB. */
  readonly maxBodyBytes?: number;
  /** How long `close()` lets running requests finish before cutting them; default 5000. */
  readonly closeGraceMilliseconds?: number;
}

/** The running API: where it listens, and how to stop it. */
export interface ApiServer {
  /** e.g. `http://127.0.0.1:8787`. */
  readonly url: string;
  /** The bound port (the real one when 0 was asked for). */
  readonly port: number;
  /** Stops accepting, lets running requests finish (up to the grace period), then resolves. Idempotent. */
  close(): Promise<void>;
}

/** A request that stays open longer than this is cut (a slow or stuck client). */
const REQUEST_TIMEOUT_MS = 30_000;
/** Headers must arrive within this. */
const HEADERS_TIMEOUT_MS = 10_000;
/** An idle keep-alive connection is closed after this. */
const KEEP_ALIVE_TIMEOUT_MS = 5_000;

/**
 * Starts the local intake API on node:http: the contract's routes (see
 * routes.ts), bearer-token auth compared in constant time, bounded bodies,
 * JSON answers only. A failing handler answers 500 and is logged; a client
 * that goes away is not an error. Resolves once listening.
 */
export async function startApiServer(options: ApiServerOptions): Promise<ApiServer> {
  const host = options.host ?? "127.0.0.1";
  const auth = new BearerAuth(options.token);
  const routes = apiRoutes({
    intake: options.intake,
    desk: options.desk,
    events: options.events,
    maxBodyBytes: options.maxBodyBytes,
    status: options.status,
    ownerSwitchNotice: options.ownerSwitchNotice,
    health: options.health,
  });
  let closing = false;
  const server = createServer(
    { requestTimeout: REQUEST_TIMEOUT_MS, headersTimeout: HEADERS_TIMEOUT_MS, keepAlive: true, connectionsCheckingInterval: 5_000 },
    (req, res) => void serve(req, res, { routes, auth, log: options.log, closing: () => closing }),
  );
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  server.on("clientError", (err: NodeJS.ErrnoException, socket: Socket) => answerClientError(err, socket));
  await listen(server, host, options.port ?? 8787);
  server.on("error", (err) => options.log.error({ err }, "the intake API server failed"));
  const port = (server.address() as { port: number }).port;
  if (!isLoopback(host)) {
    options.log.warn(
      { host, port },
      "the intake API listens beyond this machine over plain HTTP: the bearer token crosses the network unencrypted; use DRAFT_API_HOST=127.0.0.1 unless a TLS proxy fronts it",
    );
  }
  let closed: Promise<void> | undefined;
  return {
    url: `http://${host.includes(":") ? `[${host}]` : host}:${port}`,
    port,
    close() {
      closing = true;
      closed ??= shutDown(server, options.closeGraceMilliseconds ?? 5_000);
      return closed;
    },
  };
}

interface ServeContext {
  readonly routes: readonly Route[];
  readonly auth: BearerAuth;
  readonly log: ApiLog;
  readonly closing: () => boolean;
}

async function serve(req: IncomingMessage, res: ServerResponse, ctx: ServeContext): Promise<void> {
  const started = performance.now();
  const rawUrl = req.url ?? "/";
  const q = rawUrl.indexOf("?");
  const path = q === -1 ? rawUrl : rawUrl.slice(0, q);
  const method = req.method ?? "GET";
  req.on("error", () => {}); // an aborted upload; the body reader reports it
  res.on("error", (err) => ctx.log.debug({ err: err.message, method, path }, "api: could not write the answer"));
  res.once("close", () => {
    const ms = Math.round((performance.now() - started) * 10) / 10;
    const status = res.writableFinished ? res.statusCode : "aborted";
    ctx.log.debug({ method, path, status, ms }, "api request");
  });
  let answer: JsonReply | null;
  try {
    answer = await route(req, method, path, q === -1 ? "" : rawUrl.slice(q + 1), ctx);
  } catch (err) {
    ctx.log.error({ err, method, path }, "api: the request failed with an unexpected error");
    answer = errorReply(500, "internal error");
  }
  if (!answer) return void res.destroy(); // the client left mid-request
  // While shutting down, no connection is kept for another request.
  if (ctx.closing() && !res.headersSent) res.setHeader("Connection", "close");
  writeReply(res, answer);
}

async function route(req: IncomingMessage, method: string, path: string, query: string, ctx: ServeContext): Promise<JsonReply | null> {
  const match = matchRoute(ctx.routes, path);
  if (!match)
    return errorReply(
      404,
      `no such endpoint: ${path}; the API has POST /drafts, GET /drafts?status=, GET /drafts/<draft_id>, GET /events?after=<seq>, GET /status, POST /owner-switch?action=, GET /healthz`,
    );
  const handler = match.route.methods[method];
  if (!handler) {
    const allow = Object.keys(match.route.methods).join(", ");
    return errorReply(405, `${method} is not allowed on ${path}; use ${allow}`, undefined, { Allow: allow });
  }
  // Node keeps only the first of several Authorization headers; an ambiguous credential is refused instead.
  const credentials = req.headersDistinct.authorization?.length ?? 0;
  if (handler.auth && (credentials > 1 || !ctx.auth.allows(req.headers.authorization))) {
    return errorReply(
      401,
      "missing or wrong bearer token: send Authorization: Bearer <token>, the value of DRAFT_API_TOKEN or of HARNESS_DIR/api_token",
      undefined,
      { "WWW-Authenticate": BEARER_CHALLENGE },
    );
  }
  return handler.handle({ req, query: new URLSearchParams(query), ...(match.draftId !== undefined ? { draftId: match.draftId } : {}) });
}

/** Answers a request Node could not parse (bad headers, too large headers) with JSON, then drops it. */
function answerClientError(err: NodeJS.ErrnoException, socket: Socket): void {
  if (err.code === "ECONNRESET" || !socket.writable) return void socket.destroy();
  const status = err.code === "HPE_HEADER_OVERFLOW" ? 431 : 400;
  const reason = status === 431 ? "Request Header Fields Too Large" : "Bad Request";
  const body = JSON.stringify({ error: status === 431 ? "the request headers are too large" : "the request is not valid HTTP/1.1" });
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

function listen(server: Server, host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (err: NodeJS.ErrnoException) => reject(new Error(listenProblem(err, host, port), { cause: err }));
    server.once("error", onError);
    server.listen({ host, port }, () => {
      server.off("error", onError);
      resolve();
    });
  });
}

/** Why the API could not listen, and what the operator can do about it. */
function listenProblem(err: NodeJS.ErrnoException, host: string, port: number): string {
  const where = `${host}:${port}`;
  switch (err.code) {
    case "EADDRINUSE":
      return `the intake API cannot listen on ${where}: the port is in use (is the daemon already running?). Stop the other process, or set DRAFT_API_PORT to a free port.`;
    case "EACCES":
      return `the intake API may not listen on ${where}: ports below 1024 need privileges. Set DRAFT_API_PORT to a port above 1023.`;
    case "EADDRNOTAVAIL":
    case "ENOTFOUND":
      return `the intake API cannot listen on ${where}: DRAFT_API_HOST is not an address of this machine. Use 127.0.0.1 (the default).`;
    default:
      return `the intake API cannot listen on ${where}: ${err.message}`;
  }
}

function isLoopback(host: string): boolean {
  return host === "localhost" || host === "::1" || /^127\./.test(host);
}

function shutDown(server: Server, graceMs: number): Promise<void> {
  return new Promise((resolve) => {
    const force = setTimeout(() => server.closeAllConnections(), graceMs);
    force.unref();
    server.close(() => {
      clearTimeout(force);
      resolve();
    });
    server.closeIdleConnections();
  });
}
