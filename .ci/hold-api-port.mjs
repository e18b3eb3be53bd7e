// CI: holds the intake API's default address (127.0.0.1:8787) for the length of `npm test`, answering
// like a running daemon: GET /healthz 200 {"ok":true} without a token, anything else 401. No test may
// depend on that port being free (issue 26 point 7): the suite must pass on a machine where the
// owner's daemon runs. Prints "holding 127.0.0.1:8787" once it listens; stops on SIGTERM.
import { createServer } from "node:http";

const host = process.env.HOLD_HOST ?? "127.0.0.1";
const port = Number(process.env.HOLD_PORT ?? 8787);

const server = createServer((req, res) => {
  const json = (status, body, headers = {}) =>
    res.writeHead(status, { "content-type": "application/json; charset=utf-8", ...headers }).end(JSON.stringify(body));
  if (req.method === "GET" && req.url === "/healthz") return json(200, { ok: true });
  return json(401, { error: "missing or wrong bearer token" }, { "www-authenticate": 'Bearer realm="draft-review"' });
});
server.on("error", (err) => {
  process.stderr.write(`could not hold ${host}:${port}: ${err.message}\n`);
  process.exit(1);
});
server.listen(port, host, () => process.stdout.write(`holding ${host}:${port}\n`));
process.on("SIGTERM", () => server.close(() => process.exit(0)));
