import { randomBytes } from "node:crypto";
import { afterEach } from "vitest";
import { startApiServer, type ApiServer, type ApiServerOptions } from "../../src/http/server.js";
import { captureLog, memoryCore } from "./memory-core.js";

/** The API token of the servers these tests start. */
export const TOKEN = randomBytes(32).toString("hex");

const running: ApiServer[] = [];

/** Closes every server `start` opened, after each test of the file that imports this. */
export function closeServersAfterEach(): void {
  afterEach(async () => {
    await Promise.all(running.splice(0).map((s) => s.close()));
  });
}

/** Starts the real API over `core` on a free port with TOKEN; `overrides` replace any option. The caller closes it. */
export function serve(core: ReturnType<typeof memoryCore>, overrides: Partial<ApiServerOptions> = {}): Promise<ApiServer> {
  return startApiServer({
    host: "127.0.0.1",
    port: 0,
    token: TOKEN,
    intake: core.intake,
    desk: core.desk,
    events: core.feed,
    log: captureLog(),
    ...overrides,
  });
}

/** Starts the real API on a free port over a new memory core; `overrides` replace any option. Closed by closeServersAfterEach. */
export async function start(overrides: Partial<ApiServerOptions> = {}) {
  const core = memoryCore();
  const log = captureLog();
  const server = await serve(core, { log, ...overrides });
  running.push(server);
  return { core, log, server };
}

/** A parsed answer. */
export interface Answer {
  status: number;
  headers: Headers;
  json: any;
}

/** One request with fetch: the token unless `token` says otherwise, JSON `body` or a `raw` string. */
export async function api(
  server: ApiServer,
  method: string,
  path: string,
  opts: { body?: unknown; raw?: string; token?: string | null; headers?: Record<string, string> } = {},
): Promise<Answer> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.token !== null) headers.authorization ??= `Bearer ${opts.token ?? TOKEN}`;
  let body: string | undefined = opts.raw;
  if (opts.body !== undefined) body = JSON.stringify(opts.body);
  if (body !== undefined) headers["content-type"] ??= "application/json";
  const res = await fetch(`${server.url}${path}`, { method, headers, body });
  return { status: res.status, headers: res.headers, json: await res.json() };
}
