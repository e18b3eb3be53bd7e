import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { Socket } from "node:net";

/** How the receiver answers one request. */
export type ReceiverAnswer =
  | { readonly kind: "status"; readonly status: number; readonly body?: string; readonly headers?: Record<string, string> }
  /** Never answers (the sender must time out). */
  | { readonly kind: "hang" }
  /** Destroys the connection without an answer. */
  | { readonly kind: "reset" }
  /** 500 and then an endless body (the sender must stop reading). */
  | { readonly kind: "endless" };

/** One request the receiver got. */
export interface ReceivedCallback {
  readonly body: Buffer;
  readonly headers: IncomingMessage["headers"];
  /** Date.now() when the whole body had arrived. */
  readonly atMs: number;
  readonly answer: ReceiverAnswer["kind"] | number;
}

/**
 * A real local HTTP receiver for push callbacks. Each request is answered by
 * the next planned answer (default 200); it can be stopped and started again
 * on the same port (a receiver that restarts).
 */
export interface CallbackReceiver {
  readonly url: string;
  readonly received: ReceivedCallback[];
  /** Plans the answers of the next requests, in order. */
  plan(...answers: ReceiverAnswer[]): void;
  /** Resolves once `n` requests have arrived in all. */
  waitFor(n: number, timeoutMs?: number): Promise<void>;
  /** Stops listening (connections refused) and cuts open connections. */
  stop(): Promise<void>;
  /** Listens again on the same port. */
  start(): Promise<void>;
}

/** Starts a receiver on 127.0.0.1 (a free port, or `port`). */
export async function startCallbackReceiver(port = 0): Promise<CallbackReceiver> {
  const received: ReceivedCallback[] = [];
  const planned: ReceiverAnswer[] = [];
  const waiters = new Set<() => void>();
  const sockets = new Set<Socket>();
  let server: Server;
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const answer = planned.shift() ?? { kind: "status", status: 200 };
      received.push({
        body: Buffer.concat(chunks),
        headers: req.headers,
        atMs: Date.now(),
        answer: answer.kind === "status" ? answer.status : answer.kind,
      });
      for (const w of [...waiters]) w();
      switch (answer.kind) {
        case "status":
          res.writeHead(answer.status, { "content-type": "text/plain", ...answer.headers });
          return void res.end(answer.body ?? "ok");
        case "hang":
          return;
        case "reset":
          return void req.socket.destroy();
        case "endless": {
          res.writeHead(500, { "content-type": "text/plain" });
          const chunk = "x".repeat(16 * 1024);
          const pump = () => {
            while (!res.destroyed && res.write(chunk));
            if (!res.destroyed) res.once("drain", pump);
          };
          return pump();
        }
      }
    });
  };
  const listen = (p: number) =>
    new Promise<number>((resolve, reject) => {
      server = createServer(handle);
      server.on("connection", (s: Socket) => {
        sockets.add(s);
        s.on("close", () => sockets.delete(s));
      });
      server.once("error", reject);
      server.listen(p, "127.0.0.1", () => resolve((server.address() as { port: number }).port));
    });
  const bound = await listen(port);
  return {
    url: `http://127.0.0.1:${bound}/events`,
    received,
    plan: (...answers) => void planned.push(...answers),
    waitFor(n, timeoutMs = 10_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (received.length < n) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`the receiver got ${received.length} of ${n} requests`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    async stop() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
    async start() {
      await listen(bound);
    },
  };
}
