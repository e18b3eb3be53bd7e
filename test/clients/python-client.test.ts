/**
 * The Python client's own tests (clients/python/test_draft_review.py, stdlib
 * unittest) run here against the real daemon with the Bot API double. The
 * Python side drives everything through a small control server: it starts and
 * restarts the daemon, and plays the reviewer (replies and reactions in the
 * review chat). The end-to-end test writes its callback delivery figures to a
 * file that this test prints. Without python3 the test is skipped, and says so.
 */
import { spawn, spawnSync } from "node:child_process";
import { createServer, type IncomingMessage, type Server } from "node:http";
import { readFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { freePort } from "../support/cli-process.js";
import { eventually, freshDirs, TEST_API_TOKEN, type DaemonProcess } from "../support/daemon-process.js";
import { OWNER, useLiveDaemon } from "../support/live-fixture.js";
import { clockEnv } from "../support/clock-env.js";

const CLIENT_DIR = resolve(import.meta.dirname, "../../clients/python");
const PYTHON = spawnSync("python3", ["--version"], { stdio: "ignore" }).status === 0;
const SECRET = "python-callback-secret-0123456789";

const live = useLiveDaemon();
let daemon: DaemonProcess | undefined;
let control: Server | undefined;
afterAll(async () => {
  await new Promise((r) => (control ? control.close(r) : r(undefined)));
});

async function bodyOf(req: IncomingMessage): Promise<Record<string, any>> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const text = Buffer.concat(chunks).toString("utf8");
  return text === "" ? {} : JSON.parse(text);
}

describe("the Python client (clients/python/draft_review.py)", () => {
  it.skipIf(!PYTHON)(
    "passes its unittest suite against the real daemon, end to end with callbacks across a restart",
    async () => {
      const dirs = await freshDirs();
      const apiPort = await freePort();
      const figuresFile = join((await freshDirs()).cwd, "figures.json");
      let daemonEnv: Record<string, string> = {};
      let business: string | undefined;
      const start = async () => {
        daemon = await live.start(
          { DRAFT_API_PORT: String(apiPort), UNDO_WINDOW: "0", TELEGRAM_RATE_SCALE: "10", CALLBACK_SECRET: SECRET, ...daemonEnv },
          { dirs },
        );
      };
      const routes: Record<string, (body: Record<string, any>) => Promise<unknown>> = {
        "POST /daemon/start": async (b) => {
          daemonEnv = b.env ?? {};
          await daemon?.stop("SIGTERM");
          await start();
          return { ok: true };
        },
        "POST /daemon/restart": async () => {
          const code = await daemon!.stop("SIGTERM");
          await start();
          return { ok: true, exit_code: code };
        },
        "POST /reply": async (b) =>
          live.double.injectMessage({ chatId: OWNER, userId: OWNER, text: String(b.text), replyToMessageId: Number(b.review_message_id) }),
        "POST /react": async (b) =>
          live.double.injectReaction({
            chatId: OWNER,
            messageId: Number(b.review_message_id),
            userId: OWNER,
            newEmojis: [String(b.emoji)],
          }),
        // The owner connects the bot (once) and a person writes to him; answered once the daemon has seen it.
        "POST /business/message": async (b) => {
          business ??= live.double.connectBusiness({ userId: OWNER }).id;
          const m = live.double.injectBusinessMessage({
            connectionId: business,
            fromId: Number(b.from_id),
            text: String(b.text),
            ageSeconds: Number(b.age_seconds ?? 0),
            firstName: "Anna",
          });
          await eventually(async () => (await daemon!.request("GET", "/status")).body.business?.open_chats >= 1, 10_000, "seen");
          return { message_id: m.messageId };
        },
        "POST /tap": async (b) =>
          live.double.injectCallback({ chatId: OWNER, messageId: Number(b.review_message_id), userId: OWNER, data: String(b.data) }),
        "GET /review-chat": async () => ({
          messages: live.double
            .messages(OWNER)
            // As the chat shows each message now (edits included).
            .map((m) => ({
              message_id: m.messageId,
              text: live.double.message(OWNER, m.messageId)?.text ?? m.text,
              reply_to: m.replyToMessageId ?? null,
            })),
        }),
      };
      control = createServer((req, res) => {
        const route = routes[`${req.method} ${req.url}`];
        void (async () => {
          try {
            if (!route) throw new Error(`no control route ${req.method} ${req.url}`);
            const answer = await route(await bodyOf(req));
            res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(answer ?? {}));
          } catch (err) {
            res.writeHead(500, { "content-type": "application/json" }).end(JSON.stringify({ error: String((err as Error).stack ?? err) }));
          }
        })();
      });
      await new Promise<void>((r) => control!.listen(0, "127.0.0.1", r));
      const controlUrl = `http://127.0.0.1:${(control.address() as { port: number }).port}`;

      const py = spawn("python3", ["-m", "unittest", "-v", "test_draft_review"], {
        cwd: CLIENT_DIR,
        env: {
          PATH: process.env.PATH ?? "",
          ...clockEnv(),
          PYTHONDONTWRITEBYTECODE: "1",
          DRAFT_API_HOST: "127.0.0.1",
          DRAFT_API_PORT: String(apiPort),
          DRAFT_API_TOKEN: TEST_API_TOKEN,
          E2E_CONTROL_URL: controlUrl,
          E2E_CALLBACK_SECRET: SECRET,
          E2E_FIGURES_FILE: figuresFile,
        },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let output = "";
      py.stdout.on("data", (c: Buffer) => (output += c.toString()));
      py.stderr.on("data", (c: Buffer) => (output += c.toString()));
      const code = await new Promise<number | null>((r) => py.once("exit", r));
      if (code !== 0) console.log(output);
      expect(code, "python3 -m unittest test_draft_review").toBe(0);
      expect(output).toMatch(/\nOK/);
      const figures = JSON.parse(await readFile(figuresFile, "utf8"));
      console.log(`[python e2e] callbacks: ${JSON.stringify(figures)}`);
      expect(figures.duplicates).toBe(0);
      expect(figures.missed).toBe(0);
    },
    120_000,
  );

  it.skipIf(!PYTHON)("the README's Python example compiles against the client", async () => {
    const readme = await readFile(resolve(CLIENT_DIR, "../../README.md"), "utf8");
    const block = /<!-- python-example:start -->\n```python\n([\s\S]*?)```\n<!-- python-example:end -->/.exec(readme);
    expect(block, "the README's python-example block").not.toBeNull();
    const check =
      "import ast, sys, draft_review\nsrc = sys.stdin.read()\nast.parse(src)\nfor name in ('Client', 'ApiError', 'verify_callback'):\n    assert hasattr(draft_review, name)\nprint('ok')";
    const out = spawnSync("python3", ["-c", check], { cwd: CLIENT_DIR, input: block![1], encoding: "utf8" });
    expect(out.stderr).toBe("");
    expect(out.stdout.trim()).toBe("ok");
  });

  it.runIf(!PYTHON)("is skipped: python3 is not installed", () => {
    console.log("[python client] skipped: no python3 on PATH, so clients/python/test_draft_review.py did not run");
  });
});
