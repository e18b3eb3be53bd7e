import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { readParams } from "./body.js";
import { ApiError, errorBody, NOT_FOUND, UNAUTHORIZED } from "./errors.js";
import type { DueFaults, FaultPlan } from "./faults.js";
import type { CallJournal } from "./journal.js";
import { handlerFor, type DoubleState, type Handler } from "./methods/index.js";
import type { CallOutcome, CallRecord } from "./types.js";

/** What the HTTP layer needs: the token to accept, the state, the faults, the journal. */
export interface ServerDeps {
  token: string;
  state: DoubleState;
  faults: FaultPlan;
  journal: CallJournal;
}

/** The HTTP server and a way to close it at once, held polls and idle keep-alive sockets included. */
export interface ApiServer {
  server: Server;
  destroyAll(): void;
}

function reply(res: ServerResponse, status: number, body: unknown): void {
  if (res.destroyed || res.writableEnded) return;
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  res.end(text);
}

function replyError(res: ServerResponse, error: ApiError): CallOutcome {
  reply(res, error.errorCode, errorBody(error));
  return { kind: "error", errorCode: error.errorCode, description: error.description };
}

/** Aborts when the client goes away before the answer is written. */
function clientGone(res: ServerResponse): AbortSignal {
  const controller = new AbortController();
  res.on("close", () => {
    if (!res.writableFinished) controller.abort(new Error("client went away"));
  });
  return controller.signal;
}

async function run(
  handler: Handler,
  params: Record<string, unknown>,
  deps: ServerDeps,
  signal: AbortSignal,
): Promise<{ result: unknown } | { error: ApiError } | { aborted: true }> {
  try {
    return { result: await handler(params, deps.state, signal) };
  } catch (error) {
    if (error instanceof ApiError) return { error };
    if (signal.aborted) return { aborted: true };
    console.error("telegram double: handler failed", error);
    return { error: new ApiError(500, "Internal Server Error") };
  }
}

async function answer(
  req: IncomingMessage,
  res: ServerResponse,
  record: CallRecord,
  handler: Handler,
  due: DueFaults,
  deps: ServerDeps,
): Promise<CallOutcome> {
  const signal = clientGone(res);
  if (due.delayMs > 0) await new Promise((r) => setTimeout(r, due.delayMs));
  if (due.disruption?.kind === "fail") {
    await due.disruption.until?.().catch(() => {});
    return replyError(res, due.disruption.error);
  }
  const outcome = await run(handler, record.params, deps, signal);
  const late = due.disruption?.kind === "late" ? due.disruption.ms : 0;
  if (late > 0) await new Promise((r) => setTimeout(r, late));
  if (due.disruption?.kind === "held") await due.disruption.until("result" in outcome ? outcome.result : undefined).catch(() => {});
  if (due.disruption?.kind === "drop") {
    req.socket.destroy();
    return "result" in outcome
      ? { kind: "dropped", result: outcome.result }
      : { kind: "dropped", errorCode: "error" in outcome ? outcome.error.errorCode : undefined };
  }
  if ("aborted" in outcome || signal.aborted) return { kind: "aborted" };
  if ("error" in outcome) return replyError(res, outcome.error);
  reply(res, 200, { ok: true, result: outcome.result });
  return { kind: "ok", result: outcome.result };
}

async function route(req: IncomingMessage, res: ServerResponse, deps: ServerDeps): Promise<void> {
  const url = new URL(req.url ?? "/", "http://double.invalid");
  const [, token, method] = /^\/bot([^/]+)\/([^/]+)\/?$/.exec(url.pathname) ?? [];
  if (token === undefined || method === undefined) return void replyError(res, NOT_FOUND());
  const handler = token === deps.token ? handlerFor(method) : undefined;
  const due = handler ? deps.faults.take(method) : { delayMs: 0, disruption: undefined };
  if (due.disruption?.kind === "reset") {
    req.socket.destroy();
    return deps.journal.finish(deps.journal.begin(method, {}), { kind: "reset" });
  }
  let params: Record<string, unknown>;
  try {
    params = await readParams(req, url);
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    return deps.journal.finish(deps.journal.begin(method, {}), replyError(res, error));
  }
  const record = deps.journal.begin(method, params);
  if (token !== deps.token) return deps.journal.finish(record, replyError(res, UNAUTHORIZED()));
  if (!handler) return deps.journal.finish(record, replyError(res, NOT_FOUND()));
  deps.journal.finish(record, await answer(req, res, record, handler, due, deps));
}

/** Creates (not yet listening) the Bot API server: `/bot<token>/<method>`, GET or POST. */
export function createApiServer(deps: ServerDeps): ApiServer {
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    route(req, res, deps).catch((error: unknown) => {
      console.error("telegram double: request failed", error);
      if (!res.headersSent) reply(res, 500, { ok: false, error_code: 500, description: "Internal Server Error" });
    });
  });
  // Longer than a client's idle keep-alive, so an idle socket is never closed under a request in flight
  // (that race would look like a dropped answer); stop() destroys sockets anyway.
  server.keepAliveTimeout = 65_000;
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  return {
    server,
    destroyAll: () => {
      for (const socket of sockets) socket.destroy();
    },
  };
}
