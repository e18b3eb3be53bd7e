import { request } from "node:http";

/**
 * True when a draft-review daemon answers `GET /healthz` at host:port (within
 * `timeoutMs`). Setup uses it to refuse early, before it would fight the
 * daemon over getUpdates. Anything else there (or nothing) is false.
 */
export function daemonAnswers(host: string, port: number, timeoutMs = 1000): Promise<boolean> {
  return new Promise((resolve) => {
    const req = request({ host, port, path: "/healthz", method: "GET", agent: false, timeout: timeoutMs }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => (body += c));
      res.on("end", () => {
        try {
          resolve(res.statusCode === 200 && (JSON.parse(body) as { ok?: unknown }).ok === true);
        } catch {
          resolve(false);
        }
      });
      res.on("error", () => resolve(false));
    });
    req.on("timeout", () => req.destroy());
    req.on("error", () => resolve(false));
    req.end();
  });
}
