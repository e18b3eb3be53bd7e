/**
 * The Slack double's HTTP side: POST /api/<method> with a form-encoded or a
 * JSON body (the WebClient sends forms; other clients send JSON), the token
 * from the Authorization header (or a `token` argument, as Slack allows),
 * the planned faults, and the per-conversation posting limit as HTTP 429.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { Args } from "./args.js";
import type { FaultPlan } from "./faults.js";
import { type Answer, METHODS } from "./methods.js";
import { PostingLimiter } from "./rate-limit.js";
import type { SlackDoubleState, TokenIdentity } from "./state.js";

/** One request as the double received it (for tests that check what the client sent). */
export interface ReceivedCall {
  readonly method: string;
  readonly contentType: string;
  readonly args: Args;
  /** Whether the token came in the Authorization header (never logged or kept itself). */
  readonly bearer: boolean;
}

/** What the server needs from the double. */
export interface ServerParts {
  readonly state: SlackDoubleState;
  readonly faults: FaultPlan;
  readonly received: ReceivedCall[];
  readonly now: () => number;
}

/** Starts listening on 127.0.0.1, port 0. */
export async function listen(parts: ServerParts): Promise<Server> {
  const limiter = new PostingLimiter();
  const server = createServer((req, res) => {
    void handle(parts, limiter, req, res).catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return server;
}

async function handle(parts: ServerParts, limiter: PostingLimiter, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const method = /^\/api\/([A-Za-z.]+)$/.exec(req.url ?? "")?.[1];
  const raw = await readBody(req);
  if (req.method !== "POST" || method === undefined) return send(res, { status: 404, body: { ok: false, error: "unknown_method" } });
  parts.state.calls.set(method, (parts.state.calls.get(method) ?? 0) + 1);
  const fault = parts.faults.take(method);
  if (fault?.kind === "reset") return void req.socket.destroy();
  if (fault?.kind === "error") {
    const answer = errorAnswer(fault.error, fault.status, fault.retryAfter);
    return send(res, { ...answer, body: { ...answer.body, ...fault.extra } });
  }
  if (fault?.kind === "http") return sendRaw(res, fault.status, fault.retryAfter);
  const parsed = parseArgs(req.headers["content-type"] ?? "", raw);
  if ("error" in parsed) return send(res, { body: { ok: false, error: parsed.error } });
  const auth = req.headers.authorization;
  const token = auth?.startsWith("Bearer ") ? auth.slice(7) : typeof parsed.args.token === "string" ? parsed.args.token : undefined;
  parts.received.push({
    method,
    contentType: req.headers["content-type"] ?? "",
    args: withoutToken(parsed.args),
    bearer: auth !== undefined,
  });
  const scopes = token === undefined ? undefined : parts.state.tokens.get(token)?.scopes;
  const handled = answerCall(parts, limiter, method, token, parsed.args);
  const answer = scopes === undefined ? handled : { ...handled, headers: { ...handled.headers, "X-OAuth-Scopes": scopes.join(",") } };
  if (fault?.kind === "drop") return void req.socket.destroy();
  if (fault?.kind === "hold") {
    fault.handled();
    await fault.release;
  }
  send(res, answer);
}

function answerCall(parts: ServerParts, limiter: PostingLimiter, method: string, token: string | undefined, args: Args): Answer {
  const { state } = parts;
  if (token === undefined || token === "") return { body: { ok: false, error: "not_authed" } };
  if (state.revokedTokens.has(token)) return { body: { ok: false, error: "token_revoked" } };
  const caller: TokenIdentity | undefined = state.tokens.get(token);
  if (caller === undefined) return { body: { ok: false, error: "invalid_auth" } };
  const handler = METHODS[method];
  if (handler === undefined) return { body: { ok: false, error: "unknown_method" } };
  const nowMs = parts.now();
  const limited = method === "chat.postMessage" && state.perConversationMs !== null && typeof args.channel === "string";
  if (limited) {
    const wait = limiter.retryAfter(String(args.channel), nowMs, state.perConversationMs!, state.perConversationBurst);
    if (wait !== null) {
      state.rateLimited.set(method, (state.rateLimited.get(method) ?? 0) + 1);
      return errorAnswer("ratelimited", 429, wait);
    }
  }
  const answer = handler({ state, caller, args, nowMs });
  if (limited && answer.body.ok === true) limiter.take(String(args.channel), nowMs, state.perConversationMs!, state.perConversationBurst);
  return answer;
}

function errorAnswer(error: string, status: number, retryAfter: number | null): Answer {
  return { status, headers: retryAfter === null ? {} : { "Retry-After": String(retryAfter) }, body: { ok: false, error } };
}

function parseArgs(contentType: string, raw: string): { args: Args } | { error: string } {
  const type = contentType.split(";")[0]!.trim().toLowerCase();
  if (type === "application/x-www-form-urlencoded") return { args: Object.fromEntries(new URLSearchParams(raw)) };
  if (type === "application/json") {
    try {
      const value = JSON.parse(raw) as unknown;
      if (value === null || typeof value !== "object" || Array.isArray(value)) return { error: "json_not_object" };
      return { args: value as Args };
    } catch {
      return { error: "invalid_json" };
    }
  }
  return { error: type === "" ? "missing_post_type" : "invalid_post_type" };
}

function withoutToken(args: Args): Args {
  const { token: _, ...rest } = args;
  return rest;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

function send(res: ServerResponse, answer: Answer): void {
  const body = JSON.stringify(answer.body);
  res.writeHead(answer.status ?? 200, { "Content-Type": "application/json; charset=utf-8", ...answer.headers });
  res.end(body);
}

function sendRaw(res: ServerResponse, status: number, retryAfter: number | null): void {
  res.writeHead(status, { "Content-Type": "text/html", ...(retryAfter === null ? {} : { "Retry-After": String(retryAfter) }) });
  res.end(`<html><body>${status}</body></html>`);
}
