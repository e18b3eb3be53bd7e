/**
 * A test double of Linear's GraphQL API: a real HTTP server on 127.0.0.1
 * (port 0) that answers @linear/sdk as Linear does. Every query is parsed and
 * validated against Linear's published schema for the pinned SDK
 * (schema.graphql); a query that fails is answered HTTP 400 with the GraphQL
 * errors AND kept in `state.invalid`, so a test that leaves it non-empty has
 * found a query Linear would refuse. Valid queries execute against the
 * workspace the test seeded (`state.workspace`).
 *
 *   const linear = await startLinearDouble();
 *   const me = linear.state.workspace.addUser({ name: "Phill Owner" }, { viewer: true });
 *   const client = new LinearClient({ apiKey: linear.apiKey, apiUrl: linear.url });
 *
 * A daemon in a child process gets LINEAR_API_KEY=linear.apiKey, LINEAR_API_URL=linear.url.
 * The key is checked as Linear checks a personal key: `Authorization: <key>`, no "Bearer".
 *
 * Fault hooks (keyed by a root field of the operation: "commentCreate", "comment", "issue", "viewer"):
 * - `failNext(field, answer)`: the next request with that field gets `answer` (see `linearAnswers`:
 *   notFound, forbidden, authentication, ratelimited, lockTimeout, internal, badGateway) and is not executed.
 * - `loseNext(field)`: the next such request is executed (the comment IS created), then its
 *   socket is destroyed without an answer: a lost answer.
 * - `holdNext(field)`: the next such request waits, unexecuted, until `release()`; `arrived`
 *   resolves when it came. Released, it executes and answers (if its client still listens).
 * - `onRequest(listener)`: `listener` is called synchronously with each request as it is
 *   received, before any fault applies (a fault planned in it applies to this very request);
 *   returns a function that stops listening.
 * - `state.calls.get(field)`: how many requests named that field (faulted ones included);
 *   `state.requests`: each request as received (operation, fields, variables, Authorization).
 */
import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { type LinearAnswer, linearAnswers } from "./answers.js";
import { type Checked, checkRequest, run } from "./execute.js";
import { FaultPlan, type Hold } from "./faults.js";
import { rootResolvers } from "./resolvers.js";
import { Workspace } from "./workspace.js";

export { type LinearAnswer, linearAnswers } from "./answers.js";
export type { CommentSeed, IssueSeed, SyncSeed, TeamSeed, UserSeed } from "./workspace.js";
export type { Hold } from "./faults.js";
export { Workspace } from "./workspace.js";

/** One request as the double received it. */
export interface ReceivedRequest {
  readonly operationName: string | null;
  readonly rootFields: readonly string[];
  readonly variables: Record<string, unknown>;
  readonly authorization: string | undefined;
}

/** What a test reads and changes. */
export interface LinearDoubleState {
  readonly workspace: Workspace;
  /** The personal API key the double accepts. */
  apiKey: string;
  readonly calls: Map<string, number>;
  readonly requests: ReceivedRequest[];
  /** Queries that failed to parse or validate against the schema, with the errors: must stay empty. */
  readonly invalid: { readonly query: string; readonly errors: readonly string[] }[];
}

/** A running double. */
export interface LinearDouble {
  /** The GraphQL endpoint, http://127.0.0.1:<port>/graphql (LINEAR_API_URL). */
  readonly url: string;
  readonly apiKey: string;
  readonly state: LinearDoubleState;
  failNext(field: string, answer: LinearAnswer): void;
  loseNext(field: string): void;
  holdNext(field: string): Hold;
  onRequest(listener: (request: ReceivedRequest) => void): () => void;
  close(): Promise<void>;
}

function send(res: ServerResponse, answer: LinearAnswer, extraHeaders: Record<string, string> = {}): void {
  const text = typeof answer.body === "string" ? answer.body : JSON.stringify(answer.body);
  const type = typeof answer.body === "string" ? "text/html" : "application/json; charset=utf-8";
  res.writeHead(answer.status, { "Content-Type": type, ...extraHeaders, ...answer.headers });
  res.end(text);
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

type Body = { query?: unknown; variables?: Record<string, unknown>; operationName?: string };

/** Reads and checks a request; null when it was answered already (not /graphql, not JSON, invalid against the schema). */
async function accept(
  req: IncomingMessage,
  res: ServerResponse,
  state: LinearDoubleState,
): Promise<{ body: Body; checked: Checked & { ok: true } } | null> {
  const raw = await readBody(req);
  if (req.method !== "POST" || req.url?.split("?")[0] !== "/graphql") {
    send(res, { status: 404, body: "<html>Not found</html>" });
    return null;
  }
  let body: Body;
  try {
    body = JSON.parse(raw);
  } catch {
    send(res, { status: 400, body: { errors: [{ message: "Body is not JSON" }] } });
    return null;
  }
  const query = typeof body.query === "string" ? body.query : "";
  const checked = checkRequest(query, body.operationName);
  if (!checked.ok) {
    state.invalid.push({ query, errors: checked.errors.map((e) => e.message) });
    send(res, {
      status: 400,
      body: { errors: checked.errors.map((e) => ({ message: e.message, extensions: { type: "graphql error" } })) },
    });
    return null;
  }
  return { body, checked };
}

/** Answers one request: recorded and counted, the key checked, a planned fault applied, else executed. */
async function handle(
  req: IncomingMessage,
  res: ServerResponse,
  state: LinearDoubleState,
  faults: FaultPlan,
  root: unknown,
  listeners: ReadonlySet<(request: ReceivedRequest) => void>,
): Promise<void> {
  const accepted = await accept(req, res, state);
  if (accepted === null) return;
  const { body, checked } = accepted;
  const operationName = checked.operation.name?.value ?? null;
  const authorization = req.headers.authorization;
  const request: ReceivedRequest = { operationName, rootFields: checked.rootFields, variables: body.variables ?? {}, authorization };
  state.requests.push(request);
  for (const listener of listeners) listener(request);
  for (const f of checked.rootFields) state.calls.set(f, (state.calls.get(f) ?? 0) + 1);
  if (authorization !== state.apiKey) return send(res, linearAnswers.authentication());
  const fault = faults.take(checked.rootFields);
  if (fault?.kind === "fail") return send(res, fault.answer);
  if (fault?.kind === "hold") {
    fault.arrive();
    await fault.gate;
  }
  const result = await run(checked.document, root, body.variables, operationName ?? undefined);
  if (fault?.kind === "lose") {
    req.socket.destroy();
    return;
  }
  if (!res.destroyed) send(res, { status: 200, body: result }, { "X-RateLimit-Requests-Remaining": "4999" });
}

/** Starts a Linear double on 127.0.0.1, port 0. */
export async function startLinearDouble(opts: { apiKey?: string } = {}): Promise<LinearDouble> {
  const workspace = new Workspace();
  const state: LinearDoubleState = {
    workspace,
    apiKey: opts.apiKey ?? `lin_api_${randomBytes(20).toString("hex")}`,
    calls: new Map(),
    requests: [],
    invalid: [],
  };
  const root = rootResolvers(workspace);
  const faults = new FaultPlan();
  const listeners = new Set<(request: ReceivedRequest) => void>();
  const sockets = new Set<Socket>();
  const server: Server = createServer((req, res) => {
    handle(req, res, state, faults, root, listeners).catch((error: unknown) => {
      if (!res.headersSent) send(res, { status: 500, body: { errors: [{ message: String(error) }] } });
    });
  });
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/graphql`,
    get apiKey() {
      return state.apiKey;
    },
    state,
    failNext: (field, answer) => faults.add(field, { kind: "fail", answer }),
    loseNext: (field) => faults.add(field, { kind: "lose" }),
    holdNext: (field) => faults.hold(field),
    onRequest(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async close() {
      faults.releaseAll();
      for (const s of sockets) s.destroy();
      await new Promise<void>((ok) => server.close(() => ok()));
    },
  };
}
