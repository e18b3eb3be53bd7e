/**
 * A programmable HTTP proxy in front of the Bot API double: what a reverse
 * proxy or a flaky network does to Bot API calls. Per method, the next calls
 * can be answered by an HTML error page (after or instead of forwarding the
 * call), by invalid JSON, or by a reset connection. Everything else is
 * forwarded unchanged. Errors like these are the ones whose messages carry
 * the request URL, and so the bot token.
 */
import { createServer, request, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";

/** What happens to one call instead of a plain forward. */
export type ProxyFault =
  /** Forwarded (the double acts on it), then answered with nginx's 502 page: the outcome is unknown to the client. */
  | "html-502-after-forward"
  /** Not forwarded; answered with a 502 HTML page. */
  | "html-502"
  /** Not forwarded; answered 200 with a body that is not JSON. */
  | "not-json"
  /** Not forwarded; the socket is destroyed. */
  | "reset";

export interface HostileProxy {
  readonly url: string;
  /** The next `times` calls of `method` (case-insensitive) get `fault`. */
  fault(method: string, fault: ProxyFault, times?: number, when?: (body: string) => boolean): void;
  /** Faults served so far, per kind. */
  readonly served: Record<string, number>;
  stop(): Promise<void>;
}

const NGINX_502 =
  "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n";

export async function startHostileProxy(target: string): Promise<HostileProxy> {
  const plans = new Map<string, Array<{ fault: ProxyFault; times: number; when?: (body: string) => boolean }>>();
  const served: Record<string, number> = {};
  const sockets = new Set<Socket>();
  const upstream = new URL(target);

  const forward = (req: IncomingMessage, body: Buffer): Promise<{ status: number; headers: Record<string, string>; body: Buffer }> =>
    new Promise((resolve, reject) => {
      const out = request(
        {
          host: upstream.hostname,
          port: upstream.port,
          method: req.method,
          path: req.url,
          headers: { ...req.headers, host: upstream.host },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("end", () =>
            resolve({
              status: res.statusCode ?? 502,
              headers: { "content-type": String(res.headers["content-type"] ?? "application/json") },
              body: Buffer.concat(chunks),
            }),
          );
          res.on("error", reject);
        },
      );
      out.on("error", reject);
      out.end(body);
    });

  const take = (method: string, body: string): ProxyFault | undefined => {
    const list = plans.get(method.toLowerCase());
    const i = list?.findIndex((p) => !p.when || p.when(body)) ?? -1;
    if (!list || i < 0) return undefined;
    const plan = list[i]!;
    plan.times--;
    if (plan.times <= 0) list.splice(i, 1);
    served[plan.fault] = (served[plan.fault] ?? 0) + 1;
    return plan.fault;
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks);
    const method = /\/bot[^/]+\/([^/?]+)/.exec(req.url ?? "")?.[1] ?? "";
    const fault = take(method, body.toString("utf8"));
    if (fault === "reset") return void req.socket.destroy();
    if (fault === "html-502" || fault === "html-502-after-forward") {
      if (fault === "html-502-after-forward") await forward(req, body).catch(() => undefined);
      res.writeHead(502, { "content-type": "text/html", "content-length": Buffer.byteLength(NGINX_502) });
      return void res.end(NGINX_502);
    }
    if (fault === "not-json") {
      res.writeHead(200, { "content-type": "application/json" });
      return void res.end("{ this is not json");
    }
    try {
      const answer = await forward(req, body);
      res.writeHead(answer.status, { ...answer.headers, "content-length": answer.body.length });
      res.end(answer.body);
    } catch {
      req.socket.destroy();
    }
  };

  const server = createServer((req, res) => void handle(req, res).catch(() => req.socket.destroy()));
  server.keepAliveTimeout = 65_000;
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    served,
    fault(method, fault, times = 1, when) {
      const key = method.toLowerCase();
      const list = plans.get(key) ?? [];
      list.push({ fault, times, ...(when ? { when } : {}) });
      plans.set(key, list);
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const s of sockets) s.destroy();
      }),
  };
}
